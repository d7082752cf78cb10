package server

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestGoRedisClient drives the server with go-redis (which the public
// client builds on), in RESP2 and RESP3: handshake, forwarded SENTINEL
// commands, and events through go-redis' Pub/Sub.
func TestGoRedisClient(t *testing.T) {
	s, addr, _ := startServer(t, Config{})
	for _, proto := range []int{2, 3} {
		t.Run(map[int]string{2: "resp2", 3: "resp3"}[proto], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			sc := redis.NewSentinelClient(&redis.Options{Addr: addr, Protocol: proto, DialTimeout: 2 * time.Second})
			t.Cleanup(func() { _ = sc.Close() })
			if err := sc.Ping(ctx).Err(); err != nil {
				t.Fatalf("PING: %v", err)
			}
			got, err := sc.GetMasterAddrByName(ctx, "mym").Result()
			if err != nil || len(got) != 2 || got[0] != "127.0.0.1" || got[1] != "6379" {
				t.Fatalf("GetMasterAddrByName = %v, %v", got, err)
			}
			if err := sc.GetMasterAddrByName(ctx, "nope").Err(); err != redis.Nil {
				t.Fatalf("unknown master: err = %v, want redis.Nil", err)
			}
			ps := sc.Subscribe(ctx, "+switch-master")
			t.Cleanup(func() { _ = ps.Close() })
			if _, err := ps.Receive(ctx); err != nil { // the subscribe confirmation
				t.Fatalf("subscribe: %v", err)
			}
			ch := ps.Channel()
			s.Publish("+switch-master", "mym 127.0.0.1 6379 127.0.0.1 6380")
			select {
			case m := <-ch:
				if m.Channel != "+switch-master" || m.Payload != "mym 127.0.0.1 6379 127.0.0.1 6380" {
					t.Fatalf("message %+v", m)
				}
			case <-ctx.Done():
				t.Fatal("no +switch-master message")
			}
		})
	}
}
