package netlab

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func getent(t *testing.T, run func(context.Context, ...string) ([]byte, error), name string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := run(ctx, "getent", "hosts", name)
	f := strings.Fields(string(out))
	if err != nil || len(f) == 0 {
		return "", errors.Join(err, errors.New(strings.TrimSpace(string(out))))
	}
	return f[0], nil
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

func TestChangeIPKeepsName(t *testing.T) {
	l, hs := newLab(t, "a", "b")
	a, b := hs[0], hs[1]
	echoServer(t, b, 7000) // listens on 0.0.0.0: survives the change
	// A long-running process on a: its /etc/hosts is the bind mount made
	// when it started, so this checks the in-place rewrite.
	p, err := a.Start(ProcSpec{Name: "sleeper", Argv: []string{"sleep", "3600"}})
	if err != nil {
		t.Fatal(err)
	}
	hostsA := filepath.Join("/etc/netns", a.NS(), "hosts")
	ino := inode(t, hostsA)
	if ip, err := getent(t, p.Exec, "b"); err != nil || ip != b.IP() {
		t.Fatalf("before: b resolves to %q (%v), want %s", ip, err, b.IP())
	}
	oldIP, newIP, err := l.ChangeIP(b)
	if err != nil {
		t.Fatal(err)
	}
	if oldIP == newIP || b.IP() != newIP {
		t.Fatalf("ChangeIP: old %s new %s, IP() %s", oldIP, newIP, b.IP())
	}
	if ip, err := getent(t, p.Exec, "b"); err != nil || ip != newIP {
		t.Fatalf("running process on a: b resolves to %q (%v), want %s", ip, err, newIP)
	}
	if ip, err := getent(t, a.Exec, "b"); err != nil || ip != newIP {
		t.Fatalf("new process on a: b resolves to %q (%v), want %s", ip, err, newIP)
	}
	if got := inode(t, hostsA); got != ino {
		t.Fatalf("hosts file replaced (inode %d -> %d); it must be rewritten in place", ino, got)
	}
	if err := dialEcho(a, "b:7000", 5*time.Second); err != nil {
		t.Fatalf("a -> b by name after ChangeIP: %v", err)
	}
	if err := dialEcho(a, net.JoinHostPort(oldIP, "7000"), 300*time.Millisecond); err == nil {
		t.Fatal("the old address still answers")
	}
	// A fault made before the change follows the host to its new address.
	mustHealFn(t)(l.Cut(a, b, Reject))
	if _, _, err := l.ChangeIP(b); err != nil {
		t.Fatal(err)
	}
	if err := dialEcho(a, b.Addr(7000), 2*time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("cut after a second ChangeIP: want refused, got %v", err)
	}
}

func TestSetResolvable(t *testing.T) {
	l, hs := newLab(t, "a", "b")
	a, b := hs[0], hs[1]
	echoServer(t, b, 7000)
	if err := l.SetResolvable(b, false); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if ip, err := getent(t, a.Exec, "b"); err == nil {
		t.Fatalf("b still resolves to %s", ip)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("a failed lookup took %v; it should fail at once", d)
	}
	if _, err := getent(t, b.Exec, "b"); err == nil {
		t.Fatal("b resolves its own name")
	}
	var dnsErr *net.DNSError
	if err := dialEcho(a, "b:7000", time.Second); !errors.As(err, &dnsErr) {
		t.Fatalf("DialContext to an unresolvable name: want a DNS error, got %v", err)
	}
	if ip, err := getent(t, b.Exec, "a"); err != nil || ip != a.IP() {
		t.Fatalf("other names must still resolve: %q %v", ip, err)
	}
	if err := l.SetResolvable(b, true); err != nil {
		t.Fatal(err)
	}
	if ip, err := getent(t, a.Exec, "b"); err != nil || ip != b.IP() {
		t.Fatalf("after restore: %q %v", ip, err)
	}
}
