package client

import (
	"context"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestFrozenMasterInFlightCut: a write in flight on a master that froze
// (SIGSTOP: no reply, no reset) fails as soon as the client has verified
// the new master, not staleReadGrace later: the grace a retired
// connection's command gets for its reply counts from when it was sent,
// and this one was sent seconds before the switch. Before, the grace
// counted from the switch, and the first write on the new master came
// 100 ms after the client had verified it (behind go-redis's, which
// closes such connections at the switch; TestFailoverCompare, SIGSTOP).
func TestFrozenMasterInFlightCut(t *testing.T) {
	t.Parallel()
	c := testutil.StartSentinelCluster(t, "mymaster", 1, 3, 2, 1000, 3000)
	switched := make(chan time.Time, 1)
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: c.SentinelAddrs(), ReadTimeout: 10 * time.Second,
		OnMasterChange: func(old, new string) {
			if old != "" {
				select {
				case switched <- time.Now():
				default:
				}
			}
		}})
	ctx := context.Background()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	c.Top.Master.Stop()
	stoppedAt := time.Now()
	// This write reaches the frozen master and waits for a reply that
	// never comes, until the client cuts it.
	err := rdb.Set(ctx, "in-flight", "v", 0).Err()
	failedAt := time.Now()
	if err == nil {
		t.Fatalf("a write to the frozen master was acknowledged")
	}
	var at time.Time
	select {
	case at = <-switched:
	default:
		t.Fatalf("the in-flight write failed (%v) %v after SIGSTOP, before any switch", err, failedAt.Sub(stoppedAt))
	}
	lag := failedAt.Sub(at)
	t.Logf("SIGSTOP → switch %v; in-flight write failed %v after the switch: %v",
		at.Sub(stoppedAt).Round(time.Millisecond), lag.Round(time.Millisecond), err)
	if lag > staleReadGrace/2 {
		t.Fatalf("the in-flight write on the frozen master failed %v after the switch, want ≤ %v: it waited for the grace", lag, staleReadGrace/2)
	}
	// The next write goes to the new master.
	if err := rdb.Set(ctx, "after", "v", 0).Err(); err != nil {
		t.Fatalf("SET after the switch: %v", err)
	}
}
