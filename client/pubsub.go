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

// subscriber keeps one pub/sub subscription, preferably to the i-th
// sentinel of the list, re-established with jittered backoff when it fails.
func (r *resolver) subscriber(i int) {
	defer r.wg.Done()
	fails := 0
	for !r.closed() {
		rc, addr, err := r.subscribe(i)
		if err != nil {
			fails++
			if r.sleepCtx(backoff(fails, 100*time.Millisecond, 5*time.Second)) != nil {
				return
			}
			continue
		}
		fails = 0
		if r.hasAddr() || r.want == roleSlave {
			// Catch up on anything missed while unsubscribed.
			_ = r.resolveShared(r.ctx)
		}
		r.readSub(rc, addr)
		r.dropSubConn(rc)
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

// subscribe connects to the i-th sentinel of the list (or the following
// ones if it fails) and subscribes to the hint channels.
func (r *resolver) subscribe(i int) (*respConn, string, error) {
	r.mu.Lock()
	order := append([]string(nil), r.sentinels...)
	r.mu.Unlock()
	if i >= len(order) {
		return nil, "", errors.New("no sentinel for this subscriber")
	}
	var errs []error
	for k := 0; k < len(order); k++ {
		s := order[(i+k)%len(order)]
		if r.closed() {
			return nil, "", ErrClientClosed
		}
		deadline := deadlineFor(r.ctx, r.opt.SentinelTimeout)
		c, err := dialWith(r.ctx, r.opt.SentinelDialer, r.opt.SentinelTLSConfig, s, deadline)
		if err != nil {
			errs = append(errs, &SentinelError{Addr: s, Err: err})
			continue
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
			errs = append(errs, &SentinelError{Addr: s, Err: err})
			continue
		}
		if !r.addSubConn(rc) {
			c.Close()
			return nil, "", ErrClientClosed
		}
		return rc, s, nil
	}
	return nil, "", &DiscoveryError{Kind: ErrNoSentinelReachable, Master: r.opt.MasterName, Attempts: errs}
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

func (r *resolver) dropSubConn(c net.Conn) {
	r.mu.Lock()
	delete(r.subConns, c)
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
// still comes from a sentinel query verified with ROLE. The sentinel that
// sent the hint is asked first, since it has the newest view.
func (r *resolver) onEvent(channel, payload, from string) {
	f := strings.Fields(payload)
	switch {
	case channel == chanSwitchMaster && len(f) >= 1 && f[0] == r.opt.MasterName:
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
	r.mu.Unlock()
	r.hint()
	_ = r.resolveShared(r.ctx)
}
