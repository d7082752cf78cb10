package client

import (
	"context"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// switchPayload is the +switch-master message for mymaster from old to new.
func switchPayload(old, new string) string {
	oh, op, _ := net.SplitHostPort(old)
	nh, np, _ := net.SplitHostPort(new)
	return "mymaster " + oh + " " + op + " " + nh + " " + np
}

// promoteOnly makes the replica a master without touching the old master,
// which keeps acknowledging writes (the split-brain window of a failover).
func promoteOnly(t *testing.T, replica string) {
	t.Helper()
	r := redis.NewClient(&redis.Options{Addr: replica, MaxRetries: -1})
	defer r.Close()
	if err := r.SlaveOf(context.Background(), "NO", "ONE").Err(); err != nil {
		t.Fatalf("REPLICAOF NO ONE on %s: %v", replica, err)
	}
}

// TestHintFencesOldMaster: once a sentinel the client is subscribed to
// publishes +switch-master away from the current master, no command issued
// afterwards may reach the old master, whatever slows down the resolution
// that follows: a slow second sentinel (the 2-answer epoch ranking), or a
// resolution already in flight with the answers from before the switch.
func TestHintFencesOldMaster(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// setup returns the sentinel list and a function run just before
		// the switch (with the fake sentinel that publishes).
		setup func(t *testing.T, fs *fakeSentinel) ([]string, func())
	}{
		{"slow second sentinel", func(t *testing.T, fs *fakeSentinel) ([]string, func()) {
			return []string{fs.addr(), blackHole(t)}, func() {}
		}},
		{"resolution in flight with the old answer", func(t *testing.T, fs *fakeSentinel) ([]string, func()) {
			return []string{fs.addr()}, func() {
				// A hint about another master starts a resolution that
				// the (slow) sentinel answers with the old address.
				fs.setDelay(150 * time.Millisecond)
				fs.publish("+switch-master", switchPayload("127.0.0.1:1", "127.0.0.1:2"))
				testutil.WaitFor(t, 2*time.Second, "the first resolution asked", func() bool { return fs.queryCount() >= 2 })
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			top := testutil.StartTopology(t, 1)
			oldAddr, newAddr := top.Master.Addr(), top.Replicas[0].Addr()
			fs := startFakeSentinel(t, oldAddr, 1)
			sentinels, before := tc.setup(t, fs)
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: sentinels, ReconcileInterval: -1,
				ResolveCacheTTL: time.Hour, SentinelTimeout: 300 * time.Millisecond})
			w := startAckWriter(t, rdb, "f:")
			testutil.WaitFor(t, 5*time.Second, "writes and the subscription", func() bool {
				return w.count() > 20 && fs.subscribedBy(rdb)
			})
			before()
			promoteOnly(t, newAddr)
			fs.set(newAddr, 2)
			event := time.Now()
			fs.publish("+switch-master", switchPayload(oldAddr, newAddr))
			testutil.WaitFor(t, 10*time.Second, "a write acknowledged after the switch", func() bool {
				return w.ackedAfter(event.Add(100 * time.Millisecond))
			})
			w.halt()
			m := w.measure(t, event, oldAddr, newAddr)
			t.Logf("event → first write on the new master %v; writes issued after the event acked by the old master %d %v", m.toNew, m.oldAfter, firstFew(m.oldLate))
			for _, late := range m.oldLate {
				if late > switchSlack {
					t.Fatalf("a write issued %v after +switch-master was acknowledged by the old master", late)
				}
			}
			if m.newChecked == 0 {
				t.Fatal("no write reached the new master")
			}
		})
	}
}

// TestSubscribesToDistinctSentinels: the client subscribes to
// PubSubSentinels different sentinels, including sentinels learnt from
// SENTINEL SENTINELS when fewer seeds are given, so that the failover
// leader's early events are not missed.
func TestSubscribesToDistinctSentinels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		seeds  int // how many of the three sentinels are given as seeds
		subs   int // PubSubSentinels
		expect int // subscribed sentinels
	}{
		{"one seed, two learnt", 1, 0, 3},
		{"three seeds, two subscriptions", 3, 2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := testutil.StartRedis(t)
			fs, addrs := startFakeSentinels(t, m.Addr(), 3)
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: addrs[:tc.seeds], PubSubSentinels: tc.subs,
				ReconcileInterval: -1})
			if err := rdb.Ping(context.Background()).Err(); err != nil {
				t.Fatalf("Ping: %v", err)
			}
			count := func() (subscribed, max int) {
				for _, f := range fs {
					n := f.subCount()
					if n > 0 {
						subscribed++
					}
					if n > max {
						max = n
					}
				}
				return subscribed, max
			}
			// The fake sentinels refuse HELLO 3 but still run the SUBSCRIBE
			// pipelined behind it: the client's RESP3 attempt counts as a
			// subscription until the fake reads the close that follows the
			// refusal and the RESP2 one replaces it. Wait for that to settle.
			testutil.WaitFor(t, 5*time.Second, "one subscription on each of the expected sentinels", func() bool {
				n, most := count()
				return n >= tc.expect && most == 1
			})
			n, most := count()
			if n != tc.expect || most != 1 {
				t.Fatalf("%d sentinels subscribed (at most %d subscriptions on one), want %d with one each", n, most, tc.expect)
			}
		})
	}
}

