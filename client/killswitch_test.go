package client

import (
	"github.com/redis/go-redis/v9"
	"net"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// firstAckAfter returns the first acknowledgement after t (zero if none).
func (w *ackWriter) firstAckAfter(t time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	var first time.Time
	for _, at := range w.acked {
		if at.After(t) && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	return first
}

// killSwitchBound is the longest accepted delay between the moment a
// sentinel names the new master (and, with pub/sub, announces it) and the
// first write it acknowledges. The work itself is one sentinel round trip,
// one ROLE probe and one dial on loopback (< 2 ms); the rest is slack for
// -race and a 2-core machine shared by several test runs. Before the fix the
// writes waited for the end of a backoff sleep or of the resolution failure
// gap (up to 250 ms each, plus go-redis's dial retry pause of 100 ms).
const killSwitchBound = 60 * time.Millisecond

// TestKillToFirstWrite: the master is SIGKILLed while the client writes one
// SET per ms; while the sentinels still name the dead master the writes wait
// on the resolver; the moment a sentinel names the promoted replica (with a
// higher config epoch) the next write must be acknowledged by it within a
// few ms, whether the client learns it from +switch-master / +promoted-slave
// or from its own polling of the sentinels, and however long the outage
// lasted (backoffs at their maximum). The second sentinel keeps naming the
// dead master with the old epoch (a lagging sentinel).
func TestKillToFirstWrite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		failures uint64 // failed resolutions before the switch (0: 25 failed writes, more than PoolSize)
		channel  string // hint published by the first sentinel ("": none)
		opts     FailoverOptions
		bound    time.Duration
		timeout  time.Duration // of each write (0: 5 s)
	}{
		{"+switch-master after a long outage", 8, chanSwitchMaster, FailoverOptions{}, killSwitchBound, 0},
		{"+switch-master right after the kill", 1, chanSwitchMaster, FailoverOptions{}, killSwitchBound, 0},
		{"+promoted-slave after a long outage", 8, chanPromotedSlave, FailoverOptions{}, killSwitchBound, 0},
		{"no pubsub, the sentinel answers a newer epoch", 8, "", FailoverOptions{DisablePubSub: true}, killSwitchBound, 0},
		// Writes that give up after 50 ms fail their dials: after
		// PoolSize of them go-redis's pool fails every dial at once
		// until its background probe (our Dialer, waiting on the
		// resolver) succeeds.
		{"+switch-master, writes with a 50 ms timeout", 0, chanSwitchMaster, FailoverOptions{}, killSwitchBound, 50 * time.Millisecond},
		{"no pubsub, writes with a 50 ms timeout", 0, "", FailoverOptions{DisablePubSub: true}, killSwitchBound, 50 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			top := testutil.StartTopology(t, 1)
			oldAddr, newAddr := top.Master.Addr(), top.Replicas[0].Addr()
			fs := startFakeSentinel(t, oldAddr, 1)
			lag := startFakeSentinel(t, oldAddr, 1)
			o := tc.opts
			o.SentinelAddrs = []string{fs.addr(), lag.addr()}
			o.ReconcileInterval = -1
			rdb := newTestClient(t, o)
			timeout := tc.timeout
			if timeout == 0 {
				timeout = 5 * time.Second
			}
			w := startAckWriterTimeout(t, rdb, "k:", timeout)
			testutil.WaitFor(t, 5*time.Second, "writes and the subscriptions", func() bool {
				return w.count() > 20 && (o.DisablePubSub || (fs.subCount() > 0 && lag.subCount() > 0))
			})
			base := statsOf(t, rdb).ResolutionErrors
			top.Master.Kill()
			testutil.WaitFor(t, 10*time.Second, "failures while the master is dead", func() bool {
				if tc.failures == 0 {
					w.mu.Lock()
					defer w.mu.Unlock()
					return w.failed >= 25
				}
				return statsOf(t, rdb).ResolutionErrors >= base+tc.failures
			})
			promoteOnly(t, newAddr)
			fs.set(newAddr, 2)
			event := time.Now()
			switch tc.channel {
			case chanSwitchMaster:
				fs.publish(chanSwitchMaster, switchPayload(oldAddr, newAddr))
			case chanPromotedSlave:
				h, p := hostPort(t, newAddr)
				oh, op := hostPort(t, oldAddr)
				fs.publish(chanPromotedSlave, "slave "+newAddr+" "+h+" "+p+" @ mymaster "+oh+" "+op)
			}
			testutil.WaitFor(t, 10*time.Second, "a write acknowledged after the switch", func() bool {
				return !w.firstAckAfter(event).IsZero()
			})
			took := w.firstAckAfter(event).Sub(event)
			w.halt()
			t.Logf("sentinel names the new master → first acknowledged write: %v (failed writes %d)", took, w.failed)
			if took > tc.bound {
				t.Errorf("first write acknowledged %v after the switch, want ≤ %v", took, tc.bound)
			}
			if got := statsOf(t, rdb).CurrentAddr; got != newAddr {
				t.Errorf("client is on %s, want %s", got, newAddr)
			}
		})
	}
}

// hostPort splits addr for an event payload.
func hostPort(t *testing.T, addr string) (string, string) {
	t.Helper()
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("split %q: %v", addr, err)
	}
	return h, p
}

// statsOf returns the client's stats (a test client always has them).
func statsOf(t *testing.T, rdb *redis.Client) Stats {
	t.Helper()
	s, ok := StatsOf(rdb)
	if !ok {
		t.Fatal("StatsOf: not one of our clients")
	}
	return s
}
