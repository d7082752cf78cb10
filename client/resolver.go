package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// maxSentinels caps the in-memory sentinel list (seeds + discovered).
const maxSentinels = 64

// resolver owns everything that decides which node the data connections of
// one client go to: the sentinel list, the cached verified address, the
// generation of the address, the live connections, and the background
// goroutines.
type resolver struct {
	opt   FailoverOptions
	want  string // roleMaster or roleSlave
	stats counters

	ctx    context.Context // cancelled by shutdown
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
	cbMu   sync.Mutex // serialises OnMasterChange

	mu         sync.Mutex
	sentinels  sentinelList
	addr       string        // current verified address ("" before the first resolution)
	gen        uint64        // bumped on every address change
	genA       atomic.Uint64 // copy of gen for the per-command hot path
	valid      bool          // cache usable
	suspect    bool          // a connection to addr failed (or READONLY/MASTERDOWN) since it was verified: see ask
	verifiedAt time.Time     // when addr was last confirmed by a resolution
	replicas   []replicaInfo // replica mode: last list, usable entries only
	inflight   *call         // singleflight resolution
	launches   uint64        // resolutions launched so far (see namedOther)
	hintSeq    uint64        // bumped by every hint; a resolution started before a hint cannot answer for it
	epoch      int64         // config epoch backing addr (-1 unknown)
	fenced     bool          // a hint named addr as the old master; its connections were retired
	fenceSeq   uint64        // hintSeq of that hint
	left       []leftMaster  // masters the client switched away from (see leftmaster.go)
	kept       bool          // no sentinel answered: addr (or the replica list) was kept, see keepLastKnown
	subscribed map[string]bool
	meta       map[string]*sentinelMeta
	lastEnd    time.Time // end of the last resolution
	// reconciledAt is the end of the last reconciliation (see
	// askedRecently); reconcilePhase is this client's offset in
	// the ReconcileInterval (see reconcileSlot).
	reconciledAt   time.Time
	reconcilePhase time.Duration
	lastErr        error         // error of the last resolution
	lastTook       time.Duration // how long the last resolution took (sentinel round trips, ROLE probes)
	failStreak     int           // consecutive failed resolutions
	failSince      time.Time     // end of the first of them
	forced         bool          // a hint asked for a resolution: skip the failure gap
	wake           chan struct{} // closed (and replaced) when a resolution ends or a hint arrives
	conns          map[*trackedConn]struct{}
	subConns       map[net.Conn]struct{}    // pub/sub connections, closed on shutdown
	subBy          map[string]*subConn      // live subscription per sentinel (RESP3 ones also carry queries)
	subWait        map[string]chan struct{} // subscription being made per sentinel, closed when the attempt ends
	noResp3        map[string]bool          // sentinels that refused HELLO 3

	// eventAddr is the new master named by the event that fenced the
	// current one (from sentinel eventFrom), for the resolution started
	// by that hint (hintSeq eventSeq): it is verified with ROLE before
	// any sentinel query (see eventSwitch).
	eventAddr string
	eventFrom string
	eventSeq  uint64

	following  string    // replica whose promotion is being polled
	earlyFrom  string    // address left by an early switch on promotion
	earlyUntil time.Time // end of that switch's grace period

	act       *activation   // current period of background work (nil when idle)
	dialing   int           // dials in progress
	idleTimer *time.Timer   // armed when no connection is open or being dialled
	poke      chan struct{} // wakes the lifecycle loop (a subscription died)
	spool     sentinelPool  // persistent sentinel query connections
	liveUntil time.Time     // the primary subscription proved the event path live until then
	// primaryProof, primaryHeard, primaryFlagged: the primary
	// subscription's sentinel proof, last frame and overdue health check
	// (see liveLocked).
	primaryProof   *sentinelProof
	primaryHeard   time.Time
	primaryFlagged bool
	checking       atomic.Bool  // a check (reconcile, catch-up) is running
	replyTime      atomic.Int64 // the sentinels' recent reply time, ns (see noteReply)
	// lastCloseFailed: the last data connection closed had failed or
	// was retired (the idle stop then waits failGrace).
	lastCloseFailed bool
	idleSince       time.Time // when the idle stop was armed

	// onReplicas, when set (NewFailoverClusterClient), is called after a
	// replica resolution changed the list of usable replicas.
	onReplicas func()
	// invalid, when set, fails every new connection (options that this
	// constructor cannot honour, see validate).
	invalid error

	// hintCtx is cancelled (and replaced) by every hint: work that a
	// hint makes pointless (a ROLE probe on a node that does not
	// answer) watches it.
	hintCtx    context.Context
	hintCancel context.CancelFunc

	// spare is the connection the last resolution verified the master
	// on (ROLE on a fresh socket), handed to the next dial instead of
	// dialling and verifying again.
	spare *spareConn

	probeMu sync.Mutex
	probe   *redis.Client        // private WithTimeout clone, for clientClosed
	ap      *redis.AutoPipeliner // built by clientClosed on an open client
}

