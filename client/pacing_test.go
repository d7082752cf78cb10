package client

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestSleepUntilHint: the retry backoff of the hook ends at once on a hint
// (the master moved: retrying now reaches the new one), but not when a
// resolution merely ends; the caller's context and Close end it too.
func TestSleepUntilHint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		trigger func(r *resolver, cancel context.CancelFunc)
		want    error // nil: ended early without error
		ends    bool  // whether the trigger ends the sleep
	}{
		{"hint", func(r *resolver, _ context.CancelFunc) {
			r.mu.Lock()
			r.hintSeq++
			r.broadcastLocked()
			r.mu.Unlock()
		}, nil, true},
		{"end of a resolution", func(r *resolver, _ context.CancelFunc) {
			r.mu.Lock()
			r.broadcastLocked()
			r.mu.Unlock()
		}, nil, false},
		{"caller's context", func(_ *resolver, cancel context.CancelFunc) { cancel() }, context.Canceled, true},
		{"client closed", func(r *resolver, _ context.CancelFunc) { r.shutdown() }, ErrClientClosed, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := &FailoverOptions{MasterName: "mymaster"}
			r := newResolver(o.withDefaults(), roleMaster)
			t.Cleanup(r.shutdown)
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			done := make(chan error, 1)
			go func() { done <- r.sleepUntilHint(ctx, time.Minute) }()
			// The sleeper may not have read the hint sequence yet when
			// the first trigger fires: repeat the trigger until it ends
			// (or for 200 ms when it must not end it).
			deadline := time.Now().Add(200 * time.Millisecond)
			if tc.ends {
				deadline = time.Now().Add(5 * time.Second)
			}
			tk := time.NewTicker(5 * time.Millisecond)
			defer tk.Stop()
			for time.Now().Before(deadline) {
				tc.trigger(r, cancel)
				select {
				case err := <-done:
					if !tc.ends {
						t.Fatalf("the sleep ended (%v), want it to go on", err)
					}
					if !errors.Is(err, tc.want) {
						t.Fatalf("sleepUntilHint = %v, want %v", err, tc.want)
					}
					return
				case <-tk.C:
				}
			}
			if tc.ends {
				t.Fatal("the sleep did not end")
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("after cancel: %v", err)
			}
		})
	}
}

// TestOutagePacing: while the sentinels name a dead master, 16 writers
// blocked in new connections share one resolution per MinRoleBackoff
// instead of each sleeping and asking on its own, and the resolutions keep
// coming at that pace (so a sentinel that names the promoted replica is
// heard within about MinRoleBackoff, see TestKillToFirstWrite).
func TestOutagePacing(t *testing.T) {
	t.Parallel()
	top := testutil.StartTopology(t, 0)
	fs := startFakeSentinel(t, top.Master.Addr(), 1)
	const gap = 25 * time.Millisecond
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, DisablePubSub: true,
		ReconcileInterval: -1, MinRoleBackoff: gap, PoolSize: 16})
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("PING: %v", err)
	}
	top.Master.Kill()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				_ = rdb.Set(ctx, "k", i, 0).Err()
			}
		}()
	}
	testutil.WaitFor(t, 5*time.Second, "failed resolutions", func() bool { return statsOf(t, rdb).ResolutionErrors >= 2 })
	before := statsOf(t, rdb).Resolutions
	const window = 500 * time.Millisecond
	time.Sleep(window) // a measured span: resolutions are counted over it
	n := statsOf(t, rdb).Resolutions - before
	t.Logf("%d resolutions in %v with 16 blocked writers (gap %v)", n, window, gap)
	// At most one per half gap (equal jitter: the gap is 12.5–25 ms; each
	// resolution also takes some time), at least one per 4 gaps on a
	// loaded machine; the code before pacing in the resolver
	// let the gap grow to MaxRoleBackoff (250 ms): 2–4 in the window.
	if hi := uint64(2*window/gap) + 2; n > hi {
		t.Errorf("%d resolutions in %v, want ≤ %d (one per %v shared by all writers)", n, window, hi, gap)
	}
	if lo := uint64(window / (4 * gap)); n < lo {
		t.Errorf("%d resolutions in %v, want ≥ %d (the sentinels asked about every %v)", n, window, lo, gap)
	}
}

// TestFailGap: the pace of failing resolutions. A dead advertised master
// is polled every MinRoleBackoff for DialTimeout (the failover is expected
// within that time), then like any other failure: doubling up to
// MaxRoleBackoff.
func TestFailGap(t *testing.T) {
	t.Parallel()
	unreachable := &DiscoveryError{Kind: ErrMasterUnreachable, Master: "mymaster"}
	mismatch := &DiscoveryError{Kind: ErrRoleMismatch, Master: "mymaster"}
	tests := []struct {
		name   string
		err    error
		streak int
		since  time.Duration // first failure this long ago
		want   time.Duration
	}{
		{"unreachable, first failure", unreachable, 1, 0, 25 * time.Millisecond},
		{"unreachable, long streak within DialTimeout", unreachable, 40, 4 * time.Second, 25 * time.Millisecond},
		{"unreachable beyond DialTimeout", unreachable, 200, 6 * time.Second, 250 * time.Millisecond},
		{"role mismatch, first failure", mismatch, 1, 0, 25 * time.Millisecond},
		{"role mismatch, third failure", mismatch, 3, 0, 100 * time.Millisecond},
		{"role mismatch, long streak", mismatch, 10, 0, 250 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &FailoverOptions{MasterName: "mymaster"}
			r := newResolver(o.withDefaults(), roleMaster)
			t.Cleanup(r.shutdown)
			r.mu.Lock()
			r.lastErr, r.failStreak, r.failSince = tc.err, tc.streak, time.Now().Add(-tc.since)
			got := r.failGap()
			r.mu.Unlock()
			if got != tc.want {
				t.Fatalf("failGap = %v, want %v", got, tc.want)
			}
			if j := jitter(got); j < got/2 || j > got {
				t.Fatalf("jitter(%v) = %v, want within [%v, %v]", got, j, got/2, got)
			}
		})
	}
}
