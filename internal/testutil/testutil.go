// Package testutil starts real redis-server and redis-sentinel processes for
// tests, on ports the kernel picks, and stops them by PID in t.Cleanup.
//
// Nothing here sleeps for a fixed time: readiness is awaited by polling the
// process's port with a deadline, and every helper fails the test with a
// clear message (including the process's log) when a process does not come
// up.
package testutil

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TB is the subset of testing.TB the helpers need; it lets benchmarks and
// tests share them.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
	Cleanup(func())
	TempDir() string
}

var _ TB = (*testing.T)(nil)

// portMu serialises FreePort so that two tests of one process do not get the
// same port between the close of the probe listener and the server's bind.
var (
	portMu    sync.Mutex
	portsUsed = map[int]bool{}
)

// claimDir holds one file per port handed out by any test process of this
// machine (go test runs packages in parallel processes). A claim lives until
// the test that took it ends, so a port whose process a test killed (a dead
// master a sentinel still remembers) is never handed to another test while
// that test's sentinels may still reconfigure whatever answers there.
var claimDir = filepath.Join(os.TempDir(), "gosentinel-test-ports")

// claimTTL bounds how long a claim left by a crashed test process blocks a
// port.
const claimTTL = 30 * time.Minute

// FreePort returns a TCP port on 127.0.0.1 that the kernel reported free and
// that no other running test (in this or another test process) holds.
// redis-sentinel refuses port 0, so tests that start it need a concrete port.
// The claim is released in t.Cleanup.
func FreePort(t TB) int {
	t.Helper()
	portMu.Lock()
	defer portMu.Unlock()
	_ = os.MkdirAll(claimDir, 0o777)
	for i := 0; i < 200; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("testutil: listen for a free port: %v", err)
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if portsUsed[p] || !claimPort(p) {
			continue
		}
		portsUsed[p] = true
		t.Cleanup(func() { releasePort(p) })
		return p
	}
	t.Fatalf("testutil: no unclaimed free port after 200 tries")
	return 0
}

func claimPath(p int) string { return filepath.Join(claimDir, strconv.Itoa(p)) }

// claimPort creates the claim file for p; false if another live claim holds it.
func claimPort(p int) bool {
	path := claimPath(p)
	for attempt := 0; attempt < 2; attempt++ {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o666)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return true
		}
		if !errors.Is(err, os.ErrExist) {
			return true // no claim directory (read-only tmp): fall back to the in-process check
		}
		st, serr := os.Stat(path)
		if serr != nil || time.Since(st.ModTime()) < claimTTL {
			return false
		}
		_ = os.Remove(path) // stale claim of a crashed test process
	}
	return false
}

func releasePort(p int) { _ = os.Remove(claimPath(p)) }

// Binary returns the path of a Redis binary (redis-server, redis-sentinel,
// redis-cli, redis-benchmark), failing the test when it is not installed.
func Binary(t TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("testutil: %s not found on PATH; run `make deps` (apt-get install redis-server redis-sentinel redis-tools)", name)
	}
	return p
}

// Process is a started redis-server or redis-sentinel.
type Process struct {
	Name    string // "redis-server" or "redis-sentinel"
	Port    int
	Dir     string // working directory (holds the config and log)
	Conf    string // absolute path of the config file
	LogFile string // absolute path of the log file
	cmd     *exec.Cmd
	done    chan struct{}
	mu      sync.Mutex
	exited  bool
}

// Addr returns "127.0.0.1:<port>".
func (p *Process) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(p.Port)) }

// PID returns the process id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Kill sends SIGKILL and waits for the process to exit.
func (p *Process) Kill() {
	p.signal(syscall.SIGKILL)
	<-p.done
}

// Stop sends SIGSTOP (the process stays alive but answers nothing).
func (p *Process) Stop() { p.signal(syscall.SIGSTOP) }

// Cont sends SIGCONT to a stopped process.
func (p *Process) Cont() { p.signal(syscall.SIGCONT) }

// Term sends SIGTERM and waits for the process to exit.
func (p *Process) Term() {
	p.signal(syscall.SIGTERM)
	<-p.done
}

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Done is closed when the process exits.
func (p *Process) Done() <-chan struct{} { return p.done }

func (p *Process) signal(sig syscall.Signal) {
	if p.Exited() {
		return
	}
	_ = p.cmd.Process.Signal(sig)
}

// Log returns the process's log file contents (for failure messages).
func (p *Process) Log() string {
	b, _ := os.ReadFile(p.LogFile)
	return string(b)
}

// StartRedis starts a redis-server on a free loopback port with persistence
// off. Extra lines are appended to its config (e.g. "replicaof 127.0.0.1 6379",
// "replica-priority 0", "requirepass x"). The server is killed in t.Cleanup.
func StartRedis(t TB, extra ...string) *Process {
	t.Helper()
	return StartRedisOnPort(t, FreePort(t), extra...)
}

// StartRedisOnPort is StartRedis on a given port (used to restart a killed
// master on its old address).
func StartRedisOnPort(t TB, port int, extra ...string) *Process {
	t.Helper()
	return startDataNode(t, "redis-server", port, extra...)
}

// startDataNode starts bin (redis-server or valkey-server) like
// StartRedisOnPort.
func startDataNode(t TB, bin string, port int, extra ...string) *Process {
	t.Helper()
	dir, err := os.MkdirTemp(t.TempDir(), "redis-"+strconv.Itoa(port)+"-")
	if err != nil {
		t.Fatalf("testutil: %v", err)
	}
	lines := []string{
		"port " + strconv.Itoa(port),
		"bind 127.0.0.1",
		"save \"\"",
		"appendonly no",
		"protected-mode no",
		"dir " + quote(dir),
		"logfile " + quote(filepath.Join(dir, "redis.log")),
		"repl-diskless-sync yes",
		"repl-diskless-sync-delay 0",
		"repl-ping-replica-period 1",
	}
	lines = append(lines, extra...)
	conf := filepath.Join(dir, "redis.conf")
	writeFile(t, conf, strings.Join(lines, "\n")+"\n")
	p := start(t, bin, Binary(t, bin), []string{conf}, dir, port)
	p.LogFile = filepath.Join(dir, "redis.log")
	p.Conf = conf
	return p
}

