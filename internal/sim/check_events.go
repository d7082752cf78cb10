package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// eventMaster is the master named by an event's "%@" prefix ("" for an
// event without one: +new-epoch, +switch-master, +tilt...).
func eventMaster(e core.Emit) string {
	if e.Subject == nil {
		return ""
	}
	return e.Subject.Master
}

// emit checks one event of s (S2, S5, S6, S7, S9 bookkeeping). now is the
// local time it happened; late lists the steps it may come from if it was
// held (late.go), nil otherwise.
func (c *checker) emit(w *World, s *sentinel, e core.Emit, now int64, late []stepRec) {
	ch := &s.chk
	tilt := ch.tilt
	if late != nil {
		tilt = allSteps(late, func(r stepRec) bool { return r.coreTilt })
	}
	switch e.Type {
	case "+tilt":
		ch.tilt = true
	case "-tilt":
		ch.tilt = false
	case "+vote-for-leader":
		c.votePublished(w, s, e.Msg)
	case "+odown":
		name := eventMaster(e)
		ch.mc(name).odown = true
		if n, q, ok := parseQuorum(e.Msg); ok && (n < q || q != c.opt.Quorum) {
			w.violate("S5", s, "+odown with %d/%d votes, quorum is %d", n, q, c.opt.Quorum)
		}
		c.odownTruth(w, s, name, now)
	case "-odown":
		ch.mc(eventMaster(e)).odown = false
	case "+reset-master":
		name := eventMaster(e)
		ch.resets = append(ch.resets, name)
		c.masterReset(w, s, ch.mc(name))
		c.forgetHeardOf(s, name)  // D2, S5: the peers' answers went with them
		s.truth.forgetPeerPings() // D1: so did the replies to their PINGs
		if s.opOutstanding == 0 {
			w.violate("O1", s, "+reset-master of %s without a SENTINEL RESET", name)
		}
	case "+try-failover":
		name := eventMaster(e)
		x := ch.mc(name)
		if v, _ := view(s, name); v.ForcedFailover {
			x.lastAttempt, x.hasAttempt, x.attemptV, x.attemptForced = now, true, w.sch.now, true
			x.noGood = false
			return // SENTINEL FAILOVER: no ODOWN, election or pacing needed
		}
		odown := x.odown
		if late != nil {
			odown = !allSteps(late, func(r stepRec) bool { return !r.odown[name] })
		}
		if !odown {
			w.violate("S5", s, "+try-failover without ODOWN")
		}
		if tilt {
			w.violate("S5", s, "+try-failover in TILT")
		}
		lim := 2 * c.opt.FailoverTimeout
		evV := w.sch.now // virtual time of this attempt
		if late != nil && len(late) > 0 {
			evV = late[0].virtual
		}
		// A vote for another sentinel after the previous attempt moved the
		// core's reference (failover_start_time) to the vote: the vote
		// check below covers it, and measuring from the attempt would be
		// wrong across a clock jump (local times out of order).
		votedSince := x.hasVoteOther && x.voteOtherV > x.attemptV
		if x.hasAttempt && !votedSince && now-x.lastAttempt < lim {
			if why := earlyRetryRefused(s, x, name, now, late); why != "" {
				w.violate("S7", s, "new failover attempt %dms after the previous one (< 2×failover-timeout = %d)%s", now-x.lastAttempt, lim, why)
			}
		}
		x.noGood = false
		// Not a vote made after the attempt (which a late event can follow).
		voteBefore := late == nil || len(late) > 0 && late[len(late)-1].virtual > x.voteOtherV
		if x.hasVoteOther && voteBefore && now-x.lastVoteOther < lim {
			w.violate("S7", s, "failover attempt %dms after voting for another sentinel (< 2×failover-timeout = %d)", now-x.lastVoteOther, lim)
		}
		// A late attempt from a step up to the one whose address change
		// restarted pacing came before that change (seed 812032: the
		// attempt, held behind its vote, and the +switch-master of a
		// later step in the same millisecond).
		if late == nil || len(late) > 0 && late[len(late)-1].step > x.paceResetStep {
			x.lastAttempt, x.hasAttempt, x.attemptV, x.attemptForced = now, true, evV, false
		} // else: an attempt from before the address change that restarted pacing
	case "+elected-leader":
		if tilt {
			w.violate("S5", s, "+elected-leader in TILT")
		}
		name := eventMaster(e)
		v, _ := view(s, name)
		k := mepoch{name, v.FailoverEpoch}
		if v.ForcedFailover {
			// SENTINEL FAILOVER needs no election: it may share an epoch
			// with an automatic one (seed 106777: the liveness driver's
			// forced failover and a peer's election both in epoch 3).
			break
		}
		if prev, ok := c.leaders[k]; ok && prev != s.id {
			w.violate("S2", s, "second leader in epoch %d of %s (sentinel %d won it already)", k.epoch, name, prev)
		} else {
			c.leaders[k] = s.id // the first leader stays the one S3 accepts
		}
		if !v.ForcedFailover {
			ch.elected = append(ch.elected, name) // votes counted after the step's votes are recorded
		}
	case "+selected-slave":
		c.selection(w, s, e)
	case "+slave-reconf-sent":
		// L1's "respecting parallel-syncs": at most parallel-syncs replicas
		// in RECONF_SENT/INPROG at once (the best-effort SLAVEOF after a
		// failover timeout, +slave-reconf-sent-be, is exempt).
		x := ch.mc(eventMaster(e))
		if x.reconf == nil {
			x.reconf = map[string]bool{}
		}
		if e.Subject != nil {
			x.reconf[e.Subject.Name] = true
		}
		if len(x.reconf) > c.opt.ParallelSyncs {
			w.violate("L1", s, "%d replicas reconfigured at once, parallel-syncs is %d", len(x.reconf), c.opt.ParallelSyncs)
		}
	case "+slave-reconf-done", "-slave-reconf-sent-timeout":
		if e.Subject != nil {
			delete(ch.mc(eventMaster(e)).reconf, e.Subject.Name)
		}
	case "+failover-end", "+failover-end-for-timeout", "-failover-abort-not-elected", "-failover-abort-no-good-slave", "-failover-abort-slave-timeout":
		x := ch.mc(eventMaster(e))
		x.reconf = nil
		if e.Type == "-failover-abort-no-good-slave" && x.hasAttempt && !x.attemptForced {
			// An elected automatic attempt found no replica: it may be
			// retried before 2×failover-timeout (earlyRetryRefused).
			x.noGood, x.noGoodAt, x.noGoodV = true, now, w.sch.now
			if late != nil && len(late) > 0 {
				x.noGoodV = late[0].virtual
			}
		}
	case "+switch-master":
		f := strings.Fields(e.Msg)
		if len(f) == 5 {
			op, _ := strconv.Atoi(f[2])
			np, _ := strconv.Atoi(f[4])
			ch.switches = append(ch.switches, switchMsg{f[0], core.Addr{IP: f[1], Port: op}, core.Addr{IP: f[3], Port: np}})
		} else {
			w.violate("S9", s, "malformed +switch-master %q", e.Msg)
		}
	}
}

