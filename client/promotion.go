package client

import (
	"context"
	"log/slog"
	"net"
	"time"
)

// Early switch on promotion.
//
// The failover leader publishes +selected-slave before it sends REPLICAOF NO
// ONE to the chosen replica, but it publishes +promoted-slave (and starts
// answering GET-MASTER-ADDR-BY-NAME with the new address) only after its
// next INFO of that replica shows role:master — up to a second later. Writes
// the old master acknowledges in between are lost when it is demoted. So on
// +selected-slave the client polls ROLE on the selected replica and switches
// to it as soon as it reports master. The switch is sticky for
// PromotionGrace: a resolution in that window that still hears the old
// address from lagging sentinels keeps the promoted node while it reports
// master.

const promotionPoll = 10 * time.Millisecond

// followPromotion starts (once per replica address) the ROLE poller for a
// replica the leader selected.
func (r *resolver) followPromotion(addr string) {
	if r.opt.PromotionWatch <= 0 || r.want != roleMaster {
		return
	}
	r.mu.Lock()
	if r.following == addr || r.addr == addr || r.closed() || r.isLeftLocked(addr) {
		// A master the client left is gone back to only when the
		// sentinels corroborate it (leftmaster.go), never on an event.
		r.mu.Unlock()
		return
	}
	r.following = addr
	ctx := r.actCtxLocked()
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		defer func() {
			r.mu.Lock()
			if r.following == addr {
				r.following = ""
			}
			r.mu.Unlock()
		}()
		r.pollPromotion(ctx, addr)
	}()
}

// pollPromotion asks addr for ROLE every promotionPoll on one connection
// until it reports master (then switches to it), the client moved there
// anyway, or PromotionWatch passes.
func (r *resolver) pollPromotion(ctx context.Context, addr string) {
	ctx, cancel := context.WithTimeout(ctx, r.opt.PromotionWatch)
	defer cancel()
	var c net.Conn
	defer func() {
		if c != nil {
			c.Close()
		}
	}()
	for ctx.Err() == nil {
		r.mu.Lock()
		done := r.addr == addr
		r.mu.Unlock()
		if done {
			return
		}
		if c == nil {
			dl := deadlineFor(ctx, r.opt.SentinelTimeout)
			nc, err := dialWith(ctx, r.opt.Dialer, r.opt.TLSConfig, addr, dl)
			if err == nil {
				c = nc
			}
		}
		if c != nil {
			role, err := probeRole(c, deadlineFor(ctx, r.opt.SentinelTimeout), r.opt.Username, r.opt.Password)
			switch {
			case err != nil:
				c.Close()
				c = nil
			case role == roleMaster:
				r.mu.Lock()
				old, left := r.addr, r.isLeftLocked(addr)
				r.mu.Unlock()
				if left {
					return
				}
				r.stats.earlyPromotions.Add(1)
				r.commit(addr, -1, nil)
				r.mu.Lock()
				r.earlyFrom, r.earlyUntil = old, time.Now().Add(r.opt.PromotionGrace)
				r.broadcastLocked()
				r.mu.Unlock()
				return
			}
		}
		t := time.NewTimer(promotionPoll)
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
}

// preferEarly reorders resolution candidates: within the grace period after
// an early switch, the promoted address goes first so that lagging
// sentinels still naming the old master do not switch the client back
// while the promoted node reports master.
func (r *resolver) preferEarly(cands []string) []string {
	r.mu.Lock()
	cur, from, until := r.addr, r.earlyFrom, r.earlyUntil
	r.mu.Unlock()
	if from == "" || time.Now().After(until) || cur == "" {
		return cands
	}
	out := []string{cur}
	for _, c := range cands {
		if c != cur {
			out = append(out, c)
		}
	}
	return out
}

// eventSwitch is the first step of the resolution started by a fencing
// event (+promoted-slave from the failover leader, or +switch-master,
// naming the current master as the old one): the master the event named
// is dialled and verified with ROLE at once, without asking a sentinel
// first. The event came over this client's subscription to a sentinel of
// its list, the connection on which the query would have gone (a RESP3
// subscription carries the queries), and the leader answers
// GET-MASTER-ADDR-BY-NAME with the very address its +promoted-slave
// names; the query only added a round trip through a sentinel that a
// whole fleet asks at the same moment. ROLE still decides: a named node
// that is not a master (a lying or confused sentinel) is not used, and
// the resolution goes on with the sentinel queries. The switch gets the
// same grace as the early switch on promotion (PromotionGrace, see
// preferEarly): lagging sentinels that still name the old master, which
// after SENTINEL FAILOVER stays writable for seconds, do not switch the
// client back while the promoted node reports master. It reports whether
// the switch was made.
func (r *resolver) eventSwitch(ctx context.Context, c *call) bool {
	r.mu.Lock()
	addr, from, old, epoch := r.eventAddr, r.eventFrom, r.addr, r.epoch
	ok := c != nil && addr != "" && c.seq == r.eventSeq && r.fenced && r.want == roleMaster
	left := ok && r.isLeftLocked(addr)
	r.mu.Unlock()
	if left {
		// A master the client left (an event from a lying sentinel, or
		// a genuine failback): only corroborating sentinels take the
		// client back there (leftmaster.go).
		r.log(slog.LevelInfo, "the master an event named is one the client left: asking the sentinels", "sentinel", from, "named", addr)
		return false
	}
	if !ok {
		return false
	}
	conn, err := r.dialVerify(ctx, addr, roleMaster)
	if err != nil {
		r.log(slog.LevelInfo, "the master an event named did not verify: asking the sentinels", "sentinel", from, "named", addr, "err", err)
		return false
	}
	r.mu.Lock()
	stillOK := !c.superseded && r.addr == old && r.fenced
	r.mu.Unlock()
	if !stillOK {
		conn.Close()
		return false
	}
	r.stats.eventSwitches.Add(1)
	r.commit(addr, epoch, c)
	r.mu.Lock()
	if r.addr == addr {
		r.earlyFrom, r.earlyUntil = old, time.Now().Add(r.opt.PromotionGrace)
	}
	r.mu.Unlock()
	r.keepSpare(conn, addr, c)
	return true
}