// StartSentinel starts the real redis-sentinel with the given config body
// (a "port N" line is prepended). The config file lives in a fresh temp dir
// and is rewritten by the sentinel as usual. It is killed in t.Cleanup.
func StartSentinel(t TB, body string) *Process {
	t.Helper()
	port, dir := sentinelDir(t, "sentinel-")
	conf := filepath.Join(dir, "sentinel.conf")
	log := filepath.Join(dir, "sentinel.log")
	writeFile(t, conf, fmt.Sprintf("port %d\nbind 127.0.0.1\nlogfile %s\n%s\n", port, quote(log), body))
	return StartSentinelConf(t, Binary(t, "redis-sentinel"), conf, port, log)
}

// sentinelDir claims a free port and makes a fresh directory named after it
// (prefix + port) for a sentinel's config and log.
func sentinelDir(t TB, prefix string) (port int, dir string) {
	t.Helper()
	port = FreePort(t)
	dir, err := os.MkdirTemp(t.TempDir(), prefix+strconv.Itoa(port)+"-")
	if err != nil {
		t.Fatalf("testutil: %v", err)
	}
	return port, dir
}

// StartSentinelConf starts a sentinel binary (real redis-sentinel or
// gosentinel) on an existing config file that already names port. logFile is
// only used for failure messages.
func StartSentinelConf(t TB, bin, conf string, port int, logFile string) *Process {
	t.Helper()
	return StartSentinelConfReady(t, bin, conf, port, logFile, readyTimeout)
}

// StartSentinelConfReady is StartSentinelConf with another bound than 10 s
// on the wait for the first PONG: with thousands of masters real Sentinel
// may take longer, and the bench measures that delay.
func StartSentinelConfReady(t TB, bin, conf string, port int, logFile string, ready time.Duration) *Process {
	t.Helper()
	p := startReady(t, filepath.Base(bin), bin, []string{conf}, filepath.Dir(conf), port, ready)
	p.Conf = conf
	p.LogFile = logFile
	return p
}

// readyTimeout bounds the wait for a started process's first PONG.
const readyTimeout = 10 * time.Second

func start(t TB, name, bin string, args []string, dir string, port int) *Process {
	t.Helper()
	return startReady(t, name, bin, args, dir, port, readyTimeout)
}

// startReady spawns the process and waits up to ready for its first PONG.
func startReady(t TB, name, bin string, args []string, dir string, port int, ready time.Duration) *Process {
	t.Helper()
	p := spawn(t, name, bin, args, dir, port)
	if err := WaitPing(p.Addr(), ready, p.done); err != nil {
		se, _ := os.ReadFile(p.StderrPath())
		t.Fatalf("testutil: %s on port %d not ready: %v\nstderr: %s\nlog: %s", name, port, err, se, p.Log())
	}
	return p
}

// spawn starts bin with args in dir, its stderr in dir/stderr.txt, in its
// own process group and killed if the test binary dies; it is reaped by a
// goroutine and killed by PID in t.Cleanup. It does not wait for readiness.
func spawn(t TB, name, bin string, args []string, dir string, port int) *Process {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	stderr, err := os.Create(filepath.Join(dir, "stderr.txt"))
	if err != nil {
		t.Fatalf("testutil: %v", err)
	}
	cmd.Stderr = stderr
	// Own process group, so that a test binary killed by a timeout does not
	// leave the server behind with our terminal.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	stderr.Close()
	if err != nil {
		t.Fatalf("testutil: start %s: %v", bin, err)
	}
	p := &Process{Name: name, Port: port, Dir: dir, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.signal(syscall.SIGCONT)
		p.signal(syscall.SIGKILL)
		<-p.done
		// Whatever the process started (a sentinel's notification or
		// reconfig scripts) shares its process group: kill it too, so no
		// test leaves a child behind.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	return p
}

// ErrExited is returned by WaitPing when the process exited while waiting.
var ErrExited = errors.New("process exited")

// WaitPing polls addr with an inline PING until it answers +PONG, the
// deadline passes, or done is closed.
func WaitPing(addr string, timeout time.Duration, done <-chan struct{}) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return ErrExited
		default:
		}
		if last = Ping(addr); last == nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond) // poll interval: there is no readiness event to await
	}
	return fmt.Errorf("no PONG from %s within %v: %w", addr, timeout, last)
}

// Ping sends an inline PING and expects +PONG (or -NOAUTH from a server
// that requires a password, or the unknown-command error of one that
// renamed PING, which are just as alive).
func Ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return err
	}
	return pingConn(c)
}

// pingConn sends an inline PING on c, checks the answer like Ping, and
// closes c.
func pingConn(c net.Conn) error {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	// A server with requirepass answers -NOAUTH, one that renamed PING
	// (rename-command) an unknown-command error: it is up and serving.
	if !strings.HasPrefix(line, "+PONG") && !strings.HasPrefix(line, "-NOAUTH") && !strings.HasPrefix(line, "-ERR unknown command 'PING'") {
		return fmt.Errorf("unexpected reply %q", strings.TrimSpace(line))
	}
	return nil
}

func writeFile(t TB, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatalf("testutil: %v", err)
	}
}

func quote(s string) string { return strconv.Quote(s) }
