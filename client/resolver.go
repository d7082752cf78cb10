package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"weak"

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
	verifiedAt time.Time     // when addr was last confirmed by a resolution
	replicas   []replicaInfo // replica mode: last list, usable entries only
	inflight   *call         // singleflight resolution
	lastEnd    time.Time     // end of the last resolution
	lastErr    error         // error of the last resolution
	failStreak int           // consecutive failed resolutions
	forced     bool          // a hint asked for a resolution: skip the failure gap
	wake       chan struct{} // closed (and replaced) when a resolution ends or a hint arrives
	conns      map[*trackedConn]struct{}
	subConns   map[net.Conn]struct{} // pub/sub connections, closed on shutdown

	following  string    // replica whose promotion is being polled
	earlyFrom  string    // address left by an early switch on promotion
	earlyUntil time.Time // end of that switch's grace period

	bgOnce sync.Once
	poke   chan struct{}              // a data connection was closed
	rdb    weak.Pointer[redis.Client] // the client, not kept alive by us
	key    weak.Pointer[redis.Client] // registry key
}

// call is one in-flight resolution that concurrent callers share.
type call struct {
	done chan struct{}
	err  error
}

func newResolver(opt FailoverOptions, want string) *resolver {
	ctx, cancel := context.WithCancel(context.Background())
	return &resolver{
		opt:       opt,
		want:      want,
		ctx:       ctx,
		cancel:    cancel,
		sentinels: sentinelList(append([]string(nil), opt.SentinelAddrs...)),
		wake:      make(chan struct{}),
		conns:     make(map[*trackedConn]struct{}),
		poke:      make(chan struct{}, 1),
		subConns:  make(map[net.Conn]struct{}),
	}
}

// closed reports whether shutdown has started.
func (r *resolver) closed() bool { return r.ctx.Err() != nil }

// current returns the cached address, its generation and whether it may be
// used without asking the sentinels.
func (r *resolver) current() (addr string, gen uint64, fresh bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fresh = r.valid && r.addr != "" &&
		(r.opt.ResolveCacheTTL > 0 && time.Since(r.verifiedAt) < r.opt.ResolveCacheTTL)
	return r.addr, r.gen, fresh
}

// generation returns the current address generation without locking.
func (r *resolver) generation() uint64 { return r.genA.Load() }

// invalidate drops the cached address if it still has generation gen, so the
// next new connection asks the sentinels again.
func (r *resolver) invalidate(gen uint64) {
	r.mu.Lock()
	if r.gen == gen {
		r.valid = false
	}
	r.mu.Unlock()
}

// hint is called for a +switch-master event or anything else that suggests
// the master moved: it invalidates the cache and wakes waiting dialers.
func (r *resolver) hint() {
	r.mu.Lock()
	r.valid = false
	r.forced = true
	r.broadcastLocked()
	r.mu.Unlock()
}

func (r *resolver) broadcastLocked() {
	close(r.wake)
	r.wake = make(chan struct{})
}

// resolveShared runs one resolution, or joins the one in flight, and waits
// for it (or for ctx). The resolution itself runs under the client's
// lifetime context with its own deadline, so one caller giving up does not
// fail the others.
func (r *resolver) resolveShared(ctx context.Context) error {
	r.mu.Lock()
	c := r.inflight
	if c == nil && r.lastErr != nil && !r.forced && time.Since(r.lastEnd) < r.failGap() {
		// Resolutions keep failing (e.g. the master is down and the
		// sentinels have not failed over yet): do not hammer the sentinels
		// once per waiting dialer; hints (pub/sub) bypass the gap.
		err := r.lastErr
		r.mu.Unlock()
		return err
	}
	if c == nil {
		r.forced = false
		c = &call{done: make(chan struct{})}
		r.inflight = c
		r.wg.Add(1)
		go r.runResolution(c)
	}
	r.mu.Unlock()
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return fmt.Errorf("waiting for master resolution: %w", ctx.Err())
	}
}

func (r *resolver) runResolution(c *call) {
	defer r.wg.Done()
	ctx, cancel := context.WithTimeout(r.ctx, r.opt.DialTimeout)
	defer cancel()
	var err error
	if r.want == roleMaster {
		err = r.resolveMaster(ctx)
	} else {
		err = r.resolveReplicas(ctx)
	}
	r.stats.resolutions.Add(1)
	if err != nil {
		r.stats.resolutionErrors.Add(1)
	}
	r.mu.Lock()
	c.err = err
	if err != nil {
		r.failStreak++
	} else {
		r.failStreak = 0
	}
	r.inflight = nil
	r.lastEnd = time.Now()
	r.lastErr = err
	r.broadcastLocked()
	r.mu.Unlock()
	close(c.done)
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
	if r.inflight == nil && time.Since(r.lastEnd) < r.opt.MinRoleBackoff {
		err := r.lastErr
		r.mu.Unlock()
		return err
	}
	r.mu.Unlock()
	return r.resolveShared(ctx)
}

