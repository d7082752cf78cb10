package client

import (
	"context"
	"net"
	"sync"
	"testing"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestSeparateDialers checks that sentinels and data nodes each go through
// their own dialer.
func TestSeparateDialers(t *testing.T) {
	t.Parallel()
	m := testutil.StartRedis(t)
	fs := startFakeSentinel(t, m.Addr(), 1)
	var mu sync.Mutex
	seen := map[string]map[string]int{"sentinel": {}, "data": {}}
	counting := func(kind string) DialFunc {
		return func(ctx context.Context, network, addr string) (net.Conn, error) {
			mu.Lock()
			seen[kind][addr]++
			mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		}
	}
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()},
		SentinelDialer: counting("sentinel"), Dialer: counting("data"), DisablePubSub: true})
	if err := rdb.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatalf("Set: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen["sentinel"]) != 1 || seen["sentinel"][fs.addr()] == 0 {
		t.Fatalf("sentinel dialer saw %v, want only %s", seen["sentinel"], fs.addr())
	}
	if len(seen["data"]) != 1 || seen["data"][m.Addr()] == 0 {
		t.Fatalf("data dialer saw %v, want only %s", seen["data"], m.Addr())
	}
}
