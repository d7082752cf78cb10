package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"
)

// Pub/sub channels used as hints. +switch-master is published by every
// sentinel when it adopts a new master; +promoted-slave only by the failover
// leader, as soon as the replica is promoted (earlier than +switch-master).
const (
	chanSwitchMaster  = "+switch-master"
	chanPromotedSlave = "+promoted-slave"
	chanSelectedSlave = "+selected-slave"
)

// hintChannels are the channels every subscriber listens to.
var hintChannels = []string{chanSwitchMaster, chanPromotedSlave, chanSelectedSlave}

// subscriber keeps one pub/sub subscription to a sentinel that no other
// subscriber of this client uses (the first such one in list order, seeds
// or learnt), re-established with jittered backoff when it fails, until
// ctx (the activation) ends. The primary subscriber proves the event path
// live (see verify.go).
func (r *resolver) subscriber(ctx context.Context, primary bool) {
	defer r.wg.Done()
	fails := 0
	for ctx.Err() == nil {
		sc, addr, err := r.subscribe(ctx)
		if err != nil {
			fails++
			lvl := slog.LevelDebug
			if fails == 1 {
				lvl = slog.LevelWarn
			}
			r.log(lvl, "subscription failed (events only accelerate; verifying by polling)", "err", err)
			// Also woken when a resolution ends: the list may have grown.
			if r.sleep(ctx, backoff(fails, 100*time.Millisecond, 5*time.Second)) != nil {
				return
			}
			continue
		}
		fails = 0
		if primary {
			r.setLive(time.Now().Add(r.liveWindow()))
		}
		if r.hasAddr() || r.want == roleSlave {
			// Catch up on anything missed while unsubscribed (without
			// a ROLE probe when the sentinels confirm the master).
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				r.catchUp(ctx, addr)
			}()
		}
		r.readSub(sc, addr, primary)
		sc.rc.Close()
		r.dropSubConn(sc, addr)
		if primary {
			// The event path is down: verify at once, and by polling
			// until a subscription is back.
			r.setLive(time.Time{})
			r.pokeRun()
		}
		if sleepCtx(ctx, backoff(0, 50*time.Millisecond, 100*time.Millisecond)) != nil {
			return
		}
	}
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ErrClientClosed
	}
}

// subscribe connects to the first sentinel of the list that has no
// subscription of this client yet (or the following ones if it fails) and
// subscribes to the hint channels.
func (r *resolver) subscribe(ctx context.Context) (*subConn, string, error) {
	r.mu.Lock()
	var order []string
	for _, s := range r.sentinels {
		if !r.subscribed[s] {
			order = append(order, s)
		}
	}
	r.mu.Unlock()
	if len(order) == 0 {
		return nil, "", errors.New("every known sentinel already has a subscription")
	}
	var errs []error
	for _, s := range order {
		if !r.reserveSub(s) {
			continue // another subscriber took it meanwhile
		}
		done := r.subPending(s)
		sc, err := r.subscribeTo(ctx, s)
		done()
		if err != nil {
			r.releaseSub(s)
			errs = append(errs, err)
			continue
		}
		return sc, s, nil
	}
	return nil, "", &DiscoveryError{Kind: ErrNoSentinelReachable, Master: r.opt.MasterName, Attempts: errs}
}

// subscribeTo connects to sentinel s and subscribes to the hint channels,
// in RESP3 (HELLO 3 with the credentials and ClientName, then SUBSCRIBE,
// in one round trip) unless s refused HELLO 3 before; then in RESP2
// (AUTH, CLIENT SETNAME, SUBSCRIBE).
func (r *resolver) subscribeTo(ctx context.Context, s string) (*subConn, error) {
	r.mu.Lock()
	resp3 := !r.noResp3[s]
	r.mu.Unlock()
	sc, err := r.subscribeProto(ctx, s, resp3)
	if errors.Is(err, errNoResp3) {
		r.mu.Lock()
		r.noResp3[s] = true
		r.mu.Unlock()
		sc, err = r.subscribeProto(ctx, s, false)
	}
	return sc, err
}

// errNoResp3 is a sentinel refusing HELLO 3 for another reason than the
// credentials (an old or minimal server): the subscription is made again
// in RESP2.
var errNoResp3 = errors.New("HELLO 3 refused")

