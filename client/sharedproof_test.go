package client

import (
	"context"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestSharedHealthCheck: ten idle clients of one process, subscribed to
// the same primary sentinel, send about one client's health checks
// between them (the frame one subscription reads proves the sentinel
// live for the others, see sharedproof.go), and every one of them keeps
// its event path live (no verification poll). Before: each sent its own
// PING after 600 ms of silence, ten times the commands.
func TestSharedHealthCheck(t *testing.T) {
	t.Parallel()
	c := testutil.StartSentinelCluster(t, "mymaster", 1, 3, 2, 5000, 10000)
	ctx := context.Background()
	const n = 10
	var rs []*resolver
	for i := 0; i < n; i++ {
		rdb := newTestClient(t, FailoverOptions{SentinelAddrs: c.SentinelAddrs(), ReconcileInterval: -1, ShareHealthChecks: true})
		if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
			t.Fatalf("SET: %v", err)
		}
		rs = append(rs, resolverOf(rdb))
	}
	testutil.WaitFor(t, 10*time.Second, "every client's subscriptions", func() bool {
		for _, r := range rs {
			r.mu.Lock()
			subs := len(r.subBy)
			r.mu.Unlock()
			if subs < 3 {
				return false
			}
		}
		return true
	})
	sum := func() (cmds, verifs uint64) {
		for _, r := range rs {
			st := r.snapshot()
			cmds += st.SentinelCommands
			verifs += st.Verifications
		}
		return cmds, verifs
	}
	cmds0, verifs0 := sum()
	const idle = 3 * time.Second
	time.Sleep(idle) // the idle period being measured
	cmds1, verifs1 := sum()
	cmds, verifs := cmds1-cmds0, verifs1-verifs0
	// One client: a PING per 600 ms of silence, 5 in 3 s; ten without
	// sharing: about 50.
	t.Logf("%d idle clients, %v: %d sentinel commands, %d verifications", n, idle, cmds, verifs)
	if cmds > 20 {
		t.Errorf("%d sentinel commands from %d idle clients in %v, want at most 20 (about one client's health checks, shared)", cmds, n, idle)
	}
	if verifs != 0 {
		t.Errorf("%d verification polls: an event path was judged not live", verifs)
	}
	now := time.Now()
	for i, r := range rs {
		if !r.eventPathLive(now) {
			t.Errorf("client %d: event path not live", i)
		}
	}
}
