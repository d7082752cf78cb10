package client

import (
	"context"
	"errors"
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

// TestSuspectMasterWaitsForSlowSentinel: once the master's connections
// failed (here: it was SIGKILLed), the resolution has no master to fall
// back on and waits for a sentinel that answers after SentinelTimeout
// (400 ms here, as every sentinel answers for a starved fleet): the
// command fails because the named master is unreachable, and the slow
// sentinel is not counted as failed. Before: the round gave up at
// SentinelTimeout, counted a sentinel error, and the command failed
// with ErrNoSentinelReachable (in a 1000-client fleet, every client,
// 2 700 sentinel errors in one failover window).
func TestSuspectMasterWaitsForSlowSentinel(t *testing.T) {
	t.Parallel()
	m := testutil.StartRedis(t)
	fs := startFakeSentinel(t, m.Addr(), 1)
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, DisablePubSub: true,
		ReconcileInterval: -1, VerifyInterval: -1, MaxRetries: -1, DialTimeout: time.Second})
	ctx := context.Background()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	fs.setDelay(400 * time.Millisecond)
	m.Kill()
	var err error
	for i := 0; i < 2 && err == nil; i++ {
		// The first command may only find the pooled connection dead.
		err = rdb.Set(ctx, "k", "v", 0).Err()
	}
	st, _ := StatsOf(rdb)
	t.Logf("SET with the master dead and a slow sentinel: %v; sentinel errors %d", err, st.SentinelErrors)
	if !errors.Is(err, ErrMasterUnreachable) || errors.Is(err, ErrNoSentinelReachable) {
		t.Errorf("SET error %v, want ErrMasterUnreachable (the sentinel answered, late)", err)
	}
	if st.SentinelErrors != 0 {
		t.Errorf("%d sentinel errors, want 0 (the sentinel was slow, not failing)", st.SentinelErrors)
	}
}
