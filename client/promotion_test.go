package client

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// TestEarlySwitchOnSelectedSlave: on +selected-slave the client polls the
// replica and switches as soon as it reports master, before any sentinel
// advertises it, and a resolution hearing the old address from lagging
// sentinels does not switch it back.
func TestEarlySwitchOnSelectedSlave(t *testing.T) {
	t.Parallel()
	top := testutil.StartTopology(t, 1)
	m, rep := top.Master, top.Replicas[0]
	fs := startFakeSentinel(t, m.Addr(), 1)
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, ReconcileInterval: -1, PromotionWatch: DefaultPromotionWatch})
	ctx := context.Background()
	if err := rdb.Set(ctx, "k", "before", 0).Err(); err != nil {
		t.Fatalf("Set: %v", err)
	}
	testutil.WaitFor(t, 5*time.Second, "subscription", func() bool {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		return len(fs.subs) > 0
	})
	rh, rp, _ := net.SplitHostPort(rep.Addr())
	mh, mp, _ := net.SplitHostPort(m.Addr())
	fs.publish("+selected-slave", "slave "+rep.Addr()+" "+rh+" "+rp+" @ mymaster "+mh+" "+mp)
	// The leader's REPLICAOF NO ONE; the old master is still a master.
	rc := redis.NewClient(&redis.Options{Addr: rep.Addr()})
	defer rc.Close()
	if err := rc.SlaveOf(ctx, "NO", "ONE").Err(); err != nil {
		t.Fatalf("REPLICAOF NO ONE: %v", err)
	}
	promoted := time.Now()
	testutil.WaitFor(t, 2*time.Second, "early switch", func() bool {
		st, _ := StatsOf(rdb)
		return st.CurrentAddr == rep.Addr()
	})
	if d := time.Since(promoted); d > 500*time.Millisecond {
		t.Errorf("early switch took %v", d)
	}
	// A resolution now hears the old master (still a master) from the
	// sentinel: the client must stay on the promoted node.
	r := resolverOf(rdb)
	if err := r.refresh(ctx, r.generation()); err != nil {
		t.Fatalf("refresh: %v", err)
	}
	st, _ := StatsOf(rdb)
	if st.CurrentAddr != rep.Addr() || st.EarlyPromotions != 1 {
		t.Fatalf("after a lagging resolution: CurrentAddr=%s EarlyPromotions=%d, want %s and 1", st.CurrentAddr, st.EarlyPromotions, rep.Addr())
	}
	if err := rdb.Set(ctx, "k", "after", 0).Err(); err != nil {
		t.Fatalf("Set: %v", err)
	}
	if v, err := rc.Get(ctx, "k").Result(); err != nil || v != "after" {
		t.Fatalf("write after the switch on the promoted node: %q %v", v, err)
	}
}
