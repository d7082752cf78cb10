package client

import (
	"context"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// liarEpoch is the config epoch the lying sentinel claims for the old
// master: far above anything the real sentinels reach in a test.
const liarEpoch = 1000

// TestLyingSentinelNewerEpochForOldMaster: one sentinel of four (a fake,
// the others real redis-sentinels) claims a newer config epoch for the
// old master while the real sentinels fail over with SENTINEL FAILOVER.
// The old master is fenced so that Sentinel never demotes it: it stays a
// writable role:master, as a partitioned old master does, so ROLE
// verification alone accepts it. The epoch ranking put the liar's answer
// first, and the client went back to the old master at its next
// resolution (reconciliation, verification) once PromotionGrace was over
// (here 1 ms: a partitioned old master stays master longer than any
// grace). No write issued more than 1 s after the first sentinel named
// the new master may be acknowledged by the old one.
func TestLyingSentinelNewerEpochForOldMaster(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// fromStart: the liar claims liarEpoch for the old master from the
		// start (it agrees on the address until the failover); otherwise
		// it names the old master with the real epoch until the sentinels
		// switched, then claims liarEpoch.
		fromStart bool
		// liarSecond puts the liar second in the list (first otherwise).
		liarSecond bool
		noPubSub   bool
	}{
		{"lies from the start, first, events", true, false, false},
		{"lies after the switch, first, events", false, false, false},
		{"lies after the switch, second, no Pub/Sub", false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := testutil.StartSentinelCluster(t, "mymaster", 1, 3, 2, 1000, 3000)
			oldAddr := c.Top.Master.Addr()
			fenceOldMaster(t, oldAddr)
			epoch := int64(0)
			if tc.fromStart {
				epoch = liarEpoch
			}
			liar := startFakeSentinel(t, oldAddr, epoch)
			sentinels := append([]string{liar.addr()}, c.SentinelAddrs()...)
			if tc.liarSecond {
				sentinels[0], sentinels[1] = sentinels[1], sentinels[0]
			}
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: sentinels, DisablePubSub: tc.noPubSub,
				PromotionGrace: time.Millisecond, ReconcileInterval: 300 * time.Millisecond})
			w := startAckWriter(t, rdb, "lie:")
			testutil.WaitFor(t, 5*time.Second, "writes before the failover", func() bool { return w.count() > 50 })
			sw := watchSwitch(t, c.SentinelAddrs(), c.Name, oldAddr)
			sc := redis.NewClient(&redis.Options{Addr: c.Sentinels[2].Addr(), MaxRetries: -1, Protocol: 2})
			defer sc.Close()
			if err := sc.Do(context.Background(), "SENTINEL", "FAILOVER", c.Name).Err(); err != nil {
				t.Fatalf("SENTINEL FAILOVER: %v", err)
			}
			select {
			case <-sw.found:
			case <-time.After(30 * time.Second):
				t.Fatal("no sentinel named a new master within 30 s")
			}
			sw.mu.Lock()
			event, newAddr := sw.at, sw.addr
			sw.mu.Unlock()
			liar.set(oldAddr, liarEpoch)
			// Long enough for several reconciliations after the switch.
			testutil.WaitFor(t, 15*time.Second, "writes issued 3 s after the switch", func() bool {
				return w.ackedAfter(event.Add(3 * time.Second))
			})
			w.halt()
			m := w.measure(t, event, oldAddr, newAddr)
			st, _ := StatsOf(rdb)
			t.Logf("switch → first write acked by the new master %v; writes issued after the switch acked by the old master %d (last %v); on the new master %d; failed %d; master changes %d; current %s (new %s)",
				m.toNew, m.oldAfter, lastOf(m.oldLate), m.newChecked, w.failed, st.MasterChanges, st.CurrentAddr, newAddr)
			if m.newChecked == 0 {
				t.Fatal("no write acknowledged by the new master after the switch")
			}
			for _, late := range m.oldLate {
				if late > verifyBound {
					t.Fatalf("a write issued %v after the switch was acknowledged by the old master %s (the liar names it with epoch %d)", late, oldAddr, liarEpoch)
				}
			}
		})
	}
}
