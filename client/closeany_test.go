package client

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// derivedValues are the values a program derives from one client: two
// WithTimeout generations, a Conn and a PubSub.
type derivedValues struct {
	orig, clone, cloneOfClone *redis.Client
	conn                      *redis.Conn
	ps                        *redis.PubSub
}

// derive builds and uses every derived value of orig.
func derive(t *testing.T, orig *redis.Client) *derivedValues {
	t.Helper()
	ctx := context.Background()
	d := &derivedValues{orig: orig}
	d.clone = orig.WithTimeout(2 * time.Second)
	d.cloneOfClone = d.clone.WithTimeout(3 * time.Second)
	for _, c := range []*redis.Client{d.orig, d.clone, d.cloneOfClone} {
		if err := c.Set(ctx, "closeany", 1, 0).Err(); err != nil {
			t.Fatalf("SET before Close: %v", err)
		}
	}
	d.conn = orig.Conn()
	if err := d.conn.Set(ctx, "closeany", 2, 0).Err(); err != nil {
		t.Fatalf("SET on a Conn before Close: %v", err)
	}
	d.ps = d.cloneOfClone.Subscribe(ctx, "closeany")
	if _, err := d.ps.Receive(ctx); err != nil {
		t.Fatalf("SUBSCRIBE before Close: %v", err)
	}
	return d
}

// errorsAfter returns, for every value, the error of one command after
// Close: GET on each client and the Conn, a receive on the PubSub.
func (d *derivedValues) errorsAfter() map[string]error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, psErr := d.ps.ReceiveTimeout(ctx, 100*time.Millisecond)
	return map[string]error{
		"original":       d.orig.Get(ctx, "closeany").Err(),
		"clone":          d.clone.Get(ctx, "closeany").Err(),
		"clone of clone": d.cloneOfClone.Get(ctx, "closeany").Err(),
		"Conn":           d.conn.Get(ctx, "closeany").Err(),
		"PubSub":         psErr,
	}
}

func (d *derivedValues) pick(name string) *redis.Client {
	switch name {
	case "clone":
		return d.clone
	case "clone of clone":
		return d.cloneOfClone
	}
	return d.orig
}

// TestCloseOnAnyDerivedClient: Close on any WithTimeout generation closes
// the client, as in go-redis (a WithTimeout clone shares the baseClient's
// pools, and Close closes them for every sharer): the client's machinery
// stops (no goroutine left, no sentinel connection open — counted by a
// counting SentinelDialer and by name on every sentinel) and every other
// value then fails as go-redis's does (redis.ErrClosed where go-redis
// returns it). go-redis's FailoverClient goes through the same steps as
// the reference for the errors.
func TestCloseOnAnyDerivedClient(t *testing.T) {
	// Not parallel: goleak looks at every goroutine of the process.
	c := testutil.StartSentinelCluster(t, "mymaster", 0, 3, 2, 5000, 10000)
	sentinels := c.SentinelAddrs()
	for _, closer := range []string{"original", "clone", "clone of clone"} {
		t.Run(closer, func(t *testing.T) {
			ignore := goleak.IgnoreCurrent()
			counter := newSentinelConnCounter(sentinels)
			ours := derive(t, NewFailoverClient(&FailoverOptions{MasterName: c.Name, SentinelAddrs: sentinels,
				SentinelDialer: counter.dial, ClientName: "closeany"}))
			waitSubscribed(t, ours.orig, len(sentinels))
			if err := ours.pick(closer).Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			got := ours.errorsAfter()
			ours.conn.Close()
			ours.ps.Close()
			if err := goleak.Find(ignore); err != nil {
				t.Errorf("goroutines left after Close on the %s: %v", closer, err)
			}
			if _, open := counter.snapshot(); perSentinel(sentinels, open) != perSentinel(sentinels, map[string]int{}) {
				t.Errorf("sentinel connections still open after Close on the %s: %s", closer, perSentinel(sentinels, open))
			}
			for i, n := range namedSentinelConns(t, sentinels, "closeany", map[string]int{}) {
				if n != 0 {
					t.Errorf("sentinel %s still lists %d connections of the closed client", i, n)
				}
			}

			theirs := derive(t, redis.NewFailoverClient(&redis.FailoverOptions{MasterName: c.Name,
				SentinelAddrs: sentinels}))
			if err := theirs.pick(closer).Close(); err != nil {
				t.Fatalf("go-redis Close: %v", err)
			}
			want := theirs.errorsAfter()
			theirs.conn.Close()
			theirs.ps.Close()
			theirs.orig.Close()
			for v, w := range want {
				g := got[v]
				if (g == nil) != (w == nil) || errors.Is(g, redis.ErrClosed) != errors.Is(w, redis.ErrClosed) {
					t.Errorf("after Close on the %s, %s: %v; go-redis: %v", closer, v, g, w)
				}
			}
		})
	}
}