// call is one in-flight resolution that concurrent callers share.
type call struct {
	done       chan struct{}
	err        error
	seq        uint64 // hintSeq when it started
	cancel     context.CancelFunc
	superseded bool        // a hint arrived: cancelled, its outcome is ignored (guarded by resolver.mu)
	pending    *time.Timer // paced: not started yet, the timer starts it (guarded by resolver.mu)
	// recheck is the master a verification answer named while this
	// resolution ran (it was not cancelled, being newer than the
	// query): when the resolution ends on another address, the answer
	// is acted on then (see namedOther). Guarded by resolver.mu.
	recheck string
	// recheckFrom and recheckWhat describe that answer for the log.
	recheckFrom, recheckWhat string
}

func newResolver(opt FailoverOptions, want string) *resolver {
	ctx, cancel := context.WithCancel(context.Background())
	r := &resolver{
		opt:        opt,
		want:       want,
		ctx:        ctx,
		cancel:     cancel,
		epoch:      -1,
		wake:       make(chan struct{}),
		conns:      make(map[*trackedConn]struct{}),
		poke:       make(chan struct{}, 1),
		subConns:   make(map[net.Conn]struct{}),
		subBy:      make(map[string]*subConn),
		subWait:    make(map[string]chan struct{}),
		noResp3:    make(map[string]bool),
		subscribed: make(map[string]bool),
		meta:       make(map[string]*sentinelMeta),
	}
	if iv := opt.ReconcileInterval; iv > 0 {
		r.reconcilePhase = time.Duration(rand.Int64N(int64(iv)))
	}
	now := time.Now()
	for _, s := range rotate(opt.SentinelAddrs, opt.SentinelOrderFixed) {
		if r.sentinels.add([]string{s}) > 0 {
			r.meta[s] = &sentinelMeta{seed: true, seen: now}
		}
	}
	return r
}

// log sends one of the client's own events to FailoverOptions.Logger.
func (r *resolver) log(level slog.Level, msg string, args ...any) {
	if l := r.opt.Logger; l != nil {
		l.Log(context.Background(), level, "gosentinel client: "+msg, append([]any{"master", r.opt.MasterName}, args...)...)
	}
}

// rotate returns addrs rotated by a random offset (unless fixed): each
// client starts its "try in order" list at another seed, so a fleet
// spreads over the sentinels, while the cyclic order (the operator's
// preference) and "first responder to the front" are kept.
func rotate(addrs []string, fixed bool) []string {
	if fixed || len(addrs) < 2 {
		return addrs
	}
	k := rand.IntN(len(addrs))
	return append(append([]string(nil), addrs[k:]...), addrs[:k]...)
}

// closed reports whether shutdown has started.
func (r *resolver) closed() bool { return r.ctx.Err() != nil }

// current returns the cached address, its generation and whether it may be
// used without asking the sentinels.
func (r *resolver) current() (addr string, gen uint64, fresh bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fresh = r.valid && r.addr != "" && r.cacheFreshLocked()
	return r.addr, r.gen, fresh
}

// cacheFreshLocked reports whether the verified address (or replica list)
// may be used for a new connection without asking the sentinels: within
// ResolveCacheTTL of its last confirmation, or, while no sentinel answers
// (kept), until one does (every new connection still verifies ROLE; the
// lifecycle loop keeps asking the sentinels). The caller holds r.mu.
func (r *resolver) cacheFreshLocked() bool {
	if r.opt.ResolveCacheTTL <= 0 {
		return false
	}
	return r.kept || time.Since(r.verifiedAt) < r.opt.ResolveCacheTTL
}

