package config

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const realSentinel = "/usr/bin/redis-sentinel"

// needReal skips the test when the real redis-sentinel is not installed.
func needReal(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(realSentinel); err != nil {
		t.Skip("redis-sentinel not installed")
	}
}

// freePort returns a port the kernel considers free (listen on :0, close).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// killDaemon stops the daemonized sentinel we started, by the PID it wrote,
// after checking that the PID still is a redis-sentinel (never signal a
// recycled PID).
func killDaemon(pid int) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if pid > 0 && err == nil && strings.Contains(string(b), "redis-sentinel") {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// waitPort polls until something accepts on 127.0.0.1:port; it fails at
// once if the process exits first (exited may be nil).
func waitPort(t *testing.T, port int, exited chan error, stderr fmt.Stringer) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("redis-sentinel exited before serving: %v: %s", err, stderr)
		default:
		}
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sentinel on port %d not ready: %v", port, err)
		}
		time.Sleep(20 * time.Millisecond) // no event to await: poll with a deadline
	}
}

// command sends inline commands on one connection and returns the first
// line of the last reply.
func command(t *testing.T, port int, cmds ...string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 2*time.Second)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	line := ""
	for _, cmd := range cmds {
		if _, err := fmt.Fprintf(c, "%s\r\n", cmd); err != nil {
			t.Fatalf("write: %v", err)
		}
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("read reply to %q: %v", cmd, err)
		}
		line = strings.TrimRight(l, "\r\n")
	}
	return line
}

// runReal runs the real redis-sentinel on dir/sentinel.conf with --port
// port, makes it rewrite its config with SENTINEL FLUSHCONFIG, stops it and
// returns the file. With daemonize yes it waits for pidfile and kills the
// daemon by the PID it wrote.
func runReal(t *testing.T, dir string, port int, args []string, pidfile, pass string, before ...string) string {
	t.Helper()
	return runBin(t, realSentinel, dir, port, args, pidfile, pass, before...)
}

// runBin is runReal with another sentinel binary (valkey-sentinel).
func runBin(t *testing.T, bin, dir string, port int, args []string, pidfile, pass string, before ...string) string {
	t.Helper()
	conf := filepath.Join(dir, "sentinel.conf")
	argv := append([]string{"sentinel.conf", "--port", strconv.Itoa(port)}, args...)
	cmd := exec.Command(bin, argv...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-sentinel: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // a no-op once Wait has reaped it
		<-exited
	})
	watch := exited
	if pidfile != "" {
		if err := <-exited; err != nil {
			t.Fatalf("daemonizing sentinel: %v (%s)", err, stderr.String())
		}
		exited <- nil
		watch = nil
		deadline := time.Now().Add(10 * time.Second)
		for {
			b, err := os.ReadFile(pidfile)
			if n, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil && n > 0 {
				t.Cleanup(func() { killDaemon(n) })
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no pidfile %s", pidfile)
			}
			time.Sleep(20 * time.Millisecond) // no event to await: poll with a deadline
		}
	}
	waitPort(t, port, watch, &stderr)
	cmds := append(append([]string(nil), before...), "SENTINEL FLUSHCONFIG")
	for _, c := range before {
		if r := command(t, port, c); strings.HasPrefix(r, "-") {
			t.Fatalf("%s: %s", c, r)
		}
	}
	cmds = cmds[len(before):]
	if pass != "" {
		cmds = append([]string{"AUTH " + pass}, cmds...)
	}
	if r := command(t, port, cmds...); r != "+OK" {
		t.Fatalf("FLUSHCONFIG: %q", r)
	}
	b, err := os.ReadFile(conf)
	if err != nil {
		t.Fatalf("read rewritten config: %v", err)
	}
	if stderr.Len() > 0 {
		t.Fatalf("redis-sentinel wrote to stderr: %s", stderr.String())
	}
	return string(b)
}

// normalize sorts each run of appended ordinary options after the rewrite
// marker, and each run of known-replica/known-sentinel/rename-command lines:
// real Redis emits them in hash-table order, which changes from one process
// to the next.
func normalize(s string) string {
	lines := strings.Split(s, "\n")
	for _, p := range []string{"sentinel known-replica ", "sentinel known-sentinel ", "sentinel rename-command "} {
		sortRuns(lines, 0, func(l string) bool { return strings.HasPrefix(l, p) })
	}
	start := -1
	for i, l := range lines {
		if l == Signature {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return s
	}
	isStd := func(l string) bool {
		return l != "" && !strings.HasPrefix(l, "sentinel ") && !strings.HasPrefix(l, "user ") && !strings.HasPrefix(l, "#")
	}
	sortRuns(lines, start, isStd)
	return strings.Join(lines, "\n")
}

// sortRuns sorts, from index start on, each maximal run of lines matching in.
func sortRuns(lines []string, start int, in func(string) bool) {
	for i := start; i < len(lines); {
		if !in(lines[i]) {
			i++
			continue
		}
		j := i
		for j < len(lines) && in(lines[j]) {
			j++
		}
		sort.Strings(lines[i:j])
		i = j
	}
}

// myidOf returns the myid a config file holds.
func myidOf(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(l, "sentinel myid "); ok {
			return v
		}
	}
	return ""
}

var errNoDiff = errors.New("no diff")

// diffLines returns the first differing line, or errNoDiff.
func diffLines(want, got string) error {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b || (i >= len(w)) != (i >= len(g)) {
			return fmt.Errorf("line %d: real %q, ours %q", i+1, a, b)
		}
	}
	return errNoDiff
}
