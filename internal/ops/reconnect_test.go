package ops

import (
	"context"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestWatchReconnects kills the watched sentinel and restarts it on the same
// port: the watcher reports link-down, then link-up, then relays events
// from the restarted process again.
func TestWatchReconnects(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	t.Parallel()
	m := testutil.StartRedis(t)
	s := testutil.StartSentinel(t, testutil.SentinelConf("mym", m.Port, 1, 5000, 60000))
	o := &ConnOptions{Sentinels: []string{s.Addr()}, Timeout: time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	events := make(chan Event, 100)
	ready, done, err := Watch(ctx, o, func(e Event) {
		select {
		case events <- e:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); <-done })
	<-ready
	await := func(what string, match func(Event) bool) {
		t.Helper()
		for {
			select {
			case e := <-events:
				if match(e) {
					return
				}
			case <-ctx.Done():
				t.Fatalf("no %s event", what)
			}
		}
	}
	s.Kill()
	await("link-down", func(e Event) bool { return e.Meta && e.Type == "link-down" && e.Source == s.Addr() })
	s2 := testutil.StartSentinelConf(t, testutil.Binary(t, "redis-sentinel"), s.Conf, s.Port, s.LogFile)
	await("link-up", func(e Event) bool { return e.Meta && e.Type == "link-up" && e.Source == s2.Addr() })
	// Events flow again: SENTINEL SET publishes +set.
	c, err := o.SentinelClient(s2.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Do(ctx, "SENTINEL", "SET", "mym", "quorum", "1").Err(); err != nil {
		t.Fatal(err)
	}
	await("+set", func(e Event) bool { return e.Type == "+set" && e.MasterName == "mym" })
}
