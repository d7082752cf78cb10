package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// checkInterval is how often the background goroutine checks, while idle,
// whether the *redis.Client was closed (a connection close wakes it at once;
// this bounds the delay when the pool held no connection at Close time).
const checkInterval = time.Second

// subscription is the pub/sub connection to one sentinel.
type subscription struct {
	rc   *respConn
	addr string
}

// startBackground starts the background goroutine once, at the first
// successful dial of a master client: it keeps the +switch-master
// subscription (hint only), runs the periodic reconciliation, and notices
// when the *redis.Client has been closed.
func (r *resolver) startBackground() {
	if r.want != roleMaster || (r.opt.DisablePubSub && r.opt.ReconcileInterval < 0) {
		return
	}
	r.bgOnce.Do(func() {
		r.wg.Add(1)
		go r.run()
	})
}

func (r *resolver) run() {
	defer r.wg.Done()
	var sub *subscription
	defer func() {
		if sub != nil {
			sub.rc.Close()
		}
	}()
	subFails := 0
	var nextSub time.Time
	nextReconcile := r.nextReconcile()
	for !r.closed() {
		if r.clientGone() {
			r.shutdown()
			return
		}
		if !r.opt.DisablePubSub && sub == nil && !time.Now().Before(nextSub) {
			s, err := r.subscribe()
			if err != nil {
				subFails++
				nextSub = time.Now().Add(backoff(subFails, 100*time.Millisecond, 5*time.Second))
			} else {
				subFails = 0
				sub = s
				if r.hasAddr() {
					// Catch up on anything missed while unsubscribed.
					_ = r.resolveShared(r.ctx)
				}
			}
		}
		wakeAt := time.Now().Add(checkInterval)
		if !nextReconcile.IsZero() && nextReconcile.Before(wakeAt) {
			wakeAt = nextReconcile
		}
		if sub == nil && !r.opt.DisablePubSub && nextSub.Before(wakeAt) {
			wakeAt = nextSub
		}
		if sub != nil {
			if err := r.readSub(sub, wakeAt); err != nil {
				sub.rc.Close()
				r.setSubConn(nil)
				sub = nil
				nextSub = time.Now().Add(backoff(0, 50*time.Millisecond, 100*time.Millisecond))
			}
		} else {
			r.idle(wakeAt)
		}
		if !nextReconcile.IsZero() && !time.Now().Before(nextReconcile) {
			if r.hasAddr() {
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

// subscribe connects to the first sentinel (in list order) that accepts
// SUBSCRIBE +switch-master.
func (r *resolver) subscribe() (*subscription, error) {
	r.mu.Lock()
	order := append([]string(nil), r.sentinels...)
	r.mu.Unlock()
	var errs []error
	for _, s := range order {
		if r.closed() {
			return nil, ErrClientClosed
		}
		deadline := deadlineFor(r.ctx, r.opt.SentinelTimeout)
		c, err := dialWith(r.ctx, r.opt.SentinelDialer, r.opt.SentinelTLSConfig, s, deadline)
		if err != nil {
			errs = append(errs, &SentinelError{Addr: s, Err: err})
			continue
		}
		rc := newRespConn(c)
		cmds := [][]string{{"SUBSCRIBE", "+switch-master"}}
		if auth := authCmd(r.opt.SentinelUsername, r.opt.SentinelPassword); auth != nil {
			cmds = append([][]string{auth}, cmds...)
		}
		rs, err := rc.do(deadline, cmds...)
		if err == nil {
			for _, x := range rs {
				if e := x.err(); e != nil {
					err = e
				}
			}
		}
		if err != nil {
			c.Close()
			errs = append(errs, &SentinelError{Addr: s, Err: err})
			continue
		}
		if !r.setSubConn(c) {
			c.Close()
			return nil, ErrClientClosed
		}
		return &subscription{rc: rc, addr: s}, nil
	}
	return nil, &DiscoveryError{Kind: ErrNoSentinelReachable, Master: r.opt.MasterName, Attempts: errs}
}

// setSubConn records the pub/sub connection so shutdown and pokes can
// interrupt its blocking read; it reports false after shutdown.
func (r *resolver) setSubConn(c interface {
	Close() error
	SetReadDeadline(time.Time) error
}) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c == nil {
		r.subConn = nil
		return true
	}
	if r.closed() {
		return false
	}
	r.subConn = c
	return true
}

// readSub reads pub/sub messages until t. A timeout at a message boundary
// is not an error; anything else ends the subscription.
func (r *resolver) readSub(s *subscription, t time.Time) error {
	if err := s.rc.SetReadDeadline(t); err != nil {
		return err
	}
	for {
		m, started, err := readReply(s.rc.br, 0)
		if err != nil {
			if !started && errors.Is(err, os.ErrDeadlineExceeded) {
				return nil
			}
			return err
		}
		if m.typ != '*' || len(m.arr) != 3 || m.arr[0].str != "message" {
			continue
		}
		r.onSwitchMaster(m.arr[2].str)
	}
}

// onSwitchMaster handles a +switch-master payload
// "<name> <old-ip> <old-port> <new-ip> <new-port>": for our master it only
// wakes the resolver; the new address still comes from a sentinel query
// verified with ROLE.
func (r *resolver) onSwitchMaster(payload string) {
	f := strings.Fields(payload)
	if len(f) < 1 || f[0] != r.opt.MasterName {
		return
	}
	r.stats.pubSubHints.Add(1)
	r.hint()
	_ = r.resolveShared(r.ctx)
}

// connClosed is called when go-redis closes one of our connections; it
// wakes the background goroutine so it can check whether the whole client
// was closed.
func (r *resolver) connClosed(c *trackedConn) {
	r.mu.Lock()
	delete(r.conns, c)
	sub := r.subConn
	r.mu.Unlock()
	select {
	case r.poke <- struct{}{}:
	default:
	}
	if sub != nil {
		if d, ok := sub.(interface{ SetReadDeadline(time.Time) error }); ok {
			_ = d.SetReadDeadline(time.Now())
		}
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
		sub := r.subConn
		r.subConn = nil
		r.mu.Unlock()
		if sub != nil {
			sub.Close()
		}
		registry.Delete(r.key)
	})
}
