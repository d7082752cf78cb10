package client

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net"
	"strconv"
	"time"
)

// Verification without events (see docs/client.md, "Following a failover
// without events"). Pub/Sub only accelerates: while the event path is not
// proven live, the lifecycle loop asks one sentinel (over a persistent
// connection) for the master address every VerifyInterval/2, and a change
// starts a resolution at once. The event path is proven live by the
// primary subscription answering its health check: it sends PING after
// 3/5 of VerifyInterval of silence and is no longer trusted when nothing
// arrived 3/20 of it later, which wakes the loop at once. A master
// change is therefore noticed within VerifyInterval whether events arrive
// or not.

// pingAfter is how long a subscription may stay silent before it is sent
// a PING. The primary subscription is checked after 3/5 of
// VerifyInterval, and must answer within answerWithin (3/20 of it): a
// subscription that died silently is found within 3/4 of VerifyInterval,
// and the poll and resolution that follow notice a master change within
// VerifyInterval (about 1.7 PINGs per second per client at the default
// 1 s; it was VerifyInterval/4, 4 PINGs per second, before the idle
// traffic was measured: docs/client.md, "Idle cost"). The other
// subscriptions only accelerate: they are checked after max(30 s, 4 ×
// VerifyInterval) of silence (30 s when verification is off).
func (r *resolver) pingAfter(primary bool) time.Duration {
	iv := r.opt.VerifyInterval
	switch {
	case iv <= 0:
		return 30 * time.Second
	case primary:
		return max(iv*3/5, time.Millisecond)
	}
	return max(30*time.Second, 4*iv)
}

// answerWithin is how long a PING may stay unanswered before the
// subscription is no longer trusted: the primary's event path is then
// not live (polling starts) and queries to its sentinel take the query
// pool.
func (r *resolver) answerWithin(primary bool) time.Duration {
	iv := r.opt.VerifyInterval
	if primary && iv > 0 {
		return max(iv*3/20, time.Millisecond)
	}
	return max(2*time.Second, r.opt.SentinelTimeout)
}

// liveWindow is how long a frame on the primary subscription proves the
// event path live: until its next PING is overdue.
func (r *resolver) liveWindow() time.Duration {
	return r.pingAfter(true) + r.answerScaled(true)
}

// answerScaled is answerWithin, raised to three times the sentinels'
// measured reply time (see noteReply) when that is longer, up to
// stuckAfter: a sentinel that answers everything late (a fleet's load, a
// loaded machine) answers the health check late too, and declaring the
// event path dead for it only adds the verification polls of every
// client to the load that slowed it down (measured: 1000 clients at load
// 20–50 sent 2 000–13 000 verification queries in one failover). A
// subscription that stops answering is still found: its PING stays
// unanswered past the scaled bound, and past stuckAfter in any case.
func (r *resolver) answerScaled(primary bool) time.Duration {
	base := r.answerWithin(primary)
	rt := time.Duration(r.replyTime.Load())
	return max(base, min(3*rt, r.stuckAfter()))
}

// stuckAfter is how long a subscription's health check may stay
// unanswered before queries to its sentinel stop using it.
func (r *resolver) stuckAfter() time.Duration {
	return min(max(2*time.Second, r.opt.SentinelTimeout), r.deadAfter(true))
}

// deadAfter is how long a subscription's health check may stay
// unanswered before the connection is given up.
func (r *resolver) deadAfter(primary bool) time.Duration {
	return max(r.opt.VerifyInterval*4, 2*time.Second, 2*r.pingAfter(primary))
}

// noteReply records how long a sentinel took to answer (a health check,
// a query). The reply time rises at once to a slower answer and decays
// by an eighth of the difference per faster one, so that one fast answer
// between slow ones does not bring the health check's bound back down.
func (r *resolver) noteReply(d time.Duration) {
	for {
		old := r.replyTime.Load()
		nv := int64(d)
		if nv < old {
			nv = old - (old-nv)/8
		}
		if r.replyTime.CompareAndSwap(old, nv) {
			return
		}
	}
}

// setLive records until when the event path is proven live.
func (r *resolver) setLive(t time.Time) {
	r.mu.Lock()
	r.liveUntil = t
	r.mu.Unlock()
}

// eventPathLive reports whether the primary subscription answered
// recently enough for events to be trusted.
func (r *resolver) eventPathLive(now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.liveLocked(now)
}

// liveLocked is eventPathLive; the caller holds r.mu. Besides the
// primary subscription's own frames (liveUntil), the process-wide proof
// of its sentinel counts (see sharedproof.go), read here rather than
// when the subscription's goroutine wakes: a starved process wakes it
// late, and the event path lapsed between two wake-ups (measured: 727
// verification polls in one 1000-client failover, 9 before the proof was
// shared). The proof does not count once the primary's own health check
// went unanswered, nor when its connection was not heard from for
// ownCheckEvery plus a live window.
func (r *resolver) liveLocked(now time.Time) bool {
	if now.Before(r.liveUntil) {
		return true
	}
	p := r.primaryProof
	if p == nil || r.primaryFlagged {
		return false
	}
	lw := r.liveWindow()
	return now.Sub(p.since()) < lw && now.Sub(r.primaryHeard) < r.ownCheckEvery()+lw
}

