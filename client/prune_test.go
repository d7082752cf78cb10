package client

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

func TestPrune(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name       string
		pruneAfter time.Duration
		seen       map[string]time.Duration // age of the last answer/listing; seeds are "s*"
		want       []string
	}{
		{"silent seed kept", time.Minute, map[string]time.Duration{"s1": time.Hour, "d1": time.Second}, []string{"s1", "d1"}},
		{"recent learnt kept", time.Minute, map[string]time.Duration{"s1": 0, "d1": 59 * time.Second}, []string{"s1", "d1"}},
		{"silent learnt pruned", time.Minute, map[string]time.Duration{"s1": 0, "d1": 61 * time.Second, "d2": 0}, []string{"s1", "d2"}},
		{"disabled", -1, map[string]time.Duration{"s1": 0, "d1": time.Hour}, []string{"s1", "d1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newResolver(FailoverOptions{SentinelAddrs: []string{"s1"}, SentinelPruneAfter: tc.pruneAfter}, roleMaster)
			defer r.shutdown()
			for _, s := range []string{"s1", "d1", "d2"} {
				age, ok := tc.seen[s]
				if !ok {
					continue
				}
				r.sentinels.add([]string{s})
				if r.meta[s] == nil {
					r.meta[s] = &sentinelMeta{}
				}
				r.meta[s].seen = now.Add(-age)
			}
			r.prune(now)
			if fmt.Sprint(r.sentinels) != fmt.Sprint(tc.want) {
				t.Fatalf("sentinels after prune = %v, want %v", r.sentinels, tc.want)
			}
		})
	}
}

// TestPruneRemovedSentinel: a learnt sentinel that stops answering and that
// no answering sentinel lists any more (SENTINEL RESET after its removal)
// leaves the list; a silent seed stays.
func TestPruneRemovedSentinel(t *testing.T) {
	t.Parallel()
	m := testutil.StartRedis(t)
	fs, addrs := startFakeSentinels(t, m.Addr(), 3)
	deadSeed := closedAddr(t)
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{addrs[0], deadSeed}, DisablePubSub: true,
		ReconcileInterval: 50 * time.Millisecond, SentinelPruneAfter: 300 * time.Millisecond})
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	has := func(s string) bool {
		st, _ := StatsOf(rdb)
		return slices.Contains(st.Sentinels, s)
	}
	testutil.WaitFor(t, 5*time.Second, "learnt sentinels", func() bool { return has(addrs[1]) && has(addrs[2]) })
	for _, f := range fs[:2] {
		f.setPeers(addrs[:2]...)
	}
	fs[2].close()
	testutil.WaitFor(t, 5*time.Second, "the removed sentinel pruned", func() bool { return !has(addrs[2]) })
	st, _ := StatsOf(rdb)
	if !has(addrs[0]) || !has(addrs[1]) || !has(deadSeed) || st.SentinelsPruned != 1 {
		t.Fatalf("sentinels %v (pruned %d), want %s, %s and the silent seed %s kept, one pruned", st.Sentinels, st.SentinelsPruned, addrs[0], addrs[1], deadSeed)
	}
}