// ask queries the sentinels in list order until SentinelQuorum of them
// answered with an address (or the list is exhausted).
func (r *resolver) ask(ctx context.Context) ([]*masterAnswer, []error, bool) {
	r.mu.Lock()
	order := append([]string(nil), r.sentinels...)
	r.mu.Unlock()
	var answers []*masterAnswer
	var attempts []error
	notFound := false
	for _, s := range order {
		if ctx.Err() != nil {
			attempts = append(attempts, &SentinelError{Addr: s, Err: ctx.Err()})
			break
		}
		a, err := r.queryMaster(ctx, s)
		switch {
		case err != nil:
			attempts = append(attempts, &SentinelError{Addr: s, Err: err})
			r.stats.sentinelErrors.Add(1)
			r.mu.Lock()
			r.sentinels.toBack(s)
			r.mu.Unlock()
			continue
		case a == nil:
			notFound = true
			attempts = append(attempts, &SentinelError{Addr: s, Err: fmt.Errorf("master %q unknown", r.opt.MasterName)})
			continue
		}
		r.mu.Lock()
		if len(answers) == 0 {
			r.sentinels.toFront(s)
		}
		if room := maxSentinels - len(r.sentinels); room > 0 {
			if len(a.sentinels) > room {
				a.sentinels = a.sentinels[:room]
			}
			r.stats.sentinelsDiscovered.Add(uint64(r.sentinels.add(a.sentinels)))
		}
		r.mu.Unlock()
		answers = append(answers, a)
		if len(answers) >= r.opt.SentinelQuorum {
			break
		}
	}
	return answers, attempts, notFound
}

// discoveryErr builds the DiscoveryError for a resolution with no answer.
func (r *resolver) noAnswerErr(attempts []error, notFound bool) error {
	kind := ErrNoSentinelReachable
	if notFound {
		kind = ErrMasterNotFound
	}
	return &DiscoveryError{Kind: kind, Master: r.opt.MasterName, Attempts: attempts}
}

// candidates orders the distinct advertised addresses by the highest config
// epoch that backs them (then by how many sentinels advertise them).
func candidates(answers []*masterAnswer) []string {
	type cand struct {
		addr  string
		epoch int64
		votes int
		first int
	}
	byAddr := map[string]*cand{}
	var list []*cand
	for i, a := range answers {
		c := byAddr[a.addr]
		if c == nil {
			c = &cand{addr: a.addr, epoch: a.epoch, first: i}
			byAddr[a.addr] = c
			list = append(list, c)
		}
		c.votes++
		if a.epoch > c.epoch {
			c.epoch = a.epoch
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].epoch != list[j].epoch {
			return list[i].epoch > list[j].epoch
		}
		if list[i].votes != list[j].votes {
			return list[i].votes > list[j].votes
		}
		return list[i].first < list[j].first
	})
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = c.addr
	}
	return out
}

// resolveMaster is one full discovery: ask the sentinels, then verify the
// candidates with ROLE, best epoch first, and commit the first verified one.
func (r *resolver) resolveMaster(ctx context.Context) error {
	answers, attempts, notFound := r.ask(ctx)
	if len(answers) == 0 {
		return r.noAnswerErr(attempts, notFound)
	}
	cands := candidates(answers)
	if len(cands) > 1 {
		r.stats.disagreements.Add(1)
	}
	cands = r.preferEarly(cands)
	var verr []error
	roleErr := false
	for _, addr := range cands {
		c, err := r.dialVerify(ctx, addr, roleMaster)
		if err == nil {
			c.Close()
			r.commit(addr)
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

// commit records a freshly verified address. A new address bumps the
// generation, flushes the pool and reports the change.
func (r *resolver) commit(addr string) {
	r.mu.Lock()
	old := r.addr
	r.valid = true
	r.verifiedAt = time.Now()
	if addr == old {
		r.mu.Unlock()
		return
	}
	r.addr = addr
	r.gen++
	r.genA.Store(r.gen)
	gen := r.gen
	var stale []*trackedConn
	for c := range r.conns {
		if c.gen < gen {
			stale = append(stale, c)
		}
	}
	r.mu.Unlock()
	for _, c := range stale {
		c.markStale()
	}
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

// failGap is the minimum time between the end of a failed resolution and the
// start of the next one: MinRoleBackoff doubling with each consecutive
// failure up to MaxRoleBackoff (without jitter: the dialers waiting on it
// are jittered). The caller holds r.mu.
func (r *resolver) failGap() time.Duration {
	d := r.opt.MinRoleBackoff
	for i := 1; i < r.failStreak && d < r.opt.MaxRoleBackoff; i++ {
		d *= 2
	}
	return min(d, r.opt.MaxRoleBackoff)
}