// primaryUp records the state of the primary subscription for
// liveLocked: its sentinel's proof (nil: none, or the subscription
// ended), when it was last heard from, and whether its own health check
// is overdue.
func (r *resolver) primaryUp(p *sentinelProof, heard time.Time, flagged bool) {
	r.mu.Lock()
	r.primaryProof, r.primaryHeard, r.primaryFlagged = p, heard, flagged
	r.mu.Unlock()
}

// nextVerify returns the next verification time (VerifyInterval/2 minus
// up to 20 % jitter), or zero when verification is disabled.
func (r *resolver) nextVerify() time.Time {
	iv := r.opt.VerifyInterval / 2
	if iv <= 0 {
		return time.Time{}
	}
	return time.Now().Add(iv - time.Duration(rand.Int64N(int64(iv)/5+1)))
}

// verify asks the first sentinel that answers for the master address; if
// it names another address than the current master (or none), it starts
// a resolution at once, as a hint would. The address still comes from the
// resolution (quorum, epochs, ROLE), never from this answer, and nothing is
// fenced on it: a lagging sentinel would otherwise flush the pool.
func (r *resolver) verify(ctx context.Context) {
	r.mu.Lock()
	cur, busy, since := r.addr, r.inflight != nil, r.launches
	order := append([]string(nil), r.sentinels...)
	r.mu.Unlock()
	if busy || (cur == "" && r.want == roleMaster) {
		return // a resolution runs (it verifies), or nothing to verify yet
	}
	r.stats.verifications.Add(1)
	if r.want == roleSlave {
		_ = r.resolveShared(ctx) // the replica list is the thing to check
		return
	}
	for _, s := range order {
		addr, err := r.queryAddr(ctx, s)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			r.stats.sentinelErrors.Add(1)
			r.mu.Lock()
			r.sentinels.toBack(s)
			r.mu.Unlock()
			continue
		}
		r.answered(s, nil)
		r.namedOther(s, cur, addr, "verification", since)
		return
	}
}

// queryAddr asks one sentinel for GET-MASTER-ADDR-BY-NAME only ("" when
// the sentinel does not know the name).
func (r *resolver) queryAddr(ctx context.Context, s string) (string, error) {
	rs, err := r.sharedDo(ctx, s, []string{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", r.opt.MasterName})
	if err != nil {
		return "", err
	}
	rp := rs[0]
	switch {
	case notSentinelReply(rp):
		return "", notSentinelErr(rp)
	case rp.err() != nil:
		return "", rp.err()
	case rp.null || (rp.typ == '*' && len(rp.arr) == 0):
		return "", nil
	case rp.typ != '*' || len(rp.arr) != 2:
		return "", errProtocol
	}
	if _, perr := strconv.ParseUint(rp.arr[1].str, 10, 16); perr != nil {
		return "", errProtocol
	}
	return net.JoinHostPort(rp.arr[0].str, rp.arr[1].str), nil
}

// namedOther reacts to sentinel s naming named while the client uses cur
// (cur read, and no resolution in flight, when the query went out; since
// is the resolver's launches count then): if they differ, the current
// master is hinted as suspect and a resolution is kicked (what,
// "verification" or "catch-up after subscribing", goes into the log line).
//
// The answer may arrive long after the query went out (a starved process
// reads it seconds late), when a resolution that started after the query
// is running, e.g. the one a fencing event started, which verifies the
// master the event named. That resolution asks (or verifies) at least as
// late as this answer's query: it is not cancelled. The cache is still
// invalidated (new connections wait for the resolution), and when the
// resolution ends on another address than named, the answer is acted on
// then (see runResolution). Before, the stale answer superseded the
// newer resolution and cancelled its ROLE dial of the very master it
// named (docs/client.md, issue 11: 998 of 1000 starved clients). An
// answer naming the address already in use starts nothing.
func (r *resolver) namedOther(s, cur, named, what string, since uint64) {
	if named == cur {
		return
	}
	r.mu.Lock()
	if named == r.addr && r.valid && !r.fenced {
		r.mu.Unlock()
		return // a newer resolution already switched to it
	}
	if c := r.inflight; c != nil && c.pending == nil && r.launches != since {
		r.valid = false
		c.recheck, c.recheckFrom, c.recheckWhat = named, s, what
		r.mu.Unlock()
		r.log(slog.LevelInfo, what+": a sentinel names another master; a newer resolution runs", "sentinel", s, "current", cur, "named", named)
		return
	}
	r.log(slog.LevelInfo, what+": a sentinel names another master", "sentinel", s, "current", cur, "named", named)
	r.hintLocked()
	r.mu.Unlock()
	r.kick()
}
