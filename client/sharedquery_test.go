package client

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestSharedSentinelQueries: twenty clients of one process resolving the
// master at the same moment (their first resolution: nothing to fall back
// on) ask a slow sentinel (200 ms) a handful of times between them, not
// once each: the clients that ask while a query is in flight share the
// next one. Every client still gets the master. Before: one query per
// client, 20.
func TestSharedSentinelQueries(t *testing.T) {
	t.Parallel()
	m := testutil.StartRedis(t)
	fs := startFakeSentinel(t, m.Addr(), 1)
	fs.setDelay(200 * time.Millisecond)
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, DisablePubSub: true,
			ReconcileInterval: -1, VerifyInterval: -1})
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- rdb.Set(context.Background(), "k", "v", 0).Err()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("SET: %v", err)
		}
	}
	q := fs.queryCount()
	t.Logf("%d clients resolving together: %d GET-MASTER-ADDR-BY-NAME queries", n, q)
	if q > n/4 {
		t.Fatalf("%d queries from %d clients resolving together, want at most %d (shared)", q, n, n/4)
	}
}
