package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
)

// checkInterval is how often the background goroutine checks, while idle,
// whether the *redis.Client was closed (a connection close wakes it at once;
// this bounds the delay when the pool held no connection at Close time).
const checkInterval = time.Second

// startBackground starts, once and at the first successful dial, the
// lifecycle goroutine (reconciliation, closed-client detection) and the
// pub/sub subscribers.
func (r *resolver) startBackground() {
	r.bgOnce.Do(func() {
		r.wg.Add(1)
		go r.run()
		if !r.opt.DisablePubSub {
			// One subscriber per wanted subscription, each on its own
			// sentinel (seeds or learnt ones); a subscriber without a
			// free sentinel waits for the list to grow.
			for i := 0; i < r.opt.PubSubSentinels; i++ {
				r.wg.Add(1)
				go r.subscriber()
			}
		}
	})
}

// run is the lifecycle loop: it re-resolves every ReconcileInterval and
// shuts the resolver down once the *redis.Client is closed.
func (r *resolver) run() {
	defer r.wg.Done()
	nextReconcile := r.nextReconcile()
	for !r.closed() {
		if r.clientGone() {
			r.shutdown()
			return
		}
		wakeAt := time.Now().Add(checkInterval)
		if !nextReconcile.IsZero() && nextReconcile.Before(wakeAt) {
			wakeAt = nextReconcile
		}
		r.idle(wakeAt)
		if !nextReconcile.IsZero() && !time.Now().Before(nextReconcile) {
			if r.hasAddr() || r.want == roleSlave {
				r.stats.reconciles.Add(1)
				_ = r.resolveShared(r.ctx)
			}
			nextReconcile = r.nextReconcile()
		}
	}
}

// nextReconcile returns the next reconciliation time (±20 % jitter), or
// zero when reconciliation is disabled.
func (r *resolver) nextReconcile() time.Time {
	if r.opt.ReconcileInterval < 0 {
		return time.Time{}
	}
	iv := r.opt.ReconcileInterval
	j := time.Duration(rand.Int64N(int64(iv)/5*2+1)) - iv/5
	return time.Now().Add(iv + j)
}

func (r *resolver) hasAddr() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addr != ""
}

// idle waits until t, a poke (a connection was closed) or shutdown.
func (r *resolver) idle(t time.Time) {
	tm := time.NewTimer(time.Until(t))
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-r.poke:
	case <-r.ctx.Done():
	}
}

// connClosed is called when go-redis closes one of our connections; it
// wakes the lifecycle goroutine so it can check whether the whole client
// was closed.
func (r *resolver) connClosed(c *trackedConn) {
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
	select {
	case r.poke <- struct{}{}:
	default:
	}
}

// clientGone reports whether the *redis.Client was closed (or collected):
// a command with an already-cancelled context fails with redis.ErrClosed on
// a closed client before any I/O, and with the context error otherwise.
func (r *resolver) clientGone() bool {
	rdb := r.rdb.Value()
	if rdb == nil {
		return true
	}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), probeKey{}, true))
	cancel()
	return errors.Is(rdb.Ping(ctx).Err(), redis.ErrClosed)
}

// shutdown releases every goroutine and sentinel connection of the client.
// It does not wait: goroutines observe the cancelled context at once.
func (r *resolver) shutdown() {
	r.once.Do(func() {
		r.cancel()
		r.mu.Lock()
		subs := r.subConns
		r.subConns = map[net.Conn]struct{}{}
		if c := r.inflight; c != nil && c.pending != nil {
			// A paced resolution that has not started: end it now
			// (ErrClientClosed) rather than when its timer fires.
			c.pending.Stop()
			r.launchLocked(c)
		}
		r.mu.Unlock()
		for c := range subs {
			c.Close()
		}
		registry.Delete(r.key)
	})
}
