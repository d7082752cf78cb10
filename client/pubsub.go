package client

import (
	"errors"
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
// or learnt), re-established with jittered backoff when it fails.
func (r *resolver) subscriber() {
	defer r.wg.Done()
	fails := 0
	for !r.closed() {
		rc, addr, err := r.subscribe()
		if err != nil {
			fails++
			// Also woken when a resolution ends: the list may have grown.
			if r.sleep(r.ctx, backoff(fails, 100*time.Millisecond, 5*time.Second)) != nil {
				return
			}
			continue
		}
		fails = 0
		if r.hasAddr() || r.want == roleSlave {
			// Catch up on anything missed while unsubscribed.
			r.kick()
		}
		r.readSub(rc, addr)
		r.dropSubConn(rc, addr)
		rc.Close()
		if r.sleepCtx(backoff(0, 50*time.Millisecond, 100*time.Millisecond)) != nil {
			return
		}
	}
}

// sleepCtx waits d or until shutdown.
func (r *resolver) sleepCtx(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-r.ctx.Done():
		return ErrClientClosed
	}
}

// subscribe connects to the first sentinel of the list that has no
// subscription of this client yet (or the following ones if it fails) and
// subscribes to the hint channels.
func (r *resolver) subscribe() (*respConn, string, error) {
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
		rc, err := r.subscribeTo(s)
		if err != nil {
			r.releaseSub(s)
			errs = append(errs, err)
			continue
		}
		return rc, s, nil
	}
	return nil, "", &DiscoveryError{Kind: ErrNoSentinelReachable, Master: r.opt.MasterName, Attempts: errs}
}

// subscribeTo connects to sentinel s and subscribes to the hint channels.
func (r *resolver) subscribeTo(s string) (*respConn, error) {
	if r.closed() {
		return nil, ErrClientClosed
	}
	deadline := deadlineFor(r.ctx, r.opt.SentinelTimeout)
	c, err := dialWith(r.ctx, r.opt.SentinelDialer, r.opt.SentinelTLSConfig, s, deadline)
	if err != nil {
		return nil, &SentinelError{Addr: s, Err: err}
	}
	rc := newRespConn(c)
	cmds := [][]string{append([]string{"SUBSCRIBE"}, hintChannels...)}
	if auth := authCmd(r.opt.SentinelUsername, r.opt.SentinelPassword); auth != nil {
		cmds = append([][]string{auth}, cmds...)
	}
	// One confirmation per channel.
	rs, err := rc.do(deadline, cmds...)
	for k := 1; k < len(hintChannels) && err == nil; k++ {
		var extra reply
		extra, _, err = readReply(rc.br, 0)
		rs = append(rs, extra)
	}
	if err == nil {
		for _, x := range rs {
			if e := x.err(); e != nil {
				err = e
			}
		}
	}
	if err == nil {
		err = rc.SetDeadline(time.Time{})
	}
	if err != nil {
		c.Close()
		return nil, &SentinelError{Addr: s, Err: err}
	}
	if !r.addSubConn(rc) {
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
func (r *resolver) addSubConn(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed() {
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

// readSub reads pub/sub messages until the connection fails or is closed.
func (r *resolver) readSub(rc *respConn, from string) {
	for {
		m, _, err := readReply(rc.br, 0)
		if err != nil {
			return
		}
		if m.typ != '*' || len(m.arr) != 3 || m.arr[0].str != "message" {
			continue
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
	r.mu.Lock()
	r.sentinels.toFront(from)
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
	}
	r.kick()
}
