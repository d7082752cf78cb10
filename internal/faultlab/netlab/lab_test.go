package netlab

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// newLab starts a lab with the named hosts, closed (and checked clean) at
// the end of the test even when it fails.
func newLab(t *testing.T, names ...string) (*Lab, []*Host) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("netlab needs root (the product returns ErrNotRoot; TestNotRoot covers that)")
	}
	l, err := New(context.Background(), Options{Dir: t.TempDir(), Log: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	var hs []*Host
	for _, n := range names {
		h, err := l.AddHost(n)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	return l, hs
}

// echoServer listens on h:port and echoes every line back, until the test ends.
func echoServer(t *testing.T, h *Host, port int) {
	t.Helper()
	ln, err := h.Listen("tcp", net.JoinHostPort("0.0.0.0", itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	conns := make(chan net.Conn, 64)
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns <- c
			go func() { _, _ = io.Copy(c, c) }()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		close(conns)
		for c := range conns {
			c.Close()
		}
	})
}

// roundTrip writes a line on c and reads it back.
func roundTrip(c net.Conn, r *bufio.Reader, deadline time.Duration) error {
	_ = c.SetDeadline(time.Now().Add(deadline))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return err
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if line != "ping\n" {
		return errors.New("bad echo " + line)
	}
	return nil
}

// dialEcho dials from `from` to addr and does one round trip.
func dialEcho(from *Host, addr string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c, err := from.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	return roundTrip(c, bufio.NewReader(c), timeout)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded)
}

func TestEchoAcrossHosts(t *testing.T) {
	_, hs := newLab(t, "a", "b")
	a, b := hs[0], hs[1]
	echoServer(t, b, 7000)
	echoServer(t, a, 7000)
	if err := dialEcho(a, b.Addr(7000), 5*time.Second); err != nil {
		t.Fatalf("a -> b: %v", err)
	}
	if err := dialEcho(b, "a:7000", 5*time.Second); err != nil {
		t.Fatalf("b -> a by name: %v", err)
	}
}

func TestCutDropRejectHeal(t *testing.T) {
	l, hs := newLab(t, "a", "b")
	a, b := hs[0], hs[1]
	echoServer(t, b, 7000)

	heal, err := l.Cut(a, b, Drop)
	if err != nil {
		t.Fatal(err)
	}
	err = dialEcho(a, b.Addr(7000), 500*time.Millisecond)
	if !isTimeout(err) {
		t.Fatalf("drop: want a timeout, got %v", err)
	}
	if err := heal(); err != nil {
		t.Fatal(err)
	}
	if err := dialEcho(a, b.Addr(7000), 5*time.Second); err != nil {
		t.Fatalf("after heal: %v", err)
	}

	heal, err = l.Cut(a, b, Reject)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = dialEcho(a, b.Addr(7000), 5*time.Second)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("reject: want connection refused, got %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("reject took %v; a reset should be immediate", d)
	}
	if err := l.HealAll(); err != nil {
		t.Fatal(err)
	}
	if err := dialEcho(a, b.Addr(7000), 5*time.Second); err != nil {
		t.Fatalf("after HealAll: %v", err)
	}
	_ = heal() // healing twice is harmless
}

// AddHosts gives the addresses AddHost one by one would, makes hosts that
// reach each other by address and by name, and leaves no namespace of a
// call that fails.
func TestAddHosts(t *testing.T) {
	l, hs := newLab(t, "a")
	more, err := l.AddHosts("b", "c", "d")
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(hs[0].IP(), ".1")
	for i, h := range append(hs, more...) {
		if want := base + "." + itoa(i+1); h.IP() != want {
			t.Fatalf("%s: ip %s, want %s (the order of the names)", h.Name, h.IP(), want)
		}
	}
	echoServer(t, more[2], 7000)
	if err := dialEcho(hs[0], "d:7000", 5*time.Second); err != nil {
		t.Fatalf("a -> d by name: %v", err)
	}
	if err := dialEcho(more[0], more[2].Addr(7000), 5*time.Second); err != nil {
		t.Fatalf("b -> d: %v", err)
	}
	for _, bad := range [][]string{{"e", "b"}, {"e", "e"}, {"e", "Bad"}} {
		if _, err := l.AddHosts(bad...); err == nil {
			t.Fatalf("AddHosts(%v) succeeded", bad)
		}
	}
	names, err := listNetns()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n == l.Prefix()+"e" {
			t.Fatalf("namespace %s left by a failed AddHosts", n)
		}
	}
	if got := len(l.Hosts()); got != 4 {
		t.Fatalf("%d hosts after the failed calls, want 4", got)
	}
	e, err := l.AddHost("e")
	if err != nil {
		t.Fatal(err)
	}
	if want := base + ".5"; e.IP() != want {
		t.Fatalf("e: ip %s, want %s", e.IP(), want)
	}
}
