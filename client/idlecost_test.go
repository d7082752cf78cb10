package client

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// sentinelClients returns, per sentinel, the CLIENT LIST lines of the
// connections named name.
func sentinelClients(t *testing.T, sentinels []string, name string) [][]string {
	t.Helper()
	out := make([][]string, len(sentinels))
	for i, s := range sentinels {
		// A few attempts: on the shared box a CLIENT LIST can miss
		// go-redis's 3 s read timeout, which says nothing about the
		// client under test.
		var list string
		var err error
		for try := 0; try < 5; try++ {
			sc := redis.NewClient(&redis.Options{Addr: s, Protocol: 2, DisableIdentity: true, MaxRetries: -1})
			list, err = sc.ClientList(context.Background()).Result()
			sc.Close()
			if err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("CLIENT LIST on %s: %v", s, err)
		}
		for _, l := range strings.Split(list, "\n") {
			if strings.Contains(l, " name="+name+" ") {
				out[i] = append(out[i], l)
			}
		}
	}
	return out
}

// TestIdleSentinelCost: an idle client holds one connection per sentinel
// (its subscription, which in RESP3 also carries its queries:
// reconciliations and verifications open no second connection), and its
// health check costs about 1.7 commands per second at the default
// VerifyInterval. Before: 5 connections on 3 sentinels (2 on two of
// them) and 4 PINGs per second on the primary subscription.
func TestIdleSentinelCost(t *testing.T) {
	t.Parallel()
	c := testutil.StartSentinelCluster(t, "mymaster", 1, 3, 2, 5000, 10000)
	sentinels := c.SentinelAddrs()
	ctx := context.Background()
	t.Run("one connection per sentinel", func(t *testing.T) {
		rdb := newTestClient(t, FailoverOptions{SentinelAddrs: sentinels, ClientName: "idleconns",
			ReconcileInterval: 200 * time.Millisecond})
		if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
			t.Fatalf("SET: %v", err)
		}
		testutil.WaitFor(t, 10*time.Second, "a subscription on every sentinel", func() bool {
			for _, cs := range sentinelClients(t, sentinels, "idleconns") {
				if len(cs) == 0 {
					return false
				}
			}
			return true
		})
		st0, _ := StatsOf(rdb)
		testutil.WaitFor(t, 10*time.Second, "reconciliations", func() bool {
			st, _ := StatsOf(rdb)
			return st.Reconciles >= st0.Reconciles+3
		})
		for i, cs := range sentinelClients(t, sentinels, "idleconns") {
			if len(cs) != 1 {
				t.Errorf("sentinel %s: %d connections of the client, want 1: %q", sentinels[i], len(cs), cs)
			}
			for _, l := range cs {
				if !strings.Contains(l, " resp=3") {
					t.Errorf("sentinel %s: subscription not in RESP3: %q", sentinels[i], l)
				}
			}
		}
		if st, _ := StatsOf(rdb); st.Resolutions == 0 || st.ResolutionErrors != 0 {
			t.Errorf("resolutions %d, errors %d", st.Resolutions, st.ResolutionErrors)
		}
	})
	t.Run("health check rate", func(t *testing.T) {
		rdb := newTestClient(t, FailoverOptions{SentinelAddrs: sentinels, ReconcileInterval: -1})
		if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
			t.Fatalf("SET: %v", err)
		}
		testutil.WaitFor(t, 10*time.Second, "three subscriptions", func() bool {
			r := resolverOf(rdb)
			r.mu.Lock()
			defer r.mu.Unlock()
			return len(r.subBy) == 3
		})
		st0, _ := StatsOf(rdb)
		const window = 5 * time.Second
		w := time.NewTimer(window)
		<-w.C
		st1, _ := StatsOf(rdb)
		n := st1.SentinelCommands - st0.SentinelCommands
		// One PING per 0.6 s on the primary: 8 or 9 in 5 s, plus a
		// verification poll whenever a PING is answered after 150 ms
		// (the box is loaded). Before: one PING per 250 ms, ≥ 20.
		if n > 15 {
			t.Errorf("%d sentinel commands in %v idle, want ≤ 15 (≈ 1.7/s)", n, window)
		}
		if n == 0 {
			t.Errorf("no health check in %v", window)
		}
	})
}
