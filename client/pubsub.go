package client

import (
	"context"
	"errors"
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
		rc, addr, err := r.subscribe(ctx)
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
			r.setLive(time.Now().Add(2 * r.pingAfter(true)))
		}
		if r.hasAddr() || r.want == roleSlave {
			// Catch up on anything missed while unsubscribed (without
			// a ROLE probe when the sentinels confirm the master).
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				r.check(ctx)
			}()
		}
		r.readSub(rc, addr, primary)
		r.dropSubConn(rc, addr)
		rc.Close()
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
func (r *resolver) subscribe(ctx context.Context) (*respConn, string, error) {
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
		rc, err := r.subscribeTo(ctx, s)
		if err != nil {
			r.releaseSub(s)
			errs = append(errs, err)
			continue
		}
		return rc, s, nil
	}
	return nil, "", &DiscoveryError{Kind: ErrNoSentinelReachable, Master: r.opt.MasterName, Attempts: errs}
}

// subscribeTo connects to sentinel s and subscribes to the hint channels
// (after AUTH and CLIENT SETNAME, in the same round trip).
func (r *resolver) subscribeTo(ctx context.Context, s string) (*respConn, error) {
	if ctx.Err() != nil {
		return nil, ErrClientClosed
	}
	// Longer than SentinelTimeout: a subscription only accelerates, and
	// giving up on a sentinel that is slow under load (a fleet starting
	// at once) would only add connections.
	deadline := deadlineFor(ctx, max(r.opt.SentinelTimeout, subscribeTimeout))
	c, err := dialWith(ctx, r.sentinelDialer(), r.sentinelTLS(), s, deadline)
	r.stats.sentinelDials.Add(1)
	if err != nil {
		return nil, &SentinelError{Addr: s, Err: err}
	}
	rc := newRespConn(c)
	hs := r.sentinelHandshake()
	cmds := append(hs, append([]string{"SUBSCRIBE"}, hintChannels...))
	r.stats.sentinelCommands.Add(uint64(len(cmds)))
	rs, err := rc.do(deadline, cmds...)
	if err == nil {
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
	if !r.addSubConn(ctx, rc) {
		c.Close()
		return nil, ErrClientClosed
	}
	return rc, nil
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

func (r *resolver) releaseSub(s string) {
	r.mu.Lock()
	delete(r.subscribed, s)
	r.mu.Unlock()
}

// addSubConn records a pub/sub connection so that shutdown can interrupt
// its blocking read; it reports false after shutdown.
func (r *resolver) addSubConn(ctx context.Context, c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ctx.Err() != nil {
		return false
	}
	r.subConns[c] = struct{}{}
	return true
}

// dropSubConn forgets the subscription of c to sentinel s.
func (r *resolver) dropSubConn(c net.Conn, s string) {
	r.mu.Lock()
	delete(r.subConns, c)
	delete(r.subscribed, s)
	r.mu.Unlock()
}

// subscribeTimeout bounds dialling and subscribing to one sentinel.
const subscribeTimeout = 2 * time.Second

// pingCmd is the health check sent on a silent subscription.
var pingCmd = appendCommand(nil, "PING")

// readSub reads pub/sub messages until the connection fails, is closed, or
// stays silent: after pingAfter without a message it sends PING. The
// primary subscription proves the event path live for 2 × pingAfter after
// every reply; when the PING is not answered within pingAfter the path is
// no longer live (the lifecycle loop is woken and polls), but the
// connection is only given up after deadAfter without an answer (a
// connection that stays open but stops delivering), so that a sentinel
// slowed down by load does not cost a new subscription.
func (r *resolver) readSub(rc *respConn, from string, primary bool) {
	quiet := r.pingAfter(primary)
	dead := max(r.opt.VerifyInterval*4, 2*time.Second, 2*quiet)
	var pingedAt time.Time
	for {
		wait := quiet
		if !pingedAt.IsZero() {
			wait = min(quiet, time.Until(pingedAt.Add(dead)))
		}
		if err := rc.SetReadDeadline(time.Now().Add(max(wait, time.Millisecond))); err != nil {
			return
		}
		m, _, err := readReply(rc.br, 0)
		if err != nil {
			if !isTimeout(err) {
				return
			}
			switch {
			case pingedAt.IsZero():
				_ = rc.SetWriteDeadline(time.Now().Add(quiet))
				if _, werr := rc.Write(pingCmd); werr != nil {
					return
				}
				r.stats.sentinelCommands.Add(1)
				pingedAt = time.Now()
			case time.Since(pingedAt) >= dead:
				r.stats.pubSubLost.Add(1)
				r.log(slog.LevelWarn, "subscription silent, reconnecting", "sentinel", from)
				return
			case primary && r.eventPathLive(time.Now()):
				// Unanswered: not live any more, poll from now on.
				r.setLive(time.Time{})
				r.pokeRun()
			}
			continue
		}
		pingedAt = time.Time{}
		if primary {
			r.setLive(time.Now().Add(2 * quiet))
		}
		if m.typ != '*' || len(m.arr) != 3 || m.arr[0].str != "message" {
			continue // a pong, a confirmation
		}
		r.onEvent(m.arr[1].str, m.arr[2].str, from)
	}
}

// onEvent handles a hint. "+switch-master <name> <old-ip> <old-port>
// <new-ip> <new-port>" and "+promoted-slave slave <ip:port> <ip> <port> @
// <name> <master-ip> <master-port>" only wake the resolver: the new address
// still comes from a sentinel query verified with ROLE. But when the event
// names the current master as the one being left, the client stops using
// it at once (fence): its connections are retired and new ones wait for
// the resolution, so no command issued after the event reaches the old
// master, however long the resolution takes. The sentinel that sent the
// hint is asked first, since it has the newest view.
func (r *resolver) onEvent(channel, payload, from string) {
	f := strings.Fields(payload)
	var old string
	switch {
	case channel == chanSwitchMaster && len(f) >= 5 && f[0] == r.opt.MasterName:
		old = net.JoinHostPort(f[1], f[2])
	case channel == chanSwitchMaster && len(f) >= 1 && f[0] == r.opt.MasterName:
	case channel == chanPromotedSlave && len(f) >= 8 && f[4] == "@" && f[5] == r.opt.MasterName:
		old = net.JoinHostPort(f[6], f[7])
	case channel == chanPromotedSlave && len(f) >= 6 && f[4] == "@" && f[5] == r.opt.MasterName:
	case channel == chanSelectedSlave && len(f) >= 6 && f[4] == "@" && f[5] == r.opt.MasterName:
		r.stats.pubSubHints.Add(1)
		r.followPromotion(net.JoinHostPort(f[2], f[3]))
		return
	default:
		return
	}
	r.stats.pubSubHints.Add(1)
	warm := r.spool.has(from)
	r.mu.Lock()
	if warm {
		// Asked first: it has the newest view. Only when a query
		// connection to it is open, so that a fleet's failover opens no
		// sentinel connection (the sentinels that are asked catch up
		// within milliseconds and publish +switch-master themselves).
		r.sentinels.toFront(from)
	}
	r.hintLocked()
	var stale []*trackedConn
	fence := old != "" && old == r.addr && r.want == roleMaster && !r.fenced
	if fence {
		r.fenced = true
		r.gen++
		r.genA.Store(r.gen)
		stale = r.staleLocked()
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
