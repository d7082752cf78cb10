package client

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// onConnectRecorder is an OnConnect that asks each new connection for its
// ROLE (so it tells the master from a sentinel), names the connection
// (so CLIENT LIST shows that it ran before the connection was used) and
// can fail on sentinel connections.
type onConnectRecorder struct {
	name         string
	failSentinel error

	mu    sync.Mutex
	roles map[string]int
}

func (o *onConnectRecorder) onConnect(ctx context.Context, cn *redis.Conn) error {
	v, err := cn.Do(ctx, "ROLE").Slice()
	if err != nil || len(v) == 0 {
		return err
	}
	role, _ := v[0].(string)
	o.mu.Lock()
	o.roles[role]++
	o.mu.Unlock()
	if role == "sentinel" && o.failSentinel != nil {
		return o.failSentinel
	}
	return cn.ClientSetName(ctx, o.name).Err()
}

func (o *onConnectRecorder) count(role string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.roles[role]
}

// TestOnConnectOnSentinels: as in go-redis (sentinelOptions passes
// OnConnect to its sentinel clients), OnConnect runs on every sentinel
// connection — query connections and subscriptions — after the
// handshake and before the first command, with a *redis.Conn on that
// connection; an error from it fails that sentinel connection. go-redis's
// FailoverClient runs beside it as the reference. Before, OnConnect ran on
// data connections only.
func TestOnConnectOnSentinels(t *testing.T) {
	t.Parallel()
	c := testutil.StartSentinelCluster(t, "mymaster", 0, 3, 2, 5000, 10000)
	sentinels := c.SentinelAddrs()
	ctx := context.Background()

	t.Run("go-redis", func(t *testing.T) {
		rec := &onConnectRecorder{name: "oc-goredis", roles: map[string]int{}}
		g := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: c.Name, SentinelAddrs: sentinels,
			OnConnect: rec.onConnect})
		defer g.Close()
		if err := g.Set(ctx, "oc", 1, 0).Err(); err != nil {
			t.Fatalf("SET: %v", err)
		}
		if rec.count("sentinel") == 0 || rec.count("master") == 0 {
			t.Fatalf("go-redis ran OnConnect on %v; the reference expects sentinels and the master", rec.roles)
		}
	})

	t.Run("ours", func(t *testing.T) {
		rec := &onConnectRecorder{name: "oc-ours", roles: map[string]int{}}
		counter := newSentinelConnCounter(sentinels)
		rdb := newTestClient(t, FailoverOptions{SentinelAddrs: sentinels, SentinelDialer: counter.dial,
			OnConnect: rec.onConnect})
		if err := rdb.Set(ctx, "oc", 1, 0).Err(); err != nil {
			t.Fatalf("SET: %v", err)
		}
		waitSubscribed(t, rdb, len(sentinels))
		counter.waitOneEach(t, true)
		dials, _ := counter.snapshot()
		_, total := diff(map[string]int{}, dials)
		if got := rec.count("sentinel"); got != total {
			t.Errorf("OnConnect ran on %d sentinel connections, %d were opened", got, total)
		}
		if rec.count("master") == 0 {
			t.Errorf("OnConnect did not run on the data connection (%v)", rec.roles)
		}
		// Every open sentinel connection was named by OnConnect, and
		// still works: it carries the subscription and the queries.
		want := map[string]int{}
		for _, s := range sentinels {
			want[s] = 1
		}
		for i, cs := range sentinelClients(t, sentinels, "oc-ours") {
			if len(cs) != 1 {
				t.Errorf("sentinel %s lists %d connections named by OnConnect, want 1 (the subscription)", sentinels[i], len(cs))
			}
		}
		if err := resolverOf(rdb).resolveShared(ctx); err != nil {
			t.Fatalf("resolution after OnConnect: %v", err)
		}
	})

	t.Run("error fails the sentinel connection", func(t *testing.T) {
		refused := errors.New("onconnect refuses sentinels")
		rec := &onConnectRecorder{name: "oc-fail", roles: map[string]int{}, failSentinel: refused}
		rdb := newTestClient(t, FailoverOptions{SentinelAddrs: sentinels, OnConnect: rec.onConnect,
			DialTimeout: 500 * time.Millisecond})
		err := rdb.Set(ctx, "oc", 1, 0).Err()
		if !errors.Is(err, refused) {
			t.Fatalf("SET with OnConnect failing on sentinels: %v, want it to wrap %v", err, refused)
		}
		if rec.count("master") != 0 {
			t.Fatalf("a data connection was opened although no sentinel could be asked (%v)", rec.roles)
		}
	})
}
