package faultlab

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// sentinelEvent is one pub/sub message of a sentinel, as a schedule sees it.
type sentinelEvent struct {
	Host, Channel, Payload string
	At                     time.Time
}

// eventWatch follows every message the sentinels of some hosts publish
// (PSUBSCRIBE *, from the observer host), for schedules that act on a
// failover state (B3). The runner's sampler records the same events for
// the checker; this is the schedule's own, live copy.
type eventWatch struct {
	C      chan sentinelEvent
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// watchSentinelEvents subscribes to the sentinels of hosts; stop ends it.
func watchSentinelEvents(ctx context.Context, t *Topology, hosts []string) *eventWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &eventWatch{C: make(chan sentinelEvent, 4096), cancel: cancel}
	dial := t.Dialer("obs")
	for _, h := range hosts {
		c := redis.NewClient(&redis.Options{Addr: t.SentinelAddr(h), Protocol: 2, MaxRetries: -1,
			DialTimeout: 500 * time.Millisecond, ReadTimeout: 500 * time.Millisecond, WriteTimeout: 500 * time.Millisecond,
			Dialer: func(ctx context.Context, network, a string) (net.Conn, error) {
				return dial(ctx, network, a)
			}})
		w.wg.Add(1)
		go func(h string) {
			defer w.wg.Done()
			defer c.Close()
			for ctx.Err() == nil {
				ps := c.PSubscribe(ctx, "*")
				for ctx.Err() == nil {
					m, err := ps.ReceiveTimeout(ctx, time.Second)
					if err != nil {
						if ne, ok := err.(net.Error); ok && ne.Timeout() {
							continue
						}
						break
					}
					if msg, ok := m.(*redis.Message); ok {
						select {
						case w.C <- sentinelEvent{Host: h, Channel: msg.Channel, Payload: msg.Payload, At: time.Now()}:
						default: // a slow schedule loses events rather than blocking
						}
					}
				}
				ps.Close()
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
			}
		}(h)
	}
	return w
}

func (w *eventWatch) stop() {
	w.cancel()
	w.wg.Wait()
}

// expectExit marks the named process's exit as intended (a simulated
// crash the schedule asked for), so it is not reported as a crash.
func (t *Topology) expectExit(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p := t.procs[name]; p != nil {
		t.expected[p] = true
	}
}
