package client

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
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
			event, newAddr := plannedFailover(t, c, oldAddr, nil)
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

// TestScreenAnswers: which sentinel answers the ranking may use (table).
// need is 2 (SentinelQuorum 2, several sentinels) unless said otherwise.
func TestScreenAnswers(t *testing.T) {
	now := time.Now()
	left := []leftMaster{{addr: "old", epoch: 3, at: now.Add(-time.Second)}}
	ans := func(addr string, epoch int64) *masterAnswer { return &masterAnswer{addr: addr, epoch: epoch} }
	tests := []struct {
		name    string
		view    trustView
		answers []*masterAnswer
		want    string // kept answers as addr@epoch
		trusts  []trust
	}{
		{"one sentinel names the left master with a newer epoch", trustView{cur: "new", epoch: 3, left: left, need: 2, hold: 10 * time.Second, now: now},
			[]*masterAnswer{ans("old", 1000), ans("new", 3)}, "[new@3]", []trust{trustDropped, trustOK}},
		{"two sentinels name it with a newer epoch (failback)", trustView{cur: "new", epoch: 3, left: left, need: 2, hold: 10 * time.Second, now: now},
			[]*masterAnswer{ans("old", 5), ans("old", 5)}, "[old@5 old@5]", []trust{trustOK, trustOK}},
		{"a liar and a lagging sentinel within the hold", trustView{cur: "new", epoch: 3, left: left, need: 2, hold: 10 * time.Second, now: now},
			[]*masterAnswer{ans("old", 1000), ans("old", 3)}, "[]", []trust{trustDropped, trustDropped}},
		{"two lagging sentinels after the hold", trustView{cur: "new", epoch: 3, left: left, need: 2, hold: 500 * time.Millisecond, now: now},
			[]*masterAnswer{ans("old", 3), ans("old", 3)}, "[old@3 old@3]", []trust{trustOK, trustOK}},
		{"one sentinel after the hold, one confirms the current master", trustView{cur: "new", epoch: 3, left: left, need: 2, hold: 500 * time.Millisecond, now: now},
			[]*masterAnswer{ans("old", 1000), ans("new", 4)}, "[new@3]", []trust{trustDropped, trustCapped}},
		{"the only sentinel (need 1)", trustView{cur: "new", epoch: 3, left: left, need: 1, hold: 10 * time.Second, now: now},
			[]*masterAnswer{ans("old", 4)}, "[old@4]", []trust{trustOK}},
		{"a newer epoch for the current master is capped", trustView{cur: "old", epoch: 0, need: 2, hold: 10 * time.Second, now: now},
			[]*masterAnswer{ans("old", 1000), ans("new", 1)}, "[old@0 new@1]", []trust{trustCapped, trustOK}},
		{"two sentinels claim it: not capped", trustView{cur: "old", epoch: 0, need: 2, hold: 10 * time.Second, now: now},
			[]*masterAnswer{ans("old", 2), ans("old", 2)}, "[old@2 old@2]", []trust{trustOK, trustOK}},
		{"the known epoch for the current master", trustView{cur: "old", epoch: 1, need: 2, hold: 10 * time.Second, now: now},
			[]*masterAnswer{ans("old", 1), ans("new", 2)}, "[old@1 new@2]", []trust{trustOK, trustOK}},
		{"no current master yet", trustView{epoch: -1, need: 2, hold: 10 * time.Second, now: now},
			[]*masterAnswer{ans("a", 1000), ans("a", 0)}, "[a@1000 a@0]", []trust{trustOK, trustOK}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, st := tc.view.screen(tc.answers)
			got := make([]string, len(out))
			for i, a := range out {
				got[i] = a.addr + "@" + strconv.FormatInt(a.epoch, 10)
			}
			if fmt.Sprint(got) != tc.want || !slices.Equal(st, tc.trusts) {
				t.Fatalf("screen = %v %v, want %s %v", got, st, tc.want, tc.trusts)
			}
		})
	}
	// The epoch a round backs an address with: one sentinel cannot raise it.
	for _, tc := range []struct {
		answers []*masterAnswer
		need    int
		want    int64
	}{
		{[]*masterAnswer{ans("a", 1000), ans("a", 0)}, 2, 0},
		{[]*masterAnswer{ans("a", 4)}, 2, 4},
		{[]*masterAnswer{ans("a", 4), ans("a", 5), ans("a", 5)}, 2, 5},
		{[]*masterAnswer{ans("a", 1000), ans("b", 0)}, 1, 1000},
		{[]*masterAnswer{ans("b", 0)}, 2, 0},
	} {
		if got := answerEpoch(tc.answers, tc.answers[0].addr, tc.need); got != tc.want {
			t.Errorf("answerEpoch(%v, need %d) = %d, want %d", tc.answers, tc.need, got, tc.want)
		}
	}
}