// generation returns the current address generation without locking.
func (r *resolver) generation() uint64 { return r.genA.Load() }

// invalidate drops the cached address if it still has generation gen, so the
// next new connection asks the sentinels again.
func (r *resolver) invalidate(gen uint64) {
	r.mu.Lock()
	if r.gen == gen {
		r.valid = false
		r.suspect = true
	}
	r.mu.Unlock()
}

// hintLocked records a hint (+switch-master or anything else that suggests
// the master moved): it invalidates the cache, wakes waiting dialers and
// makes the next resolution start after it. The caller holds r.mu and then
// calls kick.
// A resolution in flight is abandoned: its answers may predate what the
// hint announced, and waiting for it (e.g. for a slow sentinel) would only
// delay the one that counts.
func (r *resolver) hintLocked() {
	r.hintSeq++
	if r.hintCancel != nil {
		r.hintCancel()
		r.hintCtx, r.hintCancel = nil, nil
	}
	r.valid = false
	r.kept = false
	r.forced = true
	if c := r.inflight; c != nil && c.pending == nil {
		c.superseded = true
		c.cancel()
		r.inflight = nil
	}
	// A paced resolution that has not started yet is started now by the
	// caller's kick: its waiters get an answer that postdates the hint.
	r.broadcastLocked()
}

func (r *resolver) broadcastLocked() {
	close(r.wake)
	r.wake = make(chan struct{})
}

// resolveShared waits for a resolution that started after every hint
// received so far: it joins the one in flight when that one is recent
// enough, and otherwise waits for it and for the one chained after it. The
// resolution itself runs under the client's lifetime context with its own
// deadline, so one caller giving up does not fail the others.
//
// While resolutions keep failing (the master is down and the sentinels have
// not failed over yet) the next one is paced (failGap after the end of the
// last one) and every caller waits for it, bounded by its own ctx, instead
// of sleeping a backoff of its own: the sentinels are asked once per gap
// whatever the number of waiting dialers, and the callers learn the outcome
// the moment it exists. A hint starts the paced resolution at once.
func (r *resolver) resolveShared(ctx context.Context) error {
	r.mu.Lock()
	need := r.hintSeq
	for {
		c := r.inflight
		if c == nil {
			wait := time.Duration(0)
			if r.lastErr != nil && !r.forced {
				wait = jitter(r.failGap()) - time.Since(r.lastEnd)
			}
			if wait > 0 {
				c = r.scheduleLocked(wait)
			} else {
				c = r.startLocked()
			}
		}
		r.mu.Unlock()
		select {
		case <-c.done:
		case <-ctx.Done():
			return fmt.Errorf("waiting for master resolution: %w", ctx.Err())
		}
		r.mu.Lock()
		if c.seq >= need && !c.superseded {
			r.mu.Unlock()
			return c.err
		}
	}
}

// kick starts a resolution unless one is running (after a hint, the one
// running, if any, is always younger than the hint); a paced one that has
// not started yet starts now.
func (r *resolver) kick() {
	r.mu.Lock()
	if r.closed() {
		r.mu.Unlock()
		return
	}
	switch c := r.inflight; {
	case c == nil:
		r.startLocked()
	case c.pending != nil:
		c.pending.Stop()
		r.launchLocked(c)
	}
	r.mu.Unlock()
}

// startLocked starts a resolution; the caller holds r.mu.
func (r *resolver) startLocked() *call {
	c := &call{done: make(chan struct{})}
	r.inflight = c
	r.launchLocked(c)
	return c
}

// scheduleLocked registers a resolution that starts after d (the pacing
// between failed resolutions); callers wait for it like for a running one.
// The caller holds r.mu.
func (r *resolver) scheduleLocked(d time.Duration) *call {
	c := &call{done: make(chan struct{})}
	r.inflight = c
	c.pending = time.AfterFunc(d, func() {
		r.mu.Lock()
		if c.pending != nil && r.inflight == c {
			r.launchLocked(c)
		}
		r.mu.Unlock()
	})
	return c
}