// subscribeProto is one subscription attempt to s, in RESP3 or RESP2.
func (r *resolver) subscribeProto(ctx context.Context, s string, resp3 bool) (*subConn, error) {
	if ctx.Err() != nil {
		return nil, ErrClientClosed
	}
	// Longer than SentinelTimeout: a subscription only accelerates, and
	// giving up on a sentinel that is slow under load (a fleet starting
	// at once) would only add connections.
	deadline := deadlineFor(ctx, max(r.opt.SentinelTimeout, subscribeTimeout))
	// The idle query connection to s (the first resolution opened it)
	// becomes the subscription: no second connection to s. It is
	// already authenticated; the handshake is sent again anyway (HELLO
	// 3 carries it, and AUTH twice is harmless). A pooled connection the
	// sentinel closed while idle fails the exchange below, and the
	// attempt is made again on a fresh one.
	rc := r.spool.take(s)
	reused := rc != nil
	if !reused {
		c, err := dialWith(ctx, r.sentinelDialer(), r.sentinelTLS(), s, deadline)
		r.stats.sentinelDials.Add(1)
		if err != nil {
			return nil, &SentinelError{Addr: s, Err: err}
		}
		rc = newRespConn(c)
	}
	c := rc.Conn
	hs := r.sentinelHandshake()
	if resp3 {
		hs = [][]string{r.hello3()}
	}
	cmds := append(hs, append([]string{"SUBSCRIBE"}, hintChannels...))
	var pre []reply // the handshake's replies, when sent on its own
	if !reused && r.opt.OnConnect != nil {
		// OnConnect runs on every new sentinel connection between its
		// handshake and its first command, as in go-redis (a reused
		// query connection ran it when it was opened).
		r.stats.sentinelCommands.Add(uint64(len(hs)))
		var err error
		if pre, err = rc.do(deadline, hs...); err != nil {
			c.Close()
			return nil, &SentinelError{Addr: s, Err: err}
		}
		if !hasErrReply(pre) {
			if err := r.sentinelOnConnect(ctx, c, resp3, deadline); err != nil {
				c.Close()
				return nil, &SentinelError{Addr: s, Err: err}
			}
		}
		// A refused handshake is judged below, as when pipelined.
		cmds = cmds[len(hs):]
	}
	r.stats.sentinelCommands.Add(uint64(len(cmds)))
	rs, err := rc.do(deadline, cmds...)
	if err == nil && pre != nil {
		rs = append(pre, rs...)
	}
	switch {
	case err != nil && reused && !isTimeout(err):
		c.Close()
		return r.subscribeProto(ctx, s, resp3) // closed while idle: dial
	case err != nil:
	case resp3 && rs[0].err() != nil && authRefused(rs[0]):
		err = fmt.Errorf("%w: %w", ErrAuth, rs[0].err())
	case resp3 && rs[0].err() != nil:
		c.Close()
		return nil, errNoResp3
	case !resp3:
		err = r.checkHandshake(rs)
	}
	if err == nil {
		if e := rs[len(hs)].err(); e != nil {
			err = e // refused as a whole (NOPERM: no channel allowed)
		}
	}
	// One confirmation per channel.
	for k := 1; k < len(hintChannels) && err == nil; k++ {
		var extra reply
		extra, _, err = readReply(rc.br, 0)
		if err == nil {
			err = extra.err()
		}
	}
	if err == nil {
		err = rc.SetDeadline(time.Time{})
	}
	if err != nil {
		c.Close()
		return nil, &SentinelError{Addr: s, Err: err}
	}
	sc := &subConn{rc: rc, addr: s, resp3: resp3}
	if !r.addSubConn(ctx, sc) {
		c.Close()
		return nil, ErrClientClosed
	}
	if resp3 {
		// Queries to s now go over the subscription: one connection
		// per sentinel.
		r.spool.dropIdle(s)
	}
	return sc, nil
}

// hasErrReply reports whether any of rs is an error reply.
func hasErrReply(rs []reply) bool {
	for _, rp := range rs {
		if rp.err() != nil {
			return true
		}
	}
	return false
}

// reserveSub marks sentinel s as taken by a subscriber; it reports false
// when another subscriber has it.
func (r *resolver) reserveSub(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.subscribed[s] {
		return false
	}
	r.subscribed[s] = true
	return true
}

// subPending records that a subscription to sentinel s is being made
// (it may have taken the query connection to s, see sentinelPool.take):
// queries to s wait for it instead of dialling a connection it would
// make redundant (see sentinelDo). The returned function ends the
// attempt, whatever its outcome.
func (r *resolver) subPending(s string) func() {
	ch := make(chan struct{})
	r.mu.Lock()
	r.subWait[s] = ch
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		if r.subWait[s] == ch {
			delete(r.subWait, s)
		}
		r.mu.Unlock()
		close(ch)
	}
}

