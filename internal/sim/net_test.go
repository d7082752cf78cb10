package sim

import (
	"testing"

	"github.com/gosentinel/gosentinel/internal/core"
)

func TestTransmitKeepsOrderAndHoldsAcrossPartition(t *testing.T) {
	w := testWorld(t)
	c := testConn(w, 0)
	var got []int
	send := func(i int) { w.transmit(c, up, func() { got = append(got, i) }) }
	for i := 0; i < 20; i++ {
		send(i)
	}
	w.blocked[c.owner.node][c.target] = true
	send(20)
	send(21)
	drain := func() {
		for {
			fn, ok := w.sch.next(1 << 40)
			if !ok {
				return
			}
			fn()
		}
	}
	drain()
	if len(got) != 20 {
		t.Fatalf("delivered %d messages before healing, want 20", len(got))
	}
	w.blocked[c.owner.node][c.target] = false
	send(22) // queued behind the held ones
	w.releaseHeld()
	drain()
	for i, v := range got {
		if v != i {
			t.Fatalf("delivery order %v", got)
		}
	}
	if len(got) != 23 {
		t.Fatalf("delivered %d, want 23", len(got))
	}
	// Nothing is delivered on a closed connection.
	send(23)
	w.dropConn(c)
	drain()
	if len(got) != 23 {
		t.Fatal("message delivered after the connection closed")
	}
}

func TestLookupFindsInstancesAndSentinels(t *testing.T) {
	w := testWorld(t)
	for _, tc := range []struct {
		ip   string
		port int
		want int
	}{
		{"10.0.0.1", 6379, 0},
		{"10.0.0.3", 6379, 2},
		{"10.0.1.2", 26379, len(w.inst) + 1},
		{"10.0.0.1", 6380, -1},
		{"10.9.9.9", 6379, -1},
	} {
		if got := w.lookup(core.Addr{Host: tc.ip, IP: tc.ip, Port: tc.port}); got != tc.want {
			t.Errorf("lookup %s:%d = %d, want %d", tc.ip, tc.port, got, tc.want)
		}
	}
	// Behind a NAT (announce.go) a sentinel is found only at the address
	// it announces.
	o := NewOptions(1)
	o.SentinelAnnounce = true
	w = newWorld(o, false)
	for _, tc := range []struct {
		ip   string
		port int
		want int
	}{
		{"10.0.9.2", 30002, len(w.inst) + 1},
		{"10.0.1.2", 26379, -1},
		{"10.0.1.2", 30002, -1},
		{"10.0.9.2", 26379, -1},
	} {
		if got := w.lookup(core.Addr{Host: tc.ip, IP: tc.ip, Port: tc.port}); got != tc.want {
			t.Errorf("announce: lookup %s:%d = %d, want %d", tc.ip, tc.port, got, tc.want)
		}
	}
}

// TestCrashWithADialToNowhere: a sentinel that crashes while a dial to an
// address where nothing is (an old IP after a name moved, a name that does
// not resolve) has not failed yet resets that connection too — without
// touching the bookkeeping of a node that does not exist (the 10 000-seed
// run of round three panicked there before it was guarded).
func TestCrashWithADialToNowhere(t *testing.T) {
	w := testWorld(t)
	s := w.sent[0]
	w.startSentinel(s)
	w.dial(s, core.Connect{Link: 1, Conn: 99, Type: core.ConnCmd, Addr: core.Addr{Host: "gone.sim", Port: 6379}})
	c := s.conns[99]
	if c == nil || c.target != -1 {
		t.Fatalf("dial to an unresolvable name: conn %+v, want target -1", c)
	}
	w.crashSentinel(s) // resets every connection of s
	if !c.closed {
		t.Fatal("the pending dial survived the crash")
	}
	w.tracef("%s", w.nodeName(c.target))
}