// launchLocked runs resolution c; the caller holds r.mu. After shutdown it
// ends c at once with ErrClientClosed.
func (r *resolver) launchLocked(c *call) {
	c.pending = nil
	r.forced = false
	c.seq = r.hintSeq
	r.launches++
	if r.closed() {
		c.cancel = func() {}
		c.err = ErrClientClosed
		r.inflight = nil
		close(c.done)
		return
	}
	ctx, cancel := context.WithTimeout(r.actCtxLocked(), r.opt.DialTimeout)
	c.cancel = cancel
	r.wg.Add(1)
	go r.runResolution(ctx, c)
}

func (r *resolver) runResolution(ctx context.Context, c *call) {
	defer r.wg.Done()
	defer c.cancel()
	start := time.Now()
	var err error
	if r.want == roleMaster {
		err = r.resolveMaster(ctx, c)
	} else {
		err = r.resolveReplicas(ctx, c)
	}
	r.stats.resolutions.Add(1)
	r.mu.Lock()
	c.err = err
	if c.superseded {
		r.mu.Unlock()
		close(c.done)
		return
	}
	if err != nil {
		r.stats.resolutionErrors.Add(1)
		lvl := slog.LevelDebug
		if r.failStreak == 0 {
			r.failSince = time.Now()
			lvl = slog.LevelWarn
		}
		r.log(lvl, "sentinel resolution failed", "err", err, "streak", r.failStreak+1)
		r.failStreak++
	} else {
		r.failStreak = 0
	}
	r.inflight = nil
	r.lastEnd = time.Now()
	r.lastTook = r.lastEnd.Sub(start)
	r.lastErr = err
	r.broadcastLocked()
	recheck := c.recheck != "" && r.addr != c.recheck && !r.closed()
	if recheck {
		r.hintLocked() // nothing in flight to cancel: inflight is nil
	}
	r.mu.Unlock()
	close(c.done)
	if recheck {
		r.log(slog.LevelInfo, c.recheckWhat+": the resolution that ran ended on another master than a sentinel named: resolving again",
			"sentinel", c.recheckFrom, "current", r.currentAddr(), "named", c.recheck)
		r.kick()
	}
}

// currentAddr returns the current address.
func (r *resolver) currentAddr() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addr
}

// refresh re-resolves because a command on a connection of generation
// seenGen failed in a way that suggests the master moved (READONLY,
// MASTERDOWN, ...). Many pooled connections hit the same error at once; only
// one resolution runs per generation: callers arriving while one is in
// flight join it, and callers arriving right after one ended (within
// MinRoleBackoff) reuse its outcome.
func (r *resolver) refresh(ctx context.Context, seenGen uint64) error {
	r.mu.Lock()
	if r.gen != seenGen {
		r.mu.Unlock()
		return nil // the address already moved on
	}
	r.valid = false
	r.suspect = true
	if r.inflight == nil && time.Since(r.lastEnd) < r.opt.MinRoleBackoff {
		err := r.lastErr
		r.mu.Unlock()
		return err
	}
	r.mu.Unlock()
	return r.resolveShared(ctx)
}

// resolveMaster is one full discovery: ask the sentinels, then verify the
// candidates with ROLE, best epoch first, and commit the first verified one.
// c is the resolution (nil for a switch that is not one).
func (r *resolver) resolveMaster(ctx context.Context, c *call) error {
	if r.eventSwitch(ctx, c) {
		return nil
	}
	if done, err := r.outagePoll(ctx, c); done {
		return err
	}
	answers, attempts, notFound := r.ask(ctx)
	if len(answers) == 0 {
		return r.keepLastKnown(ctx, c, r.noAnswerErr(attempts, notFound))
	}
	cands := candidates(answers)
	if len(cands) > 1 {
		r.stats.disagreements.Add(1)
	}
	cands = r.preferEarly(cands)
	var verr []error
	roleErr := false
	for _, addr := range cands {
		conn, err := r.dialVerify(ctx, addr, roleMaster)
		if err == nil {
			r.commit(addr, answerEpoch(answers, addr, r.corroboration()), c)
			r.keepSpare(conn, addr, c)
			return nil
		}
		var re *RoleError
		if errors.As(err, &re) {
			roleErr = true
		}
		verr = append(verr, err)
	}
	kind := ErrMasterUnreachable
	switch {
	case len(cands) > 1:
		kind = ErrSentinelsDisagree
	case roleErr:
		kind = ErrRoleMismatch
	}
	return &DiscoveryError{Kind: kind, Master: r.opt.MasterName, Attempts: append(attempts, verr...)}
}

