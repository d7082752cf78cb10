package clientbench

import (
	"context"
	"testing"

	"github.com/gosentinel/gosentinel/client"
	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// BenchmarkHotPath measures the per-command overhead of each client on a
// warm pool against the same real master.
func BenchmarkHotPath(b *testing.B) {
	c := testutil.StartSentinelCluster(b, "mymaster", 0, 1, 1, 5000, 10000)
	clients := []struct {
		name string
		rdb  *redis.Client
	}{
		{"plain", redis.NewClient(&redis.Options{Addr: c.Top.Master.Addr()})},
		{"gosentinel", client.NewFailoverClient(&client.FailoverOptions{MasterName: c.Name, SentinelAddrs: c.SentinelAddrs()})},
		{"goredis-failover", redis.NewFailoverClient(&redis.FailoverOptions{MasterName: c.Name, SentinelAddrs: c.SentinelAddrs()})},
	}
	ctx := context.Background()
	for _, cl := range clients {
		b.Cleanup(func() { cl.rdb.Close() })
		if err := cl.rdb.Set(ctx, "bench:key", "value", 0).Err(); err != nil {
			b.Fatalf("%s: warm-up SET: %v", cl.name, err)
		}
	}
	for _, cl := range clients {
		b.Run(cl.name+"/GET", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := cl.rdb.Get(ctx, "bench:key").Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(cl.name+"/SET", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := cl.rdb.Set(ctx, "bench:key", "value", 0).Err(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
