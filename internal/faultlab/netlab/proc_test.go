package netlab

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startRedis starts a real redis-server on h:6379 with its data in dir.
func startRedis(t *testing.T, h *Host, spec ProcSpec) *Proc {
	t.Helper()
	if spec.Name == "" {
		spec.Name = "redis"
	}
	dataDir := filepath.Join(t.TempDir(), "data")
	if len(spec.BindSelf) > 0 {
		dataDir = spec.BindSelf[0]
	} else if len(spec.TmpfsDirs) > 0 {
		dataDir = spec.TmpfsDirs[0]
	}
	spec.Argv = []string{"redis-server", "--port", "6379", "--bind", "0.0.0.0", "--protected-mode", "no",
		"--save", "", "--appendonly", "no", "--dir", dataDir}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := h.Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Kill() })
	waitRedis(t, h, h.Addr(6379))
	return p
}

// redisCmd sends one inline command on a fresh connection from `from` and
// returns the first reply line.
func redisCmd(from *Host, addr string, timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c, err := from.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	rd := bufio.NewReader(c)
	line, err := rd.ReadString('\n')
	if err == nil && strings.HasPrefix(line, "$") && line != "$-1\r\n" {
		line, err = rd.ReadString('\n') // the bulk string's payload
	}
	return strings.TrimRight(line, "\r\n"), err
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// waitRedis waits until redis at addr answers PING, seen from h itself.
func waitRedis(t *testing.T, h *Host, addr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, err := redisCmd(h, addr, time.Second, "PING")
		if err == nil && r == "+PONG" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis at %s not up: %q %v", addr, r, err)
		}
		time.Sleep(20 * time.Millisecond) // polling a process we do not control
	}
}

func TestStartRedisAcrossHosts(t *testing.T) {
	_, hs := newLab(t, "a", "b")
	a, b := hs[0], hs[1]
	p := startRedis(t, b, ProcSpec{})
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p.PID))
	if err != nil || strings.TrimSpace(string(comm)) != "redis-server" {
		t.Fatalf("PID %d is %q (%v), want the redis-server itself", p.PID, comm, err)
	}
	if r, err := redisCmd(a, "b:6379", 2*time.Second, "SET", "k", "v"); err != nil || r != "+OK" {
		t.Fatalf("SET from a: %q %v", r, err)
	}
	// The client address redis sees is a's own (no NAT, no proxy).
	r, err := redisCmd(a, b.Addr(6379), 2*time.Second, "CLIENT", "INFO")
	if err != nil || !strings.Contains(r, "addr="+a.IP()+":") {
		t.Fatalf("CLIENT INFO from a: %q %v", r, err)
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if done, code := p.Exited(); !done || code != 0 {
		t.Fatalf("after SIGTERM: exited=%v code=%d, want a clean exit", done, code)
	}
	if _, err := redisCmd(a, b.Addr(6379), time.Second, "PING"); err == nil {
		t.Fatal("redis still answers after SIGTERM")
	}
}

func TestCloseLeavesNothing(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	l, err := New(context.Background(), Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	h, err := l.AddHost("a")
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.Start(ProcSpec{Name: "sleeper", Argv: []string{"sleep", "3600"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Cut(h, h2(t, l), Drop); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if done, _ := p.Exited(); !done {
		t.Fatal("process alive after Close")
	}
	if alive(p.PID) {
		t.Fatalf("pid %d still exists", p.PID)
	}
	names, err := listNetns()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.HasPrefix(n, l.Prefix()) {
			t.Fatalf("namespace %s left after Close", n)
		}
	}
	if _, err := os.Stat(filepath.Join("/etc/netns", l.Prefix()+"a")); !os.IsNotExist(err) {
		t.Fatalf("/etc/netns dir left after Close: %v", err)
	}
	if _, err := h.Start(ProcSpec{Argv: []string{"true"}}); err == nil {
		t.Fatal("Start after Close succeeded")
	}
}

func TestStartReportsWrapperFailure(t *testing.T) {
	_, hs := newLab(t, "a")
	_, err := hs[0].Start(ProcSpec{Name: "bad", Argv: []string{"sleep", "3600"},
		TmpfsDirs: []string{filepath.Join(t.TempDir(), "d")}, TmpfsSize: "bogus"})
	if err == nil || !strings.Contains(err.Error(), "wrapper failed") {
		t.Fatalf("Start with an impossible tmpfs: want a wrapper error, got %v", err)
	}
	t.Log(err)
}

func h2(t *testing.T, l *Lab) *Host {
	h, err := l.AddHost("b")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestStaleLabIsRemoved(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	l, err := New(context.Background(), Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	idx := l.Index()
	t.Cleanup(func() { _ = CleanupStale(l.Prefix()) })
	h, err := l.AddHost("a")
	if err != nil {
		t.Fatal(err)
	}
	// Simulate a crash: the lock goes, the namespaces and a process stay.
	out, err := h.Exec(context.Background(), "sh", "-c", "sleep 3600 >/dev/null 2>&1 & echo $!")
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(string(out), &pid)
	l.spawn.stop()
	l.releaseLock()
	l2, err := New(context.Background(), Options{Index: idx, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	names, _ := listNetns()
	for _, n := range names {
		if n == h.NS() {
			t.Fatalf("stale namespace %s survived New", n)
		}
	}
	if pid > 0 && alive(pid) {
		t.Fatalf("stale process %d survived New", pid)
	}
	if _, err := New(context.Background(), Options{Index: idx}); err == nil {
		t.Fatal("a second lab got the same index")
	}
}
