package netlab

import (
	"bufio"
	"context"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// openEcho opens a connection from `from` to addr and checks one round trip.
func openEcho(t *testing.T, from *Host, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := from.DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatalf("dial %s from %s: %v", addr, from.Name, err)
	}
	t.Cleanup(func() { c.Close() })
	r := bufio.NewReader(c)
	if err := roundTrip(c, r, 5*time.Second); err != nil {
		t.Fatalf("round trip %s from %s: %v", addr, from.Name, err)
	}
	return c, r
}

func mustHeal(t *testing.T, heal func() error, err error) func() error {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return heal
}

func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}

// One-way for TCP means: a cannot open connections to b, and the ones a
// opened are broken; b's connections to a keep working both ways.
func TestCutOneWay(t *testing.T) {
	l, hs := newLab(t, "a", "b")
	a, b := hs[0], hs[1]
	echoServer(t, a, 7000)
	echoServer(t, b, 7000)
	ba, bar := openEcho(t, b, a.Addr(7000)) // b -> a, opened before the cut
	ab, abr := openEcho(t, a, b.Addr(7000)) // a -> b, opened before the cut

	heal := mustHealFn(t)(l.Cut(a, b, Reject))
	if err := dialEcho(a, b.Addr(7000), 2*time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("a -> b new connection: want refused, got %v", err)
	}
	if err := roundTrip(ab, abr, 2*time.Second); !isReset(err) {
		t.Fatalf("a -> b established connection: want reset, got %v", err)
	}
	if err := dialEcho(b, a.Addr(7000), 2*time.Second); err != nil {
		t.Fatalf("b -> a new connection must work: %v", err)
	}
	if err := roundTrip(ba, bar, 2*time.Second); err != nil {
		t.Fatalf("b -> a established connection must work: %v", err)
	}
	if err := heal(); err != nil {
		t.Fatal(err)
	}
	if err := dialEcho(a, b.Addr(7000), 2*time.Second); err != nil {
		t.Fatalf("after heal: %v", err)
	}
}

func mustHealFn(t *testing.T) func(func() error, error) func() error {
	return func(h func() error, err error) func() error { t.Helper(); return mustHeal(t, h, err) }
}

func TestCutBreaksEstablishedDrop(t *testing.T) {
	l, hs := newLab(t, "a", "b")
	a, b := hs[0], hs[1]
	echoServer(t, b, 7000)
	c, r := openEcho(t, a, b.Addr(7000))
	heal := mustHealFn(t)(l.CutBoth(a, b, Drop))
	if err := roundTrip(c, r, 300*time.Millisecond); !isTimeout(err) {
		t.Fatalf("established connection under a drop cut: want a timeout, got %v", err)
	}
	if err := dialEcho(b, a.Addr(7000), 300*time.Millisecond); !isTimeout(err) && !isReset(err) {
		t.Fatalf("b -> a under a symmetric cut: want failure, got %v", err)
	}
	if err := heal(); err != nil {
		t.Fatal(err)
	}
	// The blackholed bytes are retransmitted: the stream resumes intact.
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	line, err := r.ReadString('\n')
	if err != nil || line != "ping\n" {
		t.Fatalf("after heal the held echo should arrive: %q %v", line, err)
	}
}

func TestCutPacketsStallsBothDirections(t *testing.T) {
	l, hs := newLab(t, "a", "b")
	a, b := hs[0], hs[1]
	echoServer(t, a, 7000)
	mustHealFn(t)(l.CutPackets(a, b, Drop))
	// b's SYN reaches a, but a's SYN-ACK never reaches b.
	if err := dialEcho(b, a.Addr(7000), 300*time.Millisecond); !isTimeout(err) {
		t.Fatalf("b -> a with a's packets to b dropped: want a timeout, got %v", err)
	}
}

func TestCutPortAndIsolate(t *testing.T) {
	l, hs := newLab(t, "a", "b", "c")
	a, b, c := hs[0], hs[1], hs[2]
	for _, h := range hs {
		echoServer(t, h, 7000)
		echoServer(t, h, 7001)
	}
	heal := mustHealFn(t)(l.CutPort(a, b, 7000, Reject))
	if err := dialEcho(a, b.Addr(7000), 2*time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("a -> b:7000 cut: got %v", err)
	}
	if err := dialEcho(a, b.Addr(7001), 2*time.Second); err != nil {
		t.Fatalf("a -> b:7001 must work: %v", err)
	}
	if err := dialEcho(c, b.Addr(7000), 2*time.Second); err != nil {
		t.Fatalf("c -> b:7000 must work: %v", err)
	}
	if err := heal(); err != nil {
		t.Fatal(err)
	}

	l.observers["c"] = true // c plays the observer
	mustHealFn(t)(l.Isolate([]*Host{a}, Reject))
	for _, p := range [][2]*Host{{a, b}, {b, a}} {
		if err := dialEcho(p[0], p[1].Addr(7000), 2*time.Second); !isReset(err) {
			t.Fatalf("%s -> %s across the isolation: got %v", p[0].Name, p[1].Name, err)
		}
	}
	for _, p := range [][2]*Host{{c, a}, {a, c}, {b, c}} {
		if err := dialEcho(p[0], p[1].Addr(7000), 2*time.Second); err != nil {
			t.Fatalf("%s -> %s (observer) must work: %v", p[0].Name, p[1].Name, err)
		}
	}
	if err := l.HealAll(); err != nil {
		t.Fatal(err)
	}
	if err := dialEcho(a, b.Addr(7000), 2*time.Second); err != nil {
		t.Fatalf("after HealAll: %v", err)
	}
}

// TestCutMany: several pairs cut in one load, one way and both ways; pairs
// not named keep working; one heal restores every pair.
func TestCutMany(t *testing.T) {
	l, hs := newLab(t, "a", "b", "c")
	a, b, c := hs[0], hs[1], hs[2]
	for _, h := range hs {
		echoServer(t, h, 7000)
	}
	heal := mustHealFn(t)(l.CutMany([][2]*Host{{a, c}, {b, c}}, Reject, false))
	for _, p := range [][2]*Host{{a, c}, {b, c}} {
		if err := dialEcho(p[0], p[1].Addr(7000), 2*time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("%s -> %s cut one way: want refused, got %v", p[0].Name, p[1].Name, err)
		}
	}
	for _, p := range [][2]*Host{{c, a}, {c, b}, {a, b}, {b, a}} {
		if err := dialEcho(p[0], p[1].Addr(7000), 2*time.Second); err != nil {
			t.Fatalf("%s -> %s must work: %v", p[0].Name, p[1].Name, err)
		}
	}
	if err := heal(); err != nil {
		t.Fatal(err)
	}
	heal = mustHealFn(t)(l.CutMany([][2]*Host{{a, b}, {a, c}}, Reject, true))
	for _, p := range [][2]*Host{{a, b}, {b, a}, {a, c}, {c, a}} {
		if err := dialEcho(p[0], p[1].Addr(7000), 2*time.Second); !isReset(err) {
			t.Fatalf("%s -> %s cut both ways: got %v", p[0].Name, p[1].Name, err)
		}
	}
	if err := dialEcho(b, c.Addr(7000), 2*time.Second); err != nil {
		t.Fatalf("b -> c must work: %v", err)
	}
	if err := heal(); err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]*Host{{a, b}, {b, a}, {a, c}, {c, a}, {b, c}} {
		if err := dialEcho(p[0], p[1].Addr(7000), 2*time.Second); err != nil {
			t.Fatalf("%s -> %s after heal: %v", p[0].Name, p[1].Name, err)
		}
	}
}