func (r *resolver) releaseSub(s string) {
	r.mu.Lock()
	delete(r.subscribed, s)
	r.mu.Unlock()
}

// addSubConn records a pub/sub connection so that shutdown can interrupt
// its blocking read (and, in RESP3, queries to its sentinel can use it);
// it reports false after shutdown.
func (r *resolver) addSubConn(ctx context.Context, sc *subConn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	r.subConns[sc.rc] = struct{}{}
	r.subBy[sc.addr] = sc
	return true
}

// dropSubConn forgets the subscription sc to sentinel s and ends the
// queries waiting on it.
func (r *resolver) dropSubConn(sc *subConn, s string) {
	r.mu.Lock()
	delete(r.subConns, sc.rc)
	delete(r.subscribed, s)
	if r.subBy[s] == sc {
		delete(r.subBy, s)
	}
	r.mu.Unlock()
	sc.fail(errSubClosed)
}

// subscribeTimeout bounds dialling and subscribing to one sentinel.
const subscribeTimeout = 2 * time.Second

// pingCmd is the health check sent on a silent subscription.
var pingCmd = appendCommand(nil, "PING")

// readSub reads pub/sub messages (and, in RESP3, the replies to the
// queries sent over the subscription) until the connection fails, is
// closed, or stays silent: after pingAfter without a frame it sends PING.
// The primary subscription proves the event path live for liveWindow
// after every frame; when the PING is not answered within answerWithin
// the path is no longer live (the lifecycle loop is woken and polls) and
// queries to this sentinel use the query pool, but the connection is only
// given up after deadAfter without an answer (a connection that stays
// open but stops delivering), so that a sentinel slowed down by load does
// not cost a new subscription.
func (r *resolver) readSub(sc *subConn, from string, primary bool) {
	rc := sc.rc
	quiet := r.pingAfter(primary)
	dead := r.deadAfter(primary)
	// stuck: queries to this sentinel stop using the subscription. Not
	// at answer: under a fleet's load a sentinel answers late, and
	// queries diverted to a second connection would dial one per client
	// (measured: 340 sentinel connections in a 300-client failover).
	stuck := r.stuckAfter()
	var pingedAt time.Time
	var answer time.Duration // bound for the PING in flight (answerScaled when sent)
	flagged := false         // the PING is overdue
	// proof: the process-wide proof that this sentinel delivers (see
	// sharedproof.go), primary subscriptions only; heard: the last frame
	// read on this connection.
	var proof *sentinelProof
	heard := time.Now()
	if primary {
		proof = r.sentinelProof(from)
		r.primaryUp(proof, heard, false)
		defer r.primaryUp(nil, time.Time{}, false)
	}
	var turnDue time.Time // another subscription's PING in flight is due then
	for {
		wait := quiet
		if p := proof.since(); pingedAt.IsZero() && p.After(heard) {
			// Woken when the shared proof would expire.
			wait = max(time.Until(p.Add(quiet)), time.Millisecond)
		}
		if pingedAt.IsZero() && !turnDue.IsZero() {
			// Another subscription's PING is in flight: woken when
			// it should have been answered.
			wait = max(time.Until(turnDue), time.Millisecond)
		}
		switch {
		case pingedAt.IsZero():
		case !flagged:
			wait = time.Until(pingedAt.Add(answer))
		case time.Since(pingedAt) < stuck:
			wait = time.Until(pingedAt.Add(stuck))
		default:
			wait = time.Until(pingedAt.Add(dead))
		}
		if err := rc.SetReadDeadline(time.Now().Add(max(wait, time.Millisecond))); err != nil {
			return
		}
		m, started, err := readReply(rc.br, 0)
		if err != nil {
			if !isTimeout(err) || started {
				return // broken, or cut inside a frame
			}
			switch {
			case pingedAt.IsZero() && r.sharedProofFresh(proof, heard, quiet):
				// Another client's subscription to this sentinel was
				// heard from within quiet: the event path is as live
				// as theirs; no PING of our own yet.
				turnDue = time.Time{}
				r.setLive(proof.since().Add(r.liveWindow()))
				continue
			case pingedAt.IsZero() && time.Since(heard) < r.ownCheckEvery():
				// The shared proof is stale: one subscription pings
				// for the process, the others wait for its answer;
				// when it did not come, each checks its own
				// connection (and is flagged if that goes unanswered
				// too).
				mine, due := !turnDue.IsZero(), time.Time{}
				if !mine {
					mine, due = proof.takeTurn(time.Now(), r.answerScaled(primary))
				}
				if !mine {
					// Live while that PING may still be answered, as
					// with a PING of our own in flight.
					turnDue = due
					r.mu.Lock()
					if r.liveUntil.Before(due) {
						r.liveUntil = due
					}
					r.mu.Unlock()
					continue
				}
				turnDue = time.Time{}
				if !r.sendPing(sc, quiet) {
					return
				}
				pingedAt, flagged = time.Now(), false
				answer = r.answerScaled(primary)
			case pingedAt.IsZero():
				if !r.sendPing(sc, quiet) {
					return
				}
				pingedAt, flagged = time.Now(), false
				answer = r.answerScaled(primary)
			case time.Since(pingedAt) >= dead:
				r.stats.pubSubLost.Add(1)
				r.log(slog.LevelWarn, "subscription silent, reconnecting", "sentinel", from)
				return
			case flagged && time.Since(pingedAt) >= stuck:
				sc.setUnhealthy(true)
			case !flagged && time.Since(pingedAt) >= answer:
				flagged = true
				// A silent sentinel is asked last (the poll that
				// follows, and resolutions, would otherwise wait
				// SentinelTimeout for it first).
				r.mu.Lock()
				r.sentinels.toBack(from)
				wasLive := primary && r.liveLocked(time.Now())
				if primary {
					// Unanswered on this very connection: the
					// process-wide proof does not count for it either.
					r.liveUntil, r.primaryFlagged = time.Time{}, true
				}
				r.mu.Unlock()
				if wasLive {
					// Not live any more: poll from now on.
					r.pokeRun()
				}
			}
			continue
		}
		if !pingedAt.IsZero() {
			// The first frame after the PING: at the latest its
			// answer (an event may come first and count as less).
			r.noteReply(time.Since(pingedAt))
		}
		pingedAt, flagged = time.Time{}, false
		sc.setUnhealthy(false)
		heard = time.Now()
		turnDue = time.Time{}
		if primary {
			proof.prove(heard)
			r.mu.Lock()
			r.liveUntil = heard.Add(r.liveWindow())
			r.primaryHeard, r.primaryFlagged = heard, false
			r.mu.Unlock()
		}
		if sc.resp3 && !m.push {
			if !sc.deliver(m) {
				return // a reply nobody asked for: out of step
			}
			continue
		}
		if m.typ != '*' || len(m.arr) != 3 || m.arr[0].str != "message" {
			continue // a RESP2 pong, a confirmation
		}
		r.onEvent(m.arr[1].str, m.arr[2].str, from)
	}
}