// busyScript keeps Redis busy for 300 ms (a slow command in flight).
const busyScript = `local s = redis.call('TIME')
local t0 = s[1] * 1000000 + s[2]
repeat local n = redis.call('TIME') until n[1] * 1000000 + n[2] - t0 > 300000
return 1`

// writeSignalConn signals once a buffer containing marker was written.
type writeSignalConn struct {
	net.Conn
	marker string
	sent   chan struct{}
}

// SyscallConn keeps the TCP socket visible to health checks.
func (c *writeSignalConn) SyscallConn() (syscall.RawConn, error) {
	return c.Conn.(syscall.Conn).SyscallConn()
}

func (c *writeSignalConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if strings.Contains(string(b), c.marker) {
		select {
		case c.sent <- struct{}{}:
		default:
		}
	}
	return n, err
}

// TestFenceWithoutMove: a +switch-master naming the current master as the
// old one while the sentinels still name it (a spurious or reverted event)
// costs a pool flush, not a failed command, and the client stays. The only
// connection is busy (a 300 ms script) when the event arrives, so it cannot
// be closed then: it must be discarded before its next use, not fail it.
func TestFenceWithoutMove(t *testing.T) {
	t.Parallel()
	m := testutil.StartRedis(t)
	fs := startFakeSentinel(t, m.Addr(), 1)
	sent := make(chan struct{}, 1)
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &writeSignalConn{Conn: c, marker: "redis.call('TIME')", sent: sent}, nil
	}
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, ReconcileInterval: -1,
		ResolveCacheTTL: time.Hour, MaxRetries: -1, PoolSize: 1, Dialer: dial})
	ctx := context.Background()
	if err := rdb.Set(ctx, "k", "before", 0).Err(); err != nil {
		t.Fatalf("Set: %v", err)
	}
	testutil.WaitFor(t, 5*time.Second, "the subscription", func() bool { return fs.subscribedBy(rdb) })
	busy := make(chan error, 1)
	go func() { busy <- rdb.Eval(ctx, busyScript, nil).Err() }()
	select {
	case <-sent:
	case <-time.After(5 * time.Second):
		t.Fatal("the script was not sent")
	}
	fs.publish("+switch-master", switchPayload(m.Addr(), "127.0.0.1:1"))
	testutil.WaitFor(t, 5*time.Second, "the fence", func() bool {
		st, _ := StatsOf(rdb)
		return st.Fences == 1
	})
	if err := <-busy; err != nil {
		t.Fatalf("script in flight during the fence: %v (its reply must still be read)", err)
	}
	if err := rdb.Set(ctx, "k", "after", 0).Err(); err != nil {
		t.Fatalf("Set after the fence, no retries allowed: %v", err)
	}
	st, _ := StatsOf(rdb)
	if st.MasterChanges != 0 || st.CurrentAddr != m.Addr() || st.Dials != 2 {
		t.Fatalf("MasterChanges=%d CurrentAddr=%s Dials=%d, want 0, %s, 2 (one reconnection)", st.MasterChanges, st.CurrentAddr, st.Dials, m.Addr())
	}
}

// TestOnEventFence: which events fence the current master (table).
func TestOnEventFence(t *testing.T) {
	const cur = "10.0.0.1:6379"
	tests := []struct {
		name    string
		events  [][2]string // channel, payload
		fences  uint64
		hints   uint64
		gen     uint64
		replica bool
	}{
		{"switch-master away from the current master", [][2]string{{"+switch-master", "mymaster 10.0.0.1 6379 10.0.0.2 6379"}}, 1, 1, 2, false},
		{"switch-master of another transition", [][2]string{{"+switch-master", "mymaster 10.0.0.3 6379 10.0.0.1 6379"}}, 0, 1, 1, false},
		{"promoted-slave of the current master", [][2]string{{"+promoted-slave", "slave 10.0.0.2:6379 10.0.0.2 6379 @ mymaster 10.0.0.1 6379"}}, 1, 1, 2, false},
		{"another master name", [][2]string{{"+switch-master", "other 10.0.0.1 6379 10.0.0.2 6379"}}, 0, 0, 1, false},
		{"short payload: hint only", [][2]string{{"+switch-master", "mymaster 10.0.0.1"}}, 0, 1, 1, false},
		{"garbage", [][2]string{{"+promoted-slave", ""}, {"+switch-master", ""}}, 0, 0, 1, false},
		{"second event while fenced", [][2]string{
			{"+promoted-slave", "slave 10.0.0.2:6379 10.0.0.2 6379 @ mymaster 10.0.0.1 6379"},
			{"+switch-master", "mymaster 10.0.0.1 6379 10.0.0.2 6379"}}, 1, 2, 2, false},
		{"replica client never fences", [][2]string{{"+switch-master", "mymaster 10.0.0.1 6379 10.0.0.2 6379"}}, 0, 1, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := roleMaster
			if tc.replica {
				want = roleSlave
			}
			o := &FailoverOptions{MasterName: "mymaster"}
			r := newResolver(o.withDefaults(), want)
			defer r.shutdown()
			r.addr, r.gen = cur, 1
			r.genA.Store(1)
			for _, e := range tc.events {
				r.onEvent(e[0], e[1], "127.0.0.1:1")
			}
			st := r.snapshot()
			if st.Fences != tc.fences || st.PubSubHints != tc.hints || st.Generation != tc.gen {
				t.Fatalf("fences %d hints %d generation %d, want %d %d %d", st.Fences, st.PubSubHints, st.Generation, tc.fences, tc.hints, tc.gen)
			}
		})
	}
}
