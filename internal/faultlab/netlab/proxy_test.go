package netlab

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"
)

// minRTT is the fastest of n echo round trips on c.
func minRTT(t *testing.T, c net.Conn, r *bufio.Reader, n int) time.Duration {
	t.Helper()
	best := time.Hour
	for range n {
		start := time.Now()
		if err := roundTrip(c, r, 10*time.Second); err != nil {
			t.Fatalf("round trip: %v", err)
		}
		best = min(best, time.Since(start))
	}
	return best
}

func TestDelay(t *testing.T) {
	l, hs := newLab(t, "a", "b", "c")
	a, b, c := hs[0], hs[1], hs[2]
	echoServer(t, b, 7000)
	old, oldR := openEcho(t, a, b.Addr(7000))
	const delay = 150 * time.Millisecond
	heal := mustHealFn(t)(l.Delay(a, b, 7000, delay, 20*time.Millisecond))

	// A connection that predates the delay is reset so it reconnects
	// through the proxy.
	if err := roundTrip(old, oldR, 5*time.Second); !isReset(err) {
		t.Fatalf("pre-existing connection: want a reset, got %v", err)
	}
	conn, r := openEcho(t, a, b.Addr(7000))
	if rtt := minRTT(t, conn, r, 5); rtt < delay-20*time.Millisecond {
		t.Fatalf("delayed round trip %v, want >= %v", rtt, delay-20*time.Millisecond)
	}
	// Only a -> b:7000 is delayed.
	other, or := openEcho(t, c, b.Addr(7000))
	if rtt := minRTT(t, other, or, 5); rtt >= delay-20*time.Millisecond {
		t.Fatalf("c -> b round trip %v: the delay leaked to another source", rtt)
	}
	if err := heal(); err != nil {
		t.Fatal(err)
	}
	// Healing closes the proxied connection; new ones are direct again.
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.ReadByte(); err == nil {
		t.Fatal("proxied connection still open after heal")
	}
	direct, dr := openEcho(t, a, b.Addr(7000))
	if rtt := minRTT(t, direct, dr, 5); rtt >= delay-20*time.Millisecond {
		t.Fatalf("round trip after heal %v: still delayed", rtt)
	}
}

func TestBandwidth(t *testing.T) {
	l, hs := newLab(t, "a", "b")
	a, b := hs[0], hs[1]
	echoServer(t, b, 7000)
	const rate = 100 << 10 // bytes per second
	mustHealFn(t)(l.Bandwidth(a, b, 7000, rate))
	conn, r := openEcho(t, a, b.Addr(7000))
	const size = 100 << 10
	start := time.Now()
	go func() { _, _ = conn.Write(make([]byte, size)) }()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.CopyN(io.Discard, r, size); err != nil {
		t.Fatal(err)
	}
	// 100 KiB at 100 KiB/s takes about a second; allow the first chunk free.
	if d := time.Since(start); d < 800*time.Millisecond {
		t.Fatalf("%d bytes echoed in %v through a %d B/s limit", size, d, rate)
	}
}
