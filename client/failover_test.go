package client

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// writer sends SET w:<i> every millisecond and records which keys were
// acknowledged and when.
type writer struct {
	mu     sync.Mutex
	acked  map[string]time.Time // key → when the write was issued (acknowledged writes only)
	failed int
	first  time.Time // first ack after mark
	mark   time.Time
	stop   chan struct{}
	done   chan struct{}
}

func startWriter(t *testing.T, rdb *redis.Client) *writer {
	w := &writer{acked: map[string]time.Time{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for i := 0; ; i++ {
			select {
			case <-w.stop:
				return
			default:
			}
			k := fmt.Sprintf("w:%d", i)
			issued := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := rdb.Set(ctx, k, i, 0).Err()
			cancel()
			now := time.Now()
			w.mu.Lock()
			if err == nil {
				w.acked[k] = issued
				if !w.mark.IsZero() && w.first.IsZero() {
					w.first = now
				}
			} else {
				w.failed++
			}
			w.mu.Unlock()
			time.Sleep(time.Millisecond) // the write rate under test: one per ms
		}
	}()
	t.Cleanup(w.halt)
	return w
}

func (w *writer) halt() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
}

func (w *writer) setMark() {
	w.mu.Lock()
	w.mark = time.Now()
	w.first = time.Time{}
	w.mu.Unlock()
}

func (w *writer) recovered() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.first.IsZero()
}

// checkLanded verifies that every acknowledged write issued after since is
// on the master at addr (a write issued after the old master's death, or
// after the client's switch, can only have been acknowledged elsewhere).
func checkLanded(t *testing.T, w *writer, addr string, since time.Time) int {
	t.Helper()
	m := redis.NewClient(&redis.Options{Addr: addr})
	defer m.Close()
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for k, at := range w.acked {
		if at.Before(since) {
			continue
		}
		n++
		if err := m.Get(context.Background(), k).Err(); err != nil {
			t.Errorf("key %s issued at %v and acknowledged is not on the master %s: %v", k, at.Format(time.StampMilli), addr, err)
		}
	}
	return n
}

// TestFailoverSIGKILL kills the master under continuous writes and checks
// that the client follows the sentinels' failover, with and without the
// +switch-master subscription.
func TestFailoverSIGKILL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		pubsub bool
	}{{"with pubsub", true}, {"pubsub lost", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := startCluster(t, 2, 3)
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: c.sentinelAddrs(), DisablePubSub: !tc.pubsub,
				ReconcileInterval: -1})
			w := startWriter(t, rdb)
			testutil.WaitFor(t, 5*time.Second, "first writes", func() bool {
				w.mu.Lock()
				defer w.mu.Unlock()
				return len(w.acked) > 10
			})
			old := c.top.Master.Addr()
			kill := time.Now()
			c.top.Master.Kill()
			w.setMark() // after the exit: later acknowledgements come from elsewhere
			testutil.WaitFor(t, 30*time.Second, "a write acknowledged after the kill", w.recovered)
			testutil.WaitFor(t, 10*time.Second, "the client on a new master", func() bool {
				st, _ := StatsOf(rdb)
				return st.CurrentAddr != old && st.CurrentAddr != ""
			})
			w.mu.Lock()
			recovery := w.first.Sub(kill)
			failed := w.failed
			w.mu.Unlock()
			st, _ := StatsOf(rdb)
			if st.CurrentAddr == old || st.CurrentAddr == "" {
				t.Fatalf("client still on %q after the failover", st.CurrentAddr)
			}
			if role, err := testutil.Role(st.CurrentAddr); err != nil || role != "master" {
				t.Fatalf("client's master %s has role %q (%v)", st.CurrentAddr, role, err)
			}
			w.halt()
			n := checkLanded(t, w, st.CurrentAddr, w.mark)
			t.Logf("kill → first write %v, failed writes %d, %d writes checked on %s, stats %+v", recovery, failed, n, st.CurrentAddr, st)
			if tc.pubsub && st.PubSubHints == 0 {
				t.Errorf("no +switch-master hint received with pub/sub enabled")
			}
			if !tc.pubsub && st.PubSubHints != 0 {
				t.Errorf("pub/sub hints with pub/sub disabled")
			}
		})
	}
}

// TestManualFailover runs SENTINEL FAILOVER with the old master alive: the
// client must leave the old master (demoted to replica) and keep writing,
// with pub/sub hints, and without them (then it learns from the old
// master's READONLY replies or from Sentinel's CLIENT KILL).
func TestManualFailover(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		pubsub bool
	}{{"with pubsub", true}, {"pubsub off: READONLY / CLIENT KILL path", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := startCluster(t, 1, 3)
			var mu sync.Mutex
			var switched time.Time
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: c.sentinelAddrs(), ReconcileInterval: -1,
				DisablePubSub: !tc.pubsub,
				OnMasterChange: func(old, new string) {
					if old != "" {
						mu.Lock()
						switched = time.Now()
						mu.Unlock()
					}
				}})
			w := startWriter(t, rdb)
			testutil.WaitFor(t, 5*time.Second, "first writes", func() bool {
				w.mu.Lock()
				defer w.mu.Unlock()
				return len(w.acked) > 10
			})
			sc := redis.NewClient(&redis.Options{Addr: c.sentinels[0].Addr()})
			defer sc.Close()
			if err := sc.Do(context.Background(), "SENTINEL", "FAILOVER", c.name).Err(); err != nil {
				t.Fatalf("SENTINEL FAILOVER: %v", err)
			}
			newAddr := c.top.Replicas[0].Addr()
			testutil.WaitFor(t, 30*time.Second, "client on the promoted replica", func() bool {
				st, _ := StatsOf(rdb)
				return st.CurrentAddr == newAddr
			})
			w.setMark()
			testutil.WaitFor(t, 10*time.Second, "a write after the switch", w.recovered)
			w.halt()
			mu.Lock()
			since := switched
			mu.Unlock()
			n := checkLanded(t, w, newAddr, since)
			if n == 0 {
				t.Fatal("no write acknowledged after the switch")
			}
			st, _ := StatsOf(rdb)
			if !tc.pubsub && st.PubSubHints != 0 {
				t.Errorf("pub/sub hints with pub/sub disabled")
			}
			t.Logf("%d writes after the switch, failed writes %d, stats %+v", n, w.failed, st)
		})
	}
}
