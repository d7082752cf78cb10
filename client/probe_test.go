package client

import (
	"context"
	"strings"
	"weak"

	"github.com/redis/go-redis/v9"
	"testing"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestClosedProbeHasNoSideEffects checks that the "is the client closed?"
// probe neither sends a command nor discards a pooled connection, and that
// it tells an open client from a closed one.
func TestClosedProbeHasNoSideEffects(t *testing.T) {
	t.Parallel()
	m := testutil.StartRedis(t)
	fs := startFakeSentinel(t, m.Addr(), 1)
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, DisablePubSub: true, ReconcileInterval: -1})
	if err := rdb.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatalf("Set: %v", err)
	}
	v, _ := registry.Load(r0(rdb))
	r := v.(*resolver)
	before := rdb.PoolStats()
	info0, _ := testutil.Info(m.Addr(), "commandstats")
	for i := 0; i < 100; i++ {
		if r.clientGone() {
			t.Fatal("open client reported closed")
		}
	}
	after := rdb.PoolStats()
	info1, _ := testutil.Info(m.Addr(), "commandstats")
	if after.TotalConns != before.TotalConns || after.StaleConns != before.StaleConns {
		t.Fatalf("probe changed the pool: before %+v after %+v", before, after)
	}
	if pingCalls(info0) != pingCalls(info1) {
		t.Fatalf("probe sent PINGs: %q -> %q", pingCalls(info0), pingCalls(info1))
	}
	rdb.Close()
	if !r.clientGone() {
		t.Fatal("closed client reported open")
	}
}

func pingCalls(info string) string {
	for _, l := range strings.Split(info, "\n") {
		if strings.HasPrefix(l, "cmdstat_ping:") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

func r0(rdb *redis.Client) weak.Pointer[redis.Client] { return weak.Make(rdb) }
