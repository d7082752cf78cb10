package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
)

// idleGrace is how long the client may hold no data connection (none open,
// none being dialled) before its background work stops: subscriptions,
// verification, reconciliation and the sentinel connections. With no data
// connection nothing can be sent to a wrong node, and the next connection
// resolves the master afresh, which starts the background work again.
//
// This is how Close is noticed without a close hook (go-redis v9 has no
// public one) and without sending anything: Close closes every pooled
// connection, the last one starts this grace, and the goroutines are gone
// idleGrace later. It also means that nothing ties the client's machinery
// to the *redis.Client pointer that NewFailoverClient returned: every value
// derived from it (WithTimeout, Conn, pipelines, PubSub) shares the pool,
// and the machinery lives as long as the pool has connections.
//
// When the last connection went away because it failed (EOF, reset,
// timeout) or was retired by a master change, the client is in the middle
// of an outage or a failover, and an application that writes rarely may
// have no dial in flight for a while: the background work then stays for
// failGrace, so that its subscriptions keep listening for the switch.
const (
	idleGrace = 100 * time.Millisecond
	failGrace = 10 * time.Second
)

// activation is the lifetime of one period of background work: from the
// first dial after an idle period to idleGrace after the last data
// connection closed.
type activation struct {
	ctx     context.Context
	cancel  context.CancelFunc
	started bool // goroutines started (first successful dial)
}

// beginDial registers a dial in progress (it keeps the background work
// alive) and returns the function that ends it. A failed dial counts as a
// failed connection for the idle stop: the client is in an outage (or
// starting while the sentinels are slow) and its next command will dial
// again, so the sentinel connections opened for this one are kept for
// failGrace instead of being closed and dialled again (measured: a fleet
// of 1000 clients starting on a loaded box opened ≈ 20 sentinel
// connections per client that way).
func (r *resolver) beginDial() func(failed bool) {
	r.mu.Lock()
	r.dialing++
	r.activateLocked()
	r.mu.Unlock()
	return func(failed bool) {
		r.mu.Lock()
		r.dialing--
		if failed && len(r.conns) == 0 {
			r.lastCloseFailed = true
		}
		r.maybeIdleLocked()
		r.mu.Unlock()
	}
}

// activateLocked makes sure an activation exists and cancels a pending
// idle stop. The caller holds r.mu.
func (r *resolver) activateLocked() {
	if r.idleTimer != nil {
		r.idleTimer.Stop()
		r.idleTimer = nil
	}
	if r.act == nil && r.ctx.Err() == nil {
		ctx, cancel := context.WithCancel(r.ctx)
		r.act = &activation{ctx: ctx, cancel: cancel}
	}
}

// actCtx returns the context of the current activation (the resolver's
// own context when there is none, e.g. in unit tests). The caller holds
// r.mu.
func (r *resolver) actCtxLocked() context.Context {
	if r.act != nil {
		return r.act.ctx
	}
	return r.ctx
}

// maybeIdleLocked arms the idle stop when no data connection is open or
// being dialled. The caller holds r.mu.
func (r *resolver) maybeIdleLocked() {
	if r.act == nil || len(r.conns) > 0 || r.dialing > 0 || r.idleTimer != nil {
		return
	}
	act := r.act
	r.idleSince = time.Now()
	r.idleTimer = time.AfterFunc(idleGrace, func() { r.idleFired(act) })
}

// idleFired stops the background work of act if the client is still
// idle: at once when the client was closed or went idle normally, after
// failGrace when its last connection failed (an outage).
func (r *resolver) idleFired(act *activation) {
	closed := r.clientClosed()
	r.mu.Lock()
	if r.act != act || len(r.conns) > 0 || r.dialing > 0 {
		r.mu.Unlock()
		return
	}
	if left := failGrace - time.Since(r.idleSince); !closed && r.lastCloseFailed && left > 0 {
		// Checked again every idleGrace, so that a Close during the
		// grace is noticed within idleGrace.
		r.idleTimer = time.AfterFunc(min(left, idleGrace), func() { r.idleFired(act) })
		r.mu.Unlock()
		return
	}
	r.idleTimer = nil
	r.act = nil
	act.cancel()
	// Nothing watches the master any more: the next connection asks.
	r.valid = false
	r.dropSpareLocked()
	subs := r.subConns
	r.subConns = map[net.Conn]struct{}{}
	if c := r.inflight; c != nil && c.pending != nil {
		// Nobody waits for a paced resolution any more.
		c.pending.Stop()
		c.pending = nil
		c.cancel = func() {}
		c.err = errIdle
		r.inflight = nil
		close(c.done)
	}
	r.mu.Unlock()
	for c := range subs {
		c.Close()
	}
	r.spool.closeAll()
	if closed {
		r.shutdown()
	}
}