// sharedProofFresh reports whether a primary subscription last heard
// from at heard may take the process-wide proof (see sharedproof.go)
// instead of sending its own PING now: another subscription to the same
// sentinel was heard from within quiet, and this connection itself within
// ownCheckEvery.
func (r *resolver) sharedProofFresh(proof *sentinelProof, heard time.Time, quiet time.Duration) bool {
	p := proof.since()
	now := time.Now()
	return !p.IsZero() && now.Sub(p) < quiet && now.Sub(heard) < r.ownCheckEvery()
}

// sendPing sends the health check on a silent subscription; it reports
// false when the connection is broken.
func (r *resolver) sendPing(sc *subConn, quiet time.Duration) bool {
	deadline := time.Now().Add(quiet)
	if sc.resp3 {
		sent, err := sc.send(deadline, nil, []string{"PING"})
		if !sent || err != nil {
			return false
		}
	} else {
		_ = sc.rc.SetWriteDeadline(deadline)
		if _, werr := sc.rc.Write(pingCmd); werr != nil {
			return false
		}
	}
	r.stats.sentinelCommands.Add(1)
	return true
}

// onEvent handles a hint. "+switch-master <name> <old-ip> <old-port>
// <new-ip> <new-port>" and "+promoted-slave slave <ip:port> <ip> <port> @
// <name> <master-ip> <master-port>" wake the resolver. When the event
// names the current master as the one being left, the client stops using
// it at once (fence): its connections are retired and new ones wait for
// the resolution, so no command issued after the event reaches the old
// master, however long the resolution takes. That resolution first
// verifies the master the event named with ROLE and switches to it
// without a sentinel query (eventSwitch); when it does not verify, the
// sentinels are asked, the sender of the hint first, since it has the
// newest view. Any other hint only starts a resolution: the address then
// comes from a sentinel query verified with ROLE.
func (r *resolver) onEvent(channel, payload, from string) {
	f := strings.Fields(payload)
	var old, named string
	switch {
	case channel == chanSwitchMaster && len(f) >= 5 && f[0] == r.opt.MasterName:
		old = net.JoinHostPort(f[1], f[2])
		named = net.JoinHostPort(f[3], f[4])
	case channel == chanSwitchMaster && len(f) >= 1 && f[0] == r.opt.MasterName:
	case channel == chanPromotedSlave && len(f) >= 8 && f[4] == "@" && f[5] == r.opt.MasterName:
		old = net.JoinHostPort(f[6], f[7])
		named = net.JoinHostPort(f[2], f[3])
	case channel == chanPromotedSlave && len(f) >= 6 && f[4] == "@" && f[5] == r.opt.MasterName:
	case channel == chanSelectedSlave && len(f) >= 6 && f[4] == "@" && f[5] == r.opt.MasterName:
		r.stats.pubSubHints.Add(1)
		r.followPromotion(net.JoinHostPort(f[2], f[3]))
		return
	default:
		return
	}
	r.stats.pubSubHints.Add(1)
	r.mu.Lock()
	_, viaSub := r.subBy[from]
	// The same switch announced again (+switch-master from each
	// sentinel, after the leader's +promoted-slave): when the client
	// already verified the named master, or a resolution started after
	// the fence for this very switch is running, another resolution
	// would only dial and verify the new master once more (a fleet of
	// 1000 clients hearing four announcements dialled it 4000 times
	// at once).
	confirmed := named != "" && named == r.addr && r.valid && !r.fenced && r.want == roleMaster
	running := r.fenced && old != "" && old == r.addr && r.inflight != nil && r.inflight.pending == nil &&
		r.inflight.seq >= r.fenceSeq
	r.mu.Unlock()
	if confirmed || running {
		return
	}
	warm := viaSub || r.spool.has(from)
	r.mu.Lock()
	if warm {
		// Asked first: it has the newest view. Only when a query
		// connection to it is open (its RESP3 subscription, which
		// carried the event, or a pooled one), so that a fleet's failover opens no
		// sentinel connection (the sentinels that are asked catch up
		// within milliseconds and publish +switch-master themselves).
		r.sentinels.toFront(from)
	}
	r.hintLocked()
	var stale []*trackedConn
	fence := old != "" && old == r.addr && r.want == roleMaster && !r.fenced
	if fence {
		r.fenced = true
		r.fenceSeq = r.hintSeq
		r.gen++
		r.genA.Store(r.gen)
		stale = r.staleLocked()
		r.eventAddr, r.eventFrom, r.eventSeq = "", "", 0
		if named != "" && named != old && r.sentinels.index(from) >= 0 {
			// The resolution this hint starts verifies the named
			// master first (eventSwitch).
			r.eventAddr, r.eventFrom, r.eventSeq = named, from, r.hintSeq
		}
	}
	r.mu.Unlock()
	for _, c := range stale {
		c.markStale()
	}
	if fence {
		r.stats.fences.Add(1)
		r.log(slog.LevelWarn, "event names the current master as the old one: fenced", "channel", channel, "sentinel", from, "old", old)
	}
	r.kick()
}

// catchUp runs after a (re)subscription to sentinel s: an event this
// subscription would have carried while it was down is caught by asking s
// itself, over the new subscription, for the master address (one
// command); a full resolution (quorum, epochs, ROLE) runs only when s
// names another address than the current master. Each subscription
// checks its own sentinel, so together they cover every sentinel the
// events come from. Before, each subscription ran a full check (two
// sentinels, GET-MASTER-ADDR-BY-NAME + MASTER each): 12 commands per
// client starting, right after its first resolution.
func (r *resolver) catchUp(ctx context.Context, s string) {
	if r.want == roleSlave {
		r.check(ctx)
		return
	}
	r.mu.Lock()
	cur, busy, since := r.addr, r.inflight != nil, r.launches
	r.mu.Unlock()
	if busy || cur == "" {
		return // a resolution runs: it asks the sentinels after the subscription
	}
	named, err := r.queryAddr(ctx, s)
	if err != nil || ctx.Err() != nil {
		return // the verification loop and reconciliation cover it
	}
	r.answered(s, nil)
	r.namedOther(s, cur, named, "catch-up after subscribing", since)
}
