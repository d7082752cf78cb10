package testutil

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// StartSentinelAt starts a sentinel binary (real redis-sentinel or
// gosentinel) with argv args from the working directory cwd, the way tools
// start it (`redis-sentinel rel/path/sentinel.conf`). port is the port the
// config file names; stderr goes to cwd/stderr.txt (see StderrPath). It
// waits for an inline PING to answer +PONG. The process is killed by PID
// in t.Cleanup.
func StartSentinelAt(t TB, bin, cwd string, args []string, port int) *Process {
	t.Helper()
	return start(t, "redis-sentinel", bin, args, cwd, port)
}

// StartSentinelNoAuth is StartSentinelConf for a sentinel that requires a
// password: it is ready when an inline PING answers +PONG or -NOAUTH.
func StartSentinelNoAuth(t TB, bin, conf string, port int) *Process {
	t.Helper()
	dir := filepath.Dir(conf)
	cmd := exec.Command(bin, conf)
	cmd.Dir = dir
	stderr, err := os.Create(filepath.Join(dir, "stderr.txt"))
	if err != nil {
		t.Fatalf("testutil: %v", err)
	}
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		stderr.Close()
		t.Fatalf("testutil: start %s: %v", bin, err)
	}
	stderr.Close()
	p := &Process{Name: filepath.Base(bin), Port: port, Dir: dir, Conf: conf, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.signal(syscall.SIGCONT)
		p.signal(syscall.SIGKILL)
		<-p.done
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		line, err := pingLine(p.Addr())
		if err == nil && (strings.HasPrefix(line, "+PONG") || strings.HasPrefix(line, "-NOAUTH")) {
			return p
		}
		if p.Exited() || time.Now().After(deadline) {
			t.Fatalf("testutil: %s on port %d not ready: %q %v", bin, port, line, err)
		}
		time.Sleep(10 * time.Millisecond) // poll interval: there is no readiness event to await
	}
}

// pingLine sends an inline PING and returns the first reply line.
func pingLine(addr string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return "", fmt.Errorf("dial: %w", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return "", fmt.Errorf("write: %w", err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("read: %w", err)
	}
	return line, nil
}

// StderrPath returns the file that received the process's stderr.
func (p *Process) StderrPath() string { return filepath.Join(p.Dir, "stderr.txt") }

// ExitCode waits for the process to exit and returns its exit status (-1
// when it was killed by a signal).
func (p *Process) ExitCode() int {
	<-p.done
	return p.cmd.ProcessState.ExitCode()
}