// clientClosed reports whether the client (any value sharing its pool)
// was closed, without sending anything: go-redis's autopipeliner getter
// of a private WithTimeout clone returns redis.ErrClosed once the shared
// pools started closing, and the instance it builds otherwise (one idle
// goroutine, no connection) reports IsClosed from then on. No command, no
// hook.
func (r *resolver) clientClosed() bool {
	r.probeMu.Lock()
	defer r.probeMu.Unlock()
	if r.probe == nil {
		return false
	}
	if r.ap != nil {
		return r.ap.IsClosed()
	}
	ap, err := r.probe.AutoPipelineWithOptions(&redis.AutoPipelineOptions{MaxBatchSize: 1, MaxConcurrentBatches: 1})
	if errors.Is(err, redis.ErrClosed) {
		return true
	}
	r.ap = ap
	return false
}

// errIdle ends a paced resolution that nobody waits for when the client
// went idle.
var errIdle = errors.New("client: idle, resolution not needed")

// startBackground starts, at the first successful dial of an activation,
// the lifecycle goroutine (reconciliation, verification) and the pub/sub
// subscribers.
func (r *resolver) startBackground() {
	r.mu.Lock()
	act := r.act
	if act == nil || act.started || act.ctx.Err() != nil {
		r.mu.Unlock()
		return
	}
	act.started = true
	r.wg.Add(1)
	go r.run(act.ctx)
	if !r.opt.DisablePubSub {
		// One subscriber per wanted subscription, each on its own
		// sentinel (seeds or learnt ones); a subscriber without a free
		// sentinel waits for the list to grow. The first one is the
		// "primary": it proves the event path live (see verify.go).
		for i := 0; i < r.opt.PubSubSentinels; i++ {
			r.wg.Add(1)
			go r.subscriber(act.ctx, i == 0)
		}
	}
	r.mu.Unlock()
}

// run is the lifecycle loop of one activation: it verifies the master
// every VerifyInterval while the event path is not proven live, and
// re-checks it with the sentinels at this client's reconciliation slots
// (see reconcileSlot), unless they were asked recently (see askedRecently).
func (r *resolver) run(ctx context.Context) {
	defer r.wg.Done()
	nextReconcile := r.reconcileSlot(time.Now())
	deferred := false // nextReconcile is a late slot moved by lateSlot
	nextVerify := r.nextVerify()
	for ctx.Err() == nil {
		wakeAt := time.Now().Add(sentinelIdleTimeout / 4)
		for _, t := range []time.Time{nextReconcile, nextVerify} {
			if !t.IsZero() && t.Before(wakeAt) {
				wakeAt = t
			}
		}
		poked := r.idle(ctx, wakeAt)
		now := time.Now()
		r.spool.reap(now)
		if !nextReconcile.IsZero() && !now.Before(nextReconcile) {
			if !deferred {
				if at, ok := r.lateSlot(nextReconcile, now); ok {
					nextReconcile, deferred = at, true
					continue
				}
			}
			deferred = false
			switch {
			case !r.hasAddr() && r.want != roleSlave:
			case r.askedRecently(now):
				r.stats.reconcilesSkipped.Add(1)
			default:
				r.reconcile(ctx)
			}
			// The next slot is counted from now, not from the slot
			// just served: a loop woken late (a starved process)
			// keeps its phase and does not catch up with a burst.
			nextReconcile = r.reconcileSlot(time.Now())
			nextVerify = r.nextVerify()
			continue
		}
		if !nextVerify.IsZero() && (poked || !now.Before(nextVerify)) {
			if !r.eventPathLive(now) {
				r.verify(ctx)
			}
			nextVerify = r.nextVerify()
		}
	}
}

// reconcile re-checks the master with the sentinels (the safety net for
// lost events). When the best answer confirms the current master nothing
// else happens: no ROLE probe, so an idle client sends nothing to the data
// node (its pooled connections were verified when opened). Any other
// outcome runs a full resolution.
func (r *resolver) reconcile(ctx context.Context) {
	r.stats.reconciles.Add(1)
	r.check(ctx)
	r.mu.Lock()
	r.reconciledAt = time.Now()
	r.mu.Unlock()
}

// lateSlot spreads a reconciliation slot served late: when the loop wakes
// more than a twentieth of ReconcileInterval after slot (a process
// starved of CPU, whose goroutines run seconds late and all at once), the
// reconciliation moves to a random moment within the next half interval
// (at reports it, ok true) instead of running now together with every
// other client's overdue slot (measured, 1000 clients at one core and 12
// busy loops: 703 reconciliations in one second after a start-up in which
// they had run late). It is not moved twice: it runs then, whatever the
// time, so a late slot costs at most half an interval more.
func (r *resolver) lateSlot(slot, now time.Time) (at time.Time, ok bool) {
	iv := r.opt.ReconcileInterval
	if iv <= 0 || now.Sub(slot) <= iv/20 {
		return time.Time{}, false
	}
	return now.Add(time.Duration(rand.Int64N(int64(iv)/2 + 1))), true
}