// commit records a freshly verified address backed by config epoch epoch
// (-1 unknown), found by resolution c (nil: the early switch on promotion).
// A new address bumps the generation, flushes the pool and reports the
// change. A resolution superseded by a hint commits nothing: the one
// started after the hint does.
func (r *resolver) commit(addr string, epoch int64, c *call) {
	r.mu.Lock()
	if c != nil && c.superseded {
		r.mu.Unlock()
		return
	}
	old := r.addr
	r.valid = true
	r.suspect = false
	r.verifiedAt = time.Now()
	r.fenced = false
	r.kept = false
	if addr == old {
		r.epoch = max(r.epoch, epoch)
		r.mu.Unlock()
		return
	}
	r.fenced = false
	r.leaveLocked(old, r.epoch, addr, epoch)
	r.addr = addr
	r.epoch = epoch
	r.gen++
	r.genA.Store(r.gen)
	stale := r.staleLocked()
	r.mu.Unlock()
	for _, c := range stale {
		c.markStale()
		c.boundInFlight()
	}
	r.log(slog.LevelInfo, "master verified", "old", old, "new", addr, "epoch", epoch)
	if old != "" {
		r.stats.masterChanges.Add(1)
		r.stats.lastFailover.Store(time.Now().UnixNano())
		if len(stale) > 0 {
			r.stats.poolFlushes.Add(1)
		}
	}
	if cb := r.opt.OnMasterChange; cb != nil {
		r.cbMu.Lock()
		cb(old, addr)
		r.cbMu.Unlock()
	}
}

// staleLocked returns the live connections of older generations; the
// caller holds r.mu.
func (r *resolver) staleLocked() []*trackedConn {
	var stale []*trackedConn
	for c := range r.conns {
		if c.gen < r.gen {
			stale = append(stale, c)
		}
	}
	return stale
}

