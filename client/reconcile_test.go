package client

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// reconcileSlots returns the number of reconciliation slots client rdb
// reached: reconciliations run plus those skipped.
func reconcileSlots(rdb *redis.Client) uint64 {
	st, _ := StatsOf(rdb)
	return st.Reconciles + st.ReconcilesSkipped
}

// TestReconcileSpread: clients started together reach their first
// reconciliation slot spread over the whole ReconcileInterval, not in one
// burst. Before, every client reconciled ReconcileInterval ± 20 % after
// its activation, so a fleet activated within a second asked the
// sentinels in bursts (220 reconciliations in one second of the
// 1000-client bench at one core and 12 busy loops): here the middle 80 %
// of the first slots then fell within ≈ 0.4 of the interval; they must
// now cover at least 0.6 of it.
func TestReconcileSpread(t *testing.T) {
	t.Parallel()
	c := testutil.StartSentinelCluster(t, "mymaster", 1, 3, 2, 5000, 10000)
	const (
		n  = 40
		iv = 4 * time.Second
	)
	ctx := context.Background()
	rdbs := make([]*redis.Client, n)
	for i := range rdbs {
		o := FailoverOptions{MasterName: "mymaster", SentinelAddrs: c.SentinelAddrs(), ReconcileInterval: iv}
		rdbs[i] = NewFailoverClient(&o)
		t.Cleanup(func() { rdbs[i].Close() })
	}
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for _, rdb := range rdbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("SET: %v", err)
	}
	t.Logf("%d clients activated in %v", n, time.Since(start).Round(time.Millisecond))
	// The first slot of each client, relative to start (polled).
	first := make([]time.Duration, n)
	left := n
	tk := time.NewTicker(5 * time.Millisecond)
	defer tk.Stop()
	deadline := time.After(iv*3/2 + 2*time.Second)
	for left > 0 {
		select {
		case <-tk.C:
		case <-deadline:
			t.Fatalf("%d of %d clients reached no reconciliation slot within 1.5 × ReconcileInterval", left, n)
		}
		now := time.Since(start)
		for i, rdb := range rdbs {
			if first[i] == 0 && reconcileSlots(rdb) > 0 {
				first[i] = now
				left--
			}
		}
	}
	slices.Sort(first)
	p10, p90 := first[n/10], first[n*9/10-1]
	spread := p90 - p10
	t.Logf("first reconciliation slots after start: min %v p10 %v p50 %v p90 %v max %v (middle 80 %% over %.2f of the interval)",
		first[0].Round(time.Millisecond), p10.Round(time.Millisecond), first[n/2].Round(time.Millisecond),
		p90.Round(time.Millisecond), first[n-1].Round(time.Millisecond), float64(spread)/float64(iv))
	if spread < iv*6/10 {
		t.Fatalf("the middle 80 %% of the first reconciliation slots cover %v, want ≥ %v (0.6 × ReconcileInterval): a burst", spread, iv*6/10)
	}
}

// TestReconcileSkippedAfterResolution: a reconciliation slot reached
// while a resolution asked the sentinels within half the
// ReconcileInterval is skipped (the sentinels are not asked again for the
// same answer), and reconciliation resumes as soon as resolutions stop:
// the safety net stays. Before, the client reconciled every interval
// whatever it had just asked (a fleet that had just resolved together in
// a failover reconciled 1278 times in the same 9 s window).
func TestReconcileSkippedAfterResolution(t *testing.T) {
	t.Parallel()
	c := testutil.StartSentinelCluster(t, "mymaster", 1, 3, 2, 5000, 10000)
	const iv = time.Second
	ctx := context.Background()
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: c.SentinelAddrs(), ReconcileInterval: iv})
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	r := resolverOf(rdb)
	st0, _ := StatsOf(rdb)
	// Resolutions every 200 ms (a client dialling new connections,
	// or following events) for 3.5 intervals.
	end := time.Now().Add(iv * 7 / 2)
	tk := time.NewTicker(200 * time.Millisecond)
	for time.Now().Before(end) {
		if err := r.resolveShared(ctx); err != nil {
			t.Fatalf("resolution: %v", err)
		}
		<-tk.C
	}
	tk.Stop()
	st1, _ := StatsOf(rdb)
	ran, skipped := st1.Reconciles-st0.Reconciles, st1.ReconcilesSkipped-st0.ReconcilesSkipped
	t.Logf("with a resolution every 200 ms for %v: %d reconciliations, %d skipped, %d resolutions",
		iv*7/2, ran, skipped, st1.Resolutions-st0.Resolutions)
	if ran != 0 || skipped < 2 {
		t.Fatalf("%d reconciliations ran and %d were skipped while the sentinels were asked every 200 ms; want 0 and ≥ 2", ran, skipped)
	}
	// Resolutions stopped: the next reconciliation runs within 1.5
	// intervals (its slot may fall within half an interval of the last
	// resolution once more).
	deadline := time.After(iv*3/2 + time.Second)
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	for {
		if st, _ := StatsOf(rdb); st.Reconciles > st1.Reconciles {
			return
		}
		select {
		case <-poll.C:
		case <-deadline:
			t.Fatalf("no reconciliation within 1.5 × ReconcileInterval after the resolutions stopped")
		}
	}
}

// TestLateReconcileSlotSpread (unit): slots served late — a starved
// process whose goroutines all wake at once — are moved to random moments
// within the next half interval rather than all run now; a slot served
// on time is not moved.
func TestLateReconcileSlotSpread(t *testing.T) {
	const iv = 10 * time.Second
	r := newResolver((&FailoverOptions{ReconcileInterval: iv}).withDefaults(), roleMaster)
	defer r.shutdown()
	now := time.Now()
	if _, ok := r.lateSlot(now.Add(-iv/40), now); ok {
		t.Fatalf("a slot served %v late (under a twentieth of the interval) was moved", iv/40)
	}
	const n = 1000
	buckets := make([]int, 10) // tenths of the half interval
	for i := 0; i < n; i++ {
		at, ok := r.lateSlot(now.Add(-3*time.Second), now)
		if !ok {
			t.Fatalf("a slot served 3 s late was not moved")
		}
		d := at.Sub(now)
		if d < 0 || d > iv/2 {
			t.Fatalf("a late slot moved to %v from now, want within [0, %v]", d, iv/2)
		}
		buckets[min(int(d*10/(iv/2)), 9)]++
	}
	for i, b := range buckets {
		if b > n/5 {
			t.Fatalf("%d of %d late slots moved into the same twentieth of the interval (bucket %d): a burst", b, n, i)
		}
	}
}
