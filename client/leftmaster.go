package client

import (
	"errors"
	"sort"
	"time"
)

// Masters the client left, and one sentinel's claims about them (see
// docs/client.md, "A sentinel's claim does not undo a switch").
//
// ROLE verification cannot tell a lying sentinel from a true one when the
// address it names is a master the client left: after SENTINEL FAILOVER
// the old master stays a writable role:master for about ten seconds, and a
// partitioned old master stays one until the partition heals. The epoch
// ranking would follow any sentinel that claims a newer config epoch for
// it. So an answer that names such an address with a newer epoch than
// the client knows for it counts only when enough sentinels of the round
// (corroboration, see need) say the same; otherwise it does not rank above
// what the client knows:
//
//   - a master the client switched away from (after +switch-master, a
//     resolution, or the early switch): its answers are dropped unless
//     need of them name it with an epoch above the one it was left at
//     (after leftHold, any epoch: a sentinel does not lag that long, and a
//     liar that inflated the epoch must not block a genuine failback for
//     ever);
//   - the current master: an answer claiming a newer epoch for it counts
//     with the epoch the client knows, unless need answers claim it.
//
// A single sentinel, or one that agrees with another faulty one, is not a
// quorum: a byzantine sentinel majority is out of scope, as it is for
// Sentinel itself.

// maxLeft caps how many left masters are remembered (oldest forgotten).
const maxLeft = 8

// leftMaster is a master the client switched away from.
type leftMaster struct {
	addr string
	// epoch is the highest config epoch the client knew when it left
	// addr (the one backing addr, and the one backing the master it
	// switched to), -1 if unknown.
	epoch int64
	at    time.Time
}

// errLeftMaster is the attempt recorded for a sentinel whose answer named
// a master the client left, without corroboration.
var errLeftMaster = errors.New("names a master the client left, and no other sentinel confirms it")

// trust is how screen treats one answer.
type trust int

const (
	trustOK      trust = iota
	trustCapped        // names the current master with an uncorroborated newer epoch: ranked at the known epoch
	trustDropped       // names a left master without corroboration
)

// trustView is what screen needs, read under resolver.mu once per round.
type trustView struct {
	cur   string
	epoch int64
	left  []leftMaster
	need  int
	hold  time.Duration
	now   time.Time
}

// trustViewLocked returns the current trustView; the caller holds r.mu.
func (r *resolver) trustViewLocked() trustView {
	return trustView{
		cur:   r.addr,
		epoch: r.epoch,
		left:  append([]leftMaster(nil), r.left...),
		need:  r.corroborationLocked(),
		hold:  r.opt.PromotionGrace,
		now:   time.Now(),
	}
}

// corroborationLocked is how many answers of one round must agree on a
// claim about a master the client knows (see screen): max(2,
// SentinelQuorum), but not more than the sentinels the client knows (a
// deployment with one sentinel has nobody to confirm it). The caller holds
// r.mu.
func (r *resolver) corroborationLocked() int {
	return max(1, min(max(2, r.opt.SentinelQuorum), len(r.sentinels)))
}

// corroboration is corroborationLocked for callers without r.mu.
func (r *resolver) corroboration() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.corroborationLocked()
}

// leftAt returns the record of addr if the client left it.
func (v trustView) leftAt(addr string) (leftMaster, bool) {
	for _, l := range v.left {
		if l.addr == addr {
			return l, true
		}
	}
	return leftMaster{}, false
}

// screen returns the answers the ranking may use, and how each of answers
// was treated: answers naming a left master are dropped unless
// corroborated; answers claiming a newer epoch for the current master are
// capped at the known epoch unless corroborated (see the file comment).
func (v trustView) screen(answers []*masterAnswer) ([]*masterAnswer, []trust) {
	st := make([]trust, len(answers))
	out := make([]*masterAnswer, 0, len(answers))
	for i, a := range answers {
		switch l, left := v.leftAt(a.addr); {
		case a.addr == v.cur && v.cur != "":
			if v.epoch < 0 || rawEpoch(a) <= v.epoch || v.votes(answers, a.addr, v.epoch, false) >= v.need {
				out = append(out, a)
				continue
			}
			capped := *a
			capped.epoch, capped.promoting = v.epoch, false
			st[i] = trustCapped
			out = append(out, &capped)
		case left:
			anyEpoch := l.epoch < 0 || v.now.Sub(l.at) >= v.hold
			if v.votes(answers, a.addr, l.epoch, anyEpoch) >= v.need {
				out = append(out, a)
				continue
			}
			st[i] = trustDropped
		default:
			out = append(out, a)
		}
	}
	return out, st
}

// votes counts the answers naming addr with a config epoch above above
// (with any epoch when anyEpoch).
func (v trustView) votes(answers []*masterAnswer, addr string, above int64, anyEpoch bool) int {
	n := 0
	for _, a := range answers {
		if a.addr == addr && (anyEpoch || rawEpoch(a) > above) {
			n++
		}
	}
	return n
}

// isLeftLocked reports whether the client left addr (a master it may go
// back to only when the sentinels corroborate it, see screen); the caller
// holds r.mu.
func (r *resolver) isLeftLocked(addr string) bool {
	for _, l := range r.left {
		if l.addr == addr {
			return true
		}
	}
	return false
}

// leaveLocked records that the client switched from old (backed by config
// epoch oldEpoch) to addr (backed by epoch); addr is no longer a left
// master. The caller holds r.mu.
func (r *resolver) leaveLocked(old string, oldEpoch int64, addr string, epoch int64) {
	kept := r.left[:0]
	for _, l := range r.left {
		if l.addr != old && l.addr != addr {
			kept = append(kept, l)
		}
	}
	r.left = kept
	if old == "" {
		return
	}
	if len(r.left) >= maxLeft {
		r.left = append(r.left[:0], r.left[1:]...)
	}
	r.left = append(r.left, leftMaster{addr: old, epoch: max(oldEpoch, epoch), at: time.Now()})
}

// answerEpoch is the config epoch the answers back addr with: when need
// or more of them name it, the need-th highest (one sentinel cannot raise
// it alone), otherwise the highest.
func answerEpoch(answers []*masterAnswer, addr string, need int) int64 {
	var es []int64
	for _, a := range answers {
		if a.addr == addr {
			es = append(es, rawEpoch(a))
		}
	}
	if len(es) == 0 {
		return -1
	}
	sort.Slice(es, func(i, j int) bool { return es[i] > es[j] })
	if need >= 1 && len(es) >= need {
		return es[need-1]
	}
	return es[0]
}