// jitter returns a duration in [d/2, d] (equal jitter), so that clients
// that saw the same failure at the same moment do not ask the sentinels in
// lockstep.
func jitter(d time.Duration) time.Duration {
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// failGap is the time (before jitter) between the end of a failed
// resolution and the start of the next one, which every waiting dialer
// shares. While the sentinels name a master that does not answer
// (ErrMasterUnreachable: it died and the failover has not happened yet)
// the sentinels are asked again every MinRoleBackoff, so that the first
// sentinel naming the promoted replica is heard within that time even
// without a pub/sub hint; that lasts DialTimeout (a failover takes
// down-after-milliseconds plus about a second), then, like after other
// failures (role mismatch, disagreement, sentinels failing), the gap
// doubles with each consecutive failure from MinRoleBackoff up to
// MaxRoleBackoff, so a master that stays unreachable without a failover
// does not cost the sentinels 1/MinRoleBackoff queries per second per
// client. The caller holds r.mu.
func (r *resolver) failGap() time.Duration {
	if errors.Is(r.lastErr, ErrMasterUnreachable) && time.Since(r.failSince) < r.opt.DialTimeout {
		if r.liveLocked(time.Now()) {
			// The event path is proven live: the failover's
			// +promoted-slave / +switch-master starts the next
			// resolution at once, so polling fast would only load the
			// sentinels (1000 clients × 2 queries per 25 ms); poll at
			// the verification pace.
			return max(r.opt.MaxRoleBackoff, r.opt.VerifyInterval/2)
		}
		// At most one third of the time spent asking: on loopback a
		// resolution takes a few ms and the pace stays MinRoleBackoff;
		// when the sentinels slow down (a fleet of clients polling them
		// in the same outage) the pace slows down with them instead of
		// piling up queries that time out (SentinelTimeout) and reorder
		// the sentinel list towards cold connections.
		return min(max(r.opt.MinRoleBackoff, 2*r.lastTook), max(r.opt.MaxRoleBackoff, r.opt.VerifyInterval/2))
	}
	d := r.opt.MinRoleBackoff
	for i := 1; i < r.failStreak && d < r.opt.MaxRoleBackoff; i++ {
		d *= 2
	}
	return min(d, r.opt.MaxRoleBackoff)
}

// spareTTL is how long the connection a resolution verified the master on
// waits for a dial to take it before it is closed.
const spareTTL = time.Second

// spareConn is a verified connection to the master kept for the next dial.
type spareConn struct {
	c    net.Conn
	addr string
	gen  uint64
}

// keepSpare keeps c, just verified as the master addr by a resolution, for
// the next dial of this generation (a dialer waiting for the resolution
// takes it): one connection and one ROLE round trip less per switch, on
// the new master, when a fleet switches at once. Not kept when resolution
// call was superseded by a hint. It is closed when not
// taken within spareTTL, when the address changes, and when the client
// goes idle or closes.
func (r *resolver) keepSpare(c net.Conn, addr string, call *call) {
	r.mu.Lock()
	if r.addr != addr || r.act == nil || r.closed() || r.fenced || (call != nil && call.superseded) {
		r.mu.Unlock()
		c.Close()
		return
	}
	old := r.spare
	sp := &spareConn{c: c, addr: addr, gen: r.gen}
	r.spare = sp
	r.mu.Unlock()
	if old != nil {
		old.c.Close()
	}
	time.AfterFunc(spareTTL, func() {
		r.mu.Lock()
		if r.spare != sp {
			r.mu.Unlock()
			return
		}
		r.spare = nil
		r.mu.Unlock()
		sp.c.Close()
	})
}

// takeSpare returns the spare connection when it is to addr and of
// generation gen (nil otherwise).
func (r *resolver) takeSpare(addr string, gen uint64) net.Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.spare
	if sp == nil || sp.addr != addr || sp.gen != gen || r.gen != gen {
		return nil
	}
	r.spare = nil
	return sp.c
}

// dropSpareLocked closes the spare connection; the caller holds r.mu.
func (r *resolver) dropSpareLocked() {
	if r.spare != nil {
		r.spare.c.Close()
		r.spare = nil
	}
}

// outagePoll is the paced resolution of an outage while the event path is
// live (the failover's +promoted-slave / +switch-master will start the
// next resolution at once): the first sentinel is asked for the master
// address only (one command); while it still names the current,
// unreachable master, that master is dialled and verified again (it may
// have come back), and the resolution ends there. Any other answer, or
// none, falls through to the full resolution. Without a live event path
// the full resolution runs every time (a lagging first sentinel must not
// hide the new master). done reports whether the resolution ended here.
func (r *resolver) outagePoll(ctx context.Context, c *call) (done bool, err error) {
	r.mu.Lock()
	cur := r.addr
	ok := cur != "" && !r.fenced && r.want == roleMaster && errors.Is(r.lastErr, ErrMasterUnreachable) &&
		r.liveLocked(time.Now()) && len(r.sentinels) > 0
	var front string
	if ok {
		front = r.sentinels[0]
	}
	r.mu.Unlock()
	if !ok {
		return false, nil
	}
	named, qerr := r.queryAddr(ctx, front)
	if qerr != nil || named != cur {
		return false, nil
	}
	r.answered(front, nil)
	conn, derr := r.dialVerify(ctx, cur, roleMaster)
	var re *RoleError
	if errors.As(derr, &re) {
		return false, nil // reachable but not a master: ask them all
	}
	if derr != nil {
		return true, &DiscoveryError{Kind: ErrMasterUnreachable, Master: r.opt.MasterName,
			Attempts: []error{derr}}
	}
	r.mu.Lock()
	epoch := r.epoch
	r.mu.Unlock()
	r.commit(cur, epoch, c)
	r.keepSpare(conn, cur, c)
	return true, nil
}

// hintContext returns a context cancelled by the next hint.
func (r *resolver) hintContext() context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hintCtx == nil {
		r.hintCtx, r.hintCancel = context.WithCancel(context.Background())
	}
	return r.hintCtx
}
