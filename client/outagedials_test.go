package client

import (
	"context"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestOutageKeepsSentinelConnections: while the master is dead (the
// sentinels still name it) an application writing every 200 ms has no
// data connection most of the time. Its background work (subscriptions,
// sentinel query connections) must stay through the outage rather than
// stop 100 ms after the last connection closed and be dialled again at
// the next write: go-redis's pool health check discards the dead
// connection without a read or write of ours, which counted as a normal
// close. Before the fix one client dialled its sentinels 28 times in such
// an outage (a fleet of 200: 2897 sentinel connections in 30 s). Only a
// connection lost with a failed query may be dialled again.
func TestOutageKeepsSentinelConnections(t *testing.T) {
	t.Parallel()
	top := testutil.StartTopology(t, 0)
	_, addrs := startFakeSentinels(t, top.Master.Addr(), 2) // both warm (SentinelQuorum 2)
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: addrs, DialTimeout: 500 * time.Millisecond})
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := rdb.Set(ctx, "k", i, 0).Err(); err != nil {
			t.Fatalf("write before the kill: %v", err)
		}
	}
	testutil.WaitFor(t, 5*time.Second, "subscriptions to both sentinels", func() bool {
		// The fake sentinels refuse HELLO 3: each subscription is
		// made in RESP2 after one refused RESP3 attempt, and the query
		// connections stay.
		r := resolverOf(rdb)
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.subBy) == 2
	})
	before := statsOf(t, rdb)
	top.Master.Kill()
	<-top.Master.Done()
	for i := 0; i < 8; i++ {
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := rdb.Set(wctx, "k", i, 0).Err()
		cancel()
		if err == nil {
			t.Fatalf("write %d acknowledged with the master dead", i)
		}
		time.Sleep(200 * time.Millisecond) // the application's write period
	}
	st := statsOf(t, rdb)
	// A query that failed (a sentinel slow beyond SentinelTimeout on a
	// loaded machine, e.g. under make test's -race) closes its connection,
	// and the next query must dial a new one: those dials replace a broken
	// connection. Any other dial is the background work being torn down
	// and rebuilt (28 of them before the fix, with no failed query).
	d := st.SentinelDials - before.SentinelDials
	failed := st.SentinelErrors - before.SentinelErrors
	if d > failed {
		t.Errorf("%d sentinel connections opened during the outage, %d failed sentinel queries: want no more dials than failed queries (resolutions %d)", d, failed, st.Resolutions-before.Resolutions)
	}
}