// election is the vote count of S2 for a +elected-leader of s (at the end
// of the step, once its own vote is recorded): the leader holds votes of a
// majority of the true sentinels in its failover epoch.
func (c *checker) election(w *World, s *sentinel, name string) {
	v, _ := view(s, name)
	ep := v.FailoverEpoch
	n := 0
	for vk, vr := range c.votes {
		if vk.master == name && vk.epoch == ep && strings.EqualFold(vr.leader, s.core.MyID()) {
			n++
		}
	}
	if n < c.majority() {
		w.violate("S2", s, "elected in epoch %d with %d votes, needs %d of %d sentinels", ep, n, c.majority(), c.opt.Sentinels)
	}
}

// parseQuorum reads "... #quorum n/q" of +odown.
func parseQuorum(msg string) (n, q int, ok bool) {
	i := strings.Index(msg, "#quorum ")
	if i < 0 {
		return 0, 0, false
	}
	a, b, found := strings.Cut(strings.TrimSpace(msg[i+len("#quorum "):]), "/")
	if !found {
		return 0, 0, false
	}
	n, err1 := strconv.Atoi(a)
	q, err2 := strconv.Atoi(b)
	return n, q, err1 == nil && err2 == nil
}

// earlyRetryRefused judges an automatic attempt that comes less than
// 2×failover-timeout after the previous one of s, with no vote for another
// sentinel since that attempt: it is allowed (docs/core.md decision 27)
// only when the previous attempt was automatic and aborted with
// -failover-abort-no-good-slave, at least core.NoGoodSlaveRetryDelay before
// this one, no vote for another sentinel came after the abort, and in the
// step of this attempt the sentinel's own view showed a replica it could
// select: not SDOWN, priority ≠ 0 (necessary for the core's selection; S6
// and E1 judge the choice). It returns "" when allowed, otherwise
// why not.
func earlyRetryRefused(s *sentinel, x *masterCheck, name string, now int64, late []stepRec) string {
	switch {
	case !x.noGood || x.noGoodV < x.attemptV:
		return ""
	case x.hasVoteOther && x.voteOtherV >= x.noGoodV:
		return "; it voted for another sentinel after its -failover-abort-no-good-slave"
	case now-x.noGoodAt < core.NoGoodSlaveRetryDelay:
		return fmt.Sprintf("; an early retry %dms after -failover-abort-no-good-slave (< %d)", now-x.noGoodAt, core.NoGoodSlaveRetryDelay)
	}
	ok := false
	switch {
	case late == nil: // this step: the view is as of its end
		ok = replicaOK(s, name)
	case len(late) == 0: // no longer remembered: judged leniently
		ok = true
	default: // any of the steps it may come from
		ok = !allSteps(late, func(r stepRec) bool { return !r.replicaOK[name] })
	}
	if !ok {
		return "; an early retry after -failover-abort-no-good-slave with no selectable replica in its view"
	}
	return ""
}

// replicaOK reports that s's view of master name holds a replica the
// core's selection could accept: not SDOWN, priority ≠ 0. (Not whether it
// is connected: the view is as of the end of the step, and link recycling
// later in the same tick may close a connection the selection saw up.)
func replicaOK(s *sentinel, name string) bool {
	v, ok := view(s, name)
	if !ok {
		return false
	}
	for _, r := range v.Replicas {
		if !r.SDown && r.Priority != 0 {
			return true
		}
	}
	return false
}
