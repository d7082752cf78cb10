package client

import (
	"context"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// TestGoRedisFeaturesWork checks that the returned *redis.Client keeps
// go-redis features that use other pools or connection modes: Pub/Sub,
// pipelines and transactions.
func TestGoRedisFeaturesWork(t *testing.T) {
	t.Parallel()
	m := testutil.StartRedis(t)
	fs := startFakeSentinel(t, m.Addr(), 1)
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	ps := rdb.Subscribe(ctx, "news")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	if err := rdb.Publish(ctx, "news", "hello").Err(); err != nil {
		t.Fatalf("publish: %v", err)
	}
	msg, err := ps.ReceiveMessage(ctx)
	if err != nil || msg.Payload != "hello" {
		t.Fatalf("message = %v, %v", msg, err)
	}

	if _, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "a", "1", 0)
		p.Incr(ctx, "a")
		return nil
	}); err != nil {
		t.Fatalf("pipeline: %v", err)
	}
	if _, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Incr(ctx, "a")
		return nil
	}); err != nil {
		t.Fatalf("transaction: %v", err)
	}
	if v, err := rdb.Get(ctx, "a").Int(); err != nil || v != 3 {
		t.Fatalf("a = %d, %v; want 3", v, err)
	}
}