// askedRecently reports whether the sentinels were asked about the master
// within half the ReconcileInterval before now: a resolution is running or
// ended then (whatever its outcome: a failed one is paced and retried by
// itself), or a reconciliation ended then. A reconciliation at this slot
// would only repeat that answer; it is skipped, and the master is still
// re-checked at least every 1.5 × ReconcileInterval (plus a late slot's
// move, see lateSlot). Without this, a
// fleet that just resolved together (a failover, a start-up) re-asked the
// sentinels for nothing (measured: 1278 reconciliations beside 1935
// resolutions in one 9 s failover window of 1000 clients).
func (r *resolver) askedRecently(now time.Time) bool {
	fresh := r.opt.ReconcileInterval / 2
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.inflight != nil || now.Sub(r.lastEnd) < fresh || now.Sub(r.reconciledAt) < fresh
}

// check asks the sentinels and runs a full resolution unless their best
// answer confirms the current master.
func (r *resolver) check(ctx context.Context) {
	if !r.checking.CompareAndSwap(false, true) {
		return // one check at a time (several subscriptions come up together)
	}
	defer r.checking.Store(false)
	r.mu.Lock()
	cur, busy := r.addr, r.inflight != nil
	r.mu.Unlock()
	if r.want == roleMaster && !busy && cur != "" {
		answers, attempts, notFound := r.ask(ctx)
		if len(answers) == 0 && !notFound && noAnswerKind(attempts, false) == ErrNoSentinelReachable {
			// No sentinel answers: nothing new to learn, and the
			// master is still the one the pooled connections use
			// (a new connection keeps it too, see keepLastKnown).
			return
		}
		if len(answers) > 0 && r.preferEarly(candidates(answers))[0] == cur {
			r.mu.Lock()
			if r.addr == cur {
				r.epoch = max(r.epoch, answerEpoch(answers, cur, r.corroborationLocked()))
			}
			r.mu.Unlock()
			return
		}
	}
	_ = r.resolveShared(ctx)
}

// reconcileSlot returns this client's first reconciliation slot after t,
// or zero when reconciliation is disabled. The slots are ReconcileInterval
// apart on the wall clock, at the client's own phase (reconcilePhase,
// drawn once when the client is built): a fleet whose clients start, or
// resolve, at the same moment spreads its reconciliations evenly over the
// interval instead of asking the sentinels in bursts. Before, each
// client reconciled ReconcileInterval ± 20 % after its activation, then
// after its previous reconciliation ended: 1000 clients activated within
// a second by a slow sentinel reconciled ≈ 250 per second, and a loaded
// machine, waking many late timers at once, kept them bunched (measured:
// 220 reconciliations in one second at one core and 12 busy loops).
func (r *resolver) reconcileSlot(t time.Time) time.Time {
	iv := r.opt.ReconcileInterval
	if iv <= 0 {
		return time.Time{}
	}
	into := time.Duration(t.UnixNano() % int64(iv))
	d := (r.reconcilePhase%iv - into + iv) % iv
	if d == 0 {
		d = iv
	}
	return t.Add(d)
}

func (r *resolver) hasAddr() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addr != ""
}

// idle waits until t, a poke (a subscription died) or the end of ctx; it
// reports whether it was poked.
func (r *resolver) idle(ctx context.Context, t time.Time) bool {
	tm := time.NewTimer(time.Until(t))
	defer tm.Stop()
	select {
	case <-tm.C:
	case <-r.poke:
		return true
	case <-ctx.Done():
	}
	return false
}

// pokeRun wakes the lifecycle loop (a subscription was lost: verify now).
func (r *resolver) pokeRun() {
	select {
	case r.poke <- struct{}{}:
	default:
	}
}

// connClosed is called when go-redis closes one of our connections; the
// last one arms the idle stop.
func (r *resolver) connClosed(c *trackedConn) {
	r.mu.Lock()
	delete(r.conns, c)
	r.lastCloseFailed = c.failed.Load() || c.stale.Load()
	r.maybeIdleLocked()
	r.mu.Unlock()
}

// shutdown releases every goroutine and sentinel connection of the
// resolver for good (unit tests; the client itself stops through the idle
// grace). It does not wait: goroutines observe the cancelled context at
// once.
func (r *resolver) shutdown() {
	r.once.Do(func() {
		r.cancel()
		r.mu.Lock()
		if r.idleTimer != nil {
			r.idleTimer.Stop()
			r.idleTimer = nil
		}
		r.act = nil
		r.dropSpareLocked()
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
		r.spool.closeAll()
	})
}
