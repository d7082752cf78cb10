package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// switchTo promotes newAddr (the old master stays a master), makes the
// fake sentinel advertise it and publishes +switch-master.
func switchTo(t *testing.T, fs *fakeSentinel, oldAddr, newAddr string) {
	t.Helper()
	promoteOnly(t, newAddr)
	fs.set(newAddr, 2)
	fs.publish("+switch-master", switchPayload(oldAddr, newAddr))
}

// TestBlockedReadersFollowTheSwitch: a go-redis PubSub subscriber and a
// BLPOP blocked on the old master are cut when the master changes, so the
// subscriber receives what is published on the new master and the next
// BLPOP is served by the new master.
func TestBlockedReadersFollowTheSwitch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		run  func(t *testing.T, rdb *redis.Client, switched func(), newAddr string)
	}{
		{"pubsub subscriber", func(t *testing.T, rdb *redis.Client, switched func(), newAddr string) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ps := rdb.Subscribe(ctx, "news")
			defer ps.Close()
			if _, err := ps.Receive(ctx); err != nil {
				t.Fatalf("subscribe: %v", err)
			}
			switched()
			nm := redis.NewClient(&redis.Options{Addr: newAddr, MaxRetries: -1})
			defer nm.Close()
			got := make(chan string, 1)
			go func() {
				defer close(got)
				for ctx.Err() == nil {
					m, err := ps.ReceiveMessage(ctx)
					if err == nil {
						got <- m.Payload
						return
					}
					// One error is expected (ErrMasterChanged): the
					// next receive reconnects to the new master.
				}
			}()
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case p, ok := <-got:
					if !ok || p != "on the new master" {
						t.Fatalf("subscriber got %q (%v), want the message published on the new master", p, ok)
					}
					return
				case <-tick.C:
					_ = nm.Publish(ctx, "news", "on the new master").Err()
				case <-ctx.Done():
					t.Fatal("the subscriber never received a message published on the new master")
				}
			}
		}},
		{"BLPOP", func(t *testing.T, rdb *redis.Client, switched func(), newAddr string) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			errc := make(chan error, 1)
			go func() { errc <- rdb.BLPop(ctx, 0, "q").Err() }()
			testutil.WaitFor(t, 5*time.Second, "BLPOP blocked", func() bool {
				st, _ := StatsOf(rdb)
				return st.Dials >= 1 && blockedClients(rdb) > 0
			})
			switched()
			select {
			case err := <-errc:
				if !errors.Is(err, ErrMasterChanged) {
					t.Fatalf("BLPOP after the switch: %v, want ErrMasterChanged", err)
				}
			case <-ctx.Done():
				t.Fatal("BLPOP still blocked on the old master")
			}
			nm := redis.NewClient(&redis.Options{Addr: newAddr, MaxRetries: -1})
			defer nm.Close()
			if err := nm.RPush(ctx, "q", "x").Err(); err != nil {
				t.Fatalf("RPUSH on the new master: %v", err)
			}
			v, err := rdb.BLPop(ctx, 5*time.Second, "q").Result()
			if err != nil || len(v) != 2 || v[1] != "x" {
				t.Fatalf("BLPOP on the new master = %v, %v", v, err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			top := testutil.StartTopology(t, 1)
			oldAddr, newAddr := top.Master.Addr(), top.Replicas[0].Addr()
			fs := startFakeSentinel(t, oldAddr, 1)
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, ReconcileInterval: -1,
				ResolveCacheTTL: time.Hour})
			if err := rdb.Ping(context.Background()).Err(); err != nil {
				t.Fatalf("Ping: %v", err)
			}
			testutil.WaitFor(t, 5*time.Second, "the subscription", func() bool { return fs.subscribedBy(rdb) })
			tc.run(t, rdb, func() { switchTo(t, fs, oldAddr, newAddr) }, newAddr)
			st, _ := StatsOf(rdb)
			if st.BlockedCut == 0 || st.CurrentAddr != newAddr {
				t.Fatalf("BlockedCut=%d CurrentAddr=%s, want a cut and %s", st.BlockedCut, st.CurrentAddr, newAddr)
			}
		})
	}
}

// blockedClients returns blocked_clients from the INFO of the node the
// client currently uses.
func blockedClients(rdb *redis.Client) int {
	st, _ := StatsOf(rdb)
	info, err := testutil.Info(st.CurrentAddr, "clients")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "blocked_clients:"); ok && v != "0" {
			return 1
		}
	}
	return 0
}
