package client

import (
	"context"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"go.uber.org/goleak"
)

// TestCloseReleasesEverything checks that closing the *redis.Client stops
// the background goroutine, the pub/sub subscription to the sentinel and
// every resolution goroutine.
func TestCloseReleasesEverything(t *testing.T) {
	// Not parallel: goleak looks at every goroutine of the process.
	m := testutil.StartRedis(t)
	fs := startFakeSentinel(t, m.Addr(), 1)
	ignore := goleak.IgnoreCurrent()
	tests := []struct {
		name string
		opt  FailoverOptions
		use  bool
	}{
		{"used, pubsub and reconcile", FailoverOptions{}, true},
		{"used, pubsub only", FailoverOptions{ReconcileInterval: -1}, true},
		{"never used", FailoverOptions{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opt
			o.MasterName = "mymaster"
			o.SentinelAddrs = []string{fs.addr()}
			rdb := NewFailoverClient(&o)
			if tc.use {
				for i := 0; i < 20; i++ {
					if err := rdb.Set(context.Background(), "k", i, 0).Err(); err != nil {
						t.Fatalf("Set: %v", err)
					}
				}
				// The subscription is up once the sentinel sees it.
				testutil.WaitFor(t, 5*time.Second, "pub/sub subscription", func() bool {
					fs.mu.Lock()
					defer fs.mu.Unlock()
					return len(fs.subs) > 0
				})
			}
			if err := rdb.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := goleak.Find(ignore); err != nil {
				t.Fatalf("goroutines left after Close: %v", err)
			}
			if _, ok := StatsOf(rdb); !ok && tc.use {
				t.Fatal("StatsOf forgot a closed client (counters stay readable)")
			}
		})
	}
}

// TestCloseCutsSentinelExchanges: a sentinel query that the client gave
// up on (SentinelTimeout) still reads its reply in the background, up to
// drainTimeout (5 s), to keep the connection. Close must cut it at once:
// before, a client closed while a black-holed sentinel was being drained
// left that goroutine behind for up to 5 s (the package's goleak check at
// the end of the run failed when such a test ended last).
func TestCloseCutsSentinelExchanges(t *testing.T) {
	// Not parallel: goleak looks at every goroutine of the process.
	m := testutil.StartRedis(t)
	fs := startFakeSentinel(t, m.Addr(), 1)
	hole := blackHole(t)
	ignore := goleak.IgnoreCurrent()
	rdb := NewFailoverClient(&FailoverOptions{MasterName: "mymaster", SentinelAddrs: []string{hole, fs.addr()},
		SentinelOrderFixed: true, DisablePubSub: true})
	if err := rdb.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatalf("Set: %v", err)
	}
	st, _ := StatsOf(rdb)
	if st.SentinelErrors == 0 {
		t.Fatalf("the black-holed sentinel was not asked (stats %+v)", st)
	}
	closed := time.Now()
	if err := rdb.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := goleak.Find(ignore); err != nil {
		t.Fatalf("goroutines left %v after Close: %v", time.Since(closed), err)
	}
}
