package sim

import (
	"fmt"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// Liveness (L1–L4) is checked in the healed phase by a small driver that
// polls the true state every livePoll ms:
//
//	converge: all faults healed; wait for L1 (one agreed master, replicas
//	          following it) until convergeBound.
//	failover: (optional) kill the agreed master when an eligible replica
//	          exists; the sentinels must agree on another one before
//	          failoverBound (L2).
//	demote:   restart the old master; it must end up a replica of the new
//	          one before demoteBound (L3).
//	quiet:    no new epoch (election) for quietWindow, and L1 still holds
//	          at the end (L4). Then the run stops.
const livePoll = 100

// Liveness phases.
const (
	phaseConverge = iota
	phaseManual
	phaseFailover
	phaseDemote
	phaseQuiet
	phaseDone
)

type liveState struct {
	phase      int
	deadline   int64
	killed     *instance
	killedAll  []*instance // every master killed on purpose, restarted together
	doubleDone bool        // the new master was killed right after the first failover

	// Round nine (infodeny.go): the replicas whose INFO is denied before
	// the kill, and when the kill may come.
	infoDenied   []*instance
	infoDenyDone bool
	killAt       int64

	stableSince int64 // converged continuously since (0: not converged)

	manualDone  bool
	manualFrom  *instance   // master before the SENTINEL FAILOVER
	manualReply *core.Value // its reply, once the core answered
	epoch       uint64      // highest current epoch when the quiet window started
}

// Bounds of the liveness phases, derived from the options. A failover may
// need several election rounds: simultaneous candidates split the votes
// (the start desync is only 0–999 ms) and each loser waits
// 2×failover-timeout before trying again. electionRounds rounds are
// allowed before a failure to converge counts as a violation.
const electionRounds = 4

func (o Options) roundCost() int64 {
	return 2*o.FailoverTimeout + 1000 + o.Timing.ElectionTimeout
}

func (o Options) convergeBound() int64 {
	// TILT, then elections, then fix-slave-config (failover-timeout after
	// the address change), plus detection delays.
	return o.Timing.TiltPeriod + electionRounds*o.roundCost() + o.FailoverTimeout + 6*o.DownAfter
}

func (o Options) failoverBound() int64 {
	return o.DownAfter + electionRounds*o.roundCost() + o.FailoverTimeout
}

func (o Options) demoteBound() int64 {
	return o.LoadingTime + o.FailoverTimeout + 8*o.Timing.PublishPeriod + 3*o.Timing.InfoPeriod + 3000
}

func (o Options) quietWindow() int64 { return 2*o.FailoverTimeout + o.DownAfter }

// scheduleHeal arms the healed phase.
func (w *World) scheduleHeal() {
	w.sch.at(w.opt.healStart(), func() {
		w.healAll()
		w.live = liveState{phase: phaseConverge, deadline: w.sch.now + w.opt.convergeBound()}
		w.restoreConfig()
		w.sch.after(livePoll, w.livePoll)
	})
}

// livePoll advances the liveness driver.
func (w *World) livePoll() {
	now := w.sch.now
	l := &w.live
	var skipS *sentinel
	if w.opt.Misconfigured && l.phase == phaseConverge {
		skipS = w.sent[len(w.sent)-1] // comes round only after a real failover
	}
	w.reattachForgotten(skipS) // operator.go
	ok, why := w.converged(l.killed, skipS)
	if !ok {
		l.stableSince = 0
	} else if l.stableSince == 0 {
		l.stableSince = now
	}
	// Act only on a convergence that lasted two INFO periods: the
	// sentinels' views (replica links, INFO) must have caught up.
	stable := ok && now-l.stableSince >= 2*w.opt.Timing.InfoPeriod
	switch l.phase {
	case phaseConverge:
		if stable {
			if w.opt.ManualFailover && !l.manualDone && w.eligibleReplica() {
				w.manualFailover()
				break
			}
			if w.opt.KillMasterAfterHeal && w.eligibleReplica() {
				if w.opt.InfoDenied != InfoDeniedNone && l.infoDenied == nil && !l.infoDenyDone {
					// Round nine: deny INFO first, kill once the
					// replicas' last INFO is past selection's limit.
					l.infoDenyDone = true
					if l.infoDenied = w.denyInfo(); l.infoDenied != nil {
						l.killAt = now + w.opt.infoDenyLead()
						break
					}
				}
				if now < l.killAt {
					break
				}
				m := w.agreedMaster(0)
				w.tracef("liveness: converged; killing master %s", m.addr.IP)
				w.crashInstance(m)
				l.killed, l.phase, l.deadline = m, phaseFailover, now+w.opt.failoverBound()
				l.killedAll = append(l.killedAll, m)
				if denied := l.infoDenied; denied != nil {
					// No failover can select a denied replica meanwhile.
					l.deadline += w.opt.InfoDeniedFor
					w.sch.after(w.opt.InfoDeniedFor, func() { w.allowInfo(denied) })
				}
			} else {
				w.startQuiet()
			}
		} else if !ok && now > l.deadline {
			w.violate("L1", nil, "no convergence %dms after healing: %s\n%s", w.opt.convergeBound(), why, w.stateDump())
			l.phase = phaseDone
			return
		}
	case phaseManual:
		if r := l.manualReply; r != nil && r.Kind == core.KindError {
			w.violate("L2", nil, "SENTINEL FAILOVER refused after convergence with an eligible replica: -%s\n%s", r.Str, w.stateDump())
			l.phase = phaseDone
			return
		}
		if ok && w.agreedMaster(0) != l.manualFrom {
			w.tracef("liveness: manual failover done")
			l.manualDone, l.phase, l.deadline = true, phaseConverge, now+w.opt.convergeBound()
		} else if now > l.deadline {
			w.violate("L2", nil, "SENTINEL FAILOVER did not complete within %dms: %s\n%s", w.opt.failoverBound(), why, w.stateDump())
			l.phase = phaseDone
			return
		}
	case phaseFailover:
		if ok {
			if w.opt.DoubleKill && !l.doubleDone && w.eligibleReplica() {
				// Kill the new master at once, before the sentinels had
				// time to settle around it (redis #1309): a second
				// failover must follow.
				m := w.agreedMaster(0)
				w.tracef("liveness: failover done; killing the new master %s at once", m.addr.IP)
				w.crashInstance(m)
				l.killed, l.doubleDone, l.deadline = m, true, now+w.opt.failoverBound()
				l.killedAll = append(l.killedAll, m)
				break
			}
			for _, k := range l.killedAll {
				w.tracef("liveness: failover done; restarting old master %s", k.addr.IP)
				w.restartInstance(k)
			}
			l.killed, l.killedAll, l.phase, l.deadline = nil, nil, phaseDemote, now+w.opt.demoteBound()
		} else if now > l.deadline {
			w.violate("L2", nil, "no failover %dms after the master died with a majority and an eligible replica up: %s\n%s",
				w.opt.failoverBound(), why, w.stateDump())
			l.phase = phaseDone
			return
		}
	case phaseDemote:
		if stable {
			w.startQuiet()
		} else if !ok && now > l.deadline {
			w.violate("L3", nil, "returning old master not demoted within %dms: %s\n%s", w.opt.demoteBound(), why, w.stateDump())
			l.phase = phaseDone
			return
		}
	case phaseQuiet:
		if e := w.maxEpoch(); e != l.epoch {
			w.violate("L4", nil, "new election (epoch %d -> %d) after convergence in a healthy network\n%s", l.epoch, e, w.stateDump())
			l.phase = phaseDone
			return
		}
		if now >= l.deadline {
			if !ok {
				w.violate("L1", nil, "convergence lost in a healthy network: %s\n%s", why, w.stateDump())
				l.phase = phaseDone
				return
			}
			w.chk.unanswered(w)
			l.phase = phaseDone
			return
		}
	default:
		return
	}
	w.sch.after(livePoll, w.livePoll)
}

// manualFailover sends SENTINEL FAILOVER to a random sentinel, as an
// operator's client would.
func (w *World) manualFailover() {
	l := &w.live
	n := len(w.sent)
	if w.opt.Misconfigured {
		n-- // the misconfigured sentinel does not know the real master yet
	}
	s := w.sent[w.opt.ManualSentinel%n]
	l.manualFrom, l.manualReply = w.agreedMaster(0), nil
	l.phase, l.deadline = phaseManual, w.sch.now+w.opt.failoverBound()
	w.tracef("liveness: converged; SENTINEL FAILOVER %s to sentinel %d", MasterName, s.id)
	s.nextReq++
	s.reqs[s.nextReq] = reqRoute{args: []string{"SENTINEL", "FAILOVER", MasterName}, at: w.sch.now}
	w.toSentinel(s, s.inc, core.Request{ID: s.nextReq, Client: 1000, Args: []string{"SENTINEL", "FAILOVER", MasterName}})
}

func (w *World) startQuiet() {
	w.tracef("liveness: converged; quiet window of %dms", w.opt.quietWindow())
	w.live.phase = phaseQuiet
	w.live.deadline = w.sch.now + w.opt.quietWindow()
	w.live.epoch = w.maxEpoch()
}

// maxEpoch is the highest current epoch among running sentinels.
func (w *World) maxEpoch() uint64 {
	var e uint64
	for _, s := range w.sent {
		if s.up && s.core != nil && s.core.CurrentEpoch() > e {
			e = s.core.CurrentEpoch()
		}
	}
	return e
}

// agreedMaster is the instance of group g at the address sentinel 0
// (never the misconfigured one) gives for it.
func (w *World) agreedMaster(g int) *instance {
	v, ok := view(w.sent[0], w.masters[g])
	if !ok {
		return nil
	}
	if id := w.lookup(v.Addr); id >= 0 && id < len(w.inst) {
		return w.inst[id]
	}
	return nil
}

// eligibleReplica reports whether a running replica with priority ≠ 0
// follows the agreed master of the first group (the one the liveness
// driver fails over).
func (w *World) eligibleReplica() bool {
	m := w.agreedMaster(0)
	if m == nil {
		return false
	}
	for _, r := range w.group(0) {
		if r != m && r.up && r.priority != 0 && r.isReplicaOf(m.addr) && r.linkUp {
			return true
		}
	}
	return false
}

// converged is L1 for every master group: every sentinel (but skipS) is
// up, out of TILT and failover, sees the master up, and agrees on one
// address and config epoch; that instance is a running master; every
// other running instance of the group (but skip, killed on purpose)
// replicates from it with its link up, and every sentinel lists it as a
// connected, healthy replica of that master.
func (w *World) converged(skip *instance, skipS *sentinel) (bool, string) {
	for _, s := range w.sent {
		if s == skipS {
			continue
		}
		if !s.up {
			return false, fmt.Sprintf("sentinel %d is down", s.id)
		}
		if s.core.InTilt() {
			return false, fmt.Sprintf("sentinel %d is in TILT", s.id)
		}
	}
	for g := range w.masters {
		if ok, why := w.groupConverged(g, skip, skipS); !ok {
			return false, why
		}
	}
	return true, ""
}

func (w *World) groupConverged(g int, skip *instance, skipS *sentinel) (bool, string) {
	name := w.masters[g]
	var first core.MasterView
	firstID := -1
	for _, s := range w.sent {
		if s == skipS {
			continue
		}
		v, ok := view(s, name)
		if !ok {
			return false, fmt.Sprintf("sentinel %d does not monitor %s", s.id, name)
		}
		if v.FailoverState != 0 {
			return false, fmt.Sprintf("sentinel %d is in failover state %s for %s", s.id, v.FailoverState, name)
		}
		if v.SDown || v.ODown {
			return false, fmt.Sprintf("sentinel %d sees %s down", s.id, name)
		}
		if firstID < 0 {
			first, firstID = v, s.id
			continue
		}
		if !sameAddr(first.Addr, v.Addr) || first.ConfigEpoch != v.ConfigEpoch {
			return false, fmt.Sprintf("sentinels disagree on %s: s%d says %s@%d, s%d says %s@%d",
				name, firstID, fmtAddr(first.Addr), first.ConfigEpoch, s.id, fmtAddr(v.Addr), v.ConfigEpoch)
		}
	}
	m := w.agreedMaster(g)
	if m == nil || m == skip || !m.up || m.role != roleMaster {
		return false, fmt.Sprintf("the agreed master of %s is not a running master", name)
	}
	for _, r := range w.group(g) {
		if r == m || r == skip || !r.up {
			continue
		}
		if !r.isReplicaOf(m.addr) || !r.linkUp {
			return false, fmt.Sprintf("%s is %s of %s:%d (link up %v), not following %s",
				r.addr.IP, r.role, r.masterHost, r.masterPort, r.linkUp, m.addr.IP)
		}
		// Every sentinel must also know it as a connected, healthy replica
		// of that master with its link up (its view caught up).
		for _, s := range w.sent {
			if s == skipS {
				continue
			}
			v, _ := view(s, name)
			if !knowsReplica(v, r, m) {
				return false, fmt.Sprintf("sentinel %d has not caught up with replica %s", s.id, r.addr.IP)
			}
		}
	}
	return true, ""
}

// knowsReplica reports whether view v lists r as a connected, healthy
// replica of m with its master link up.
func knowsReplica(v core.MasterView, r, m *instance) bool {
	for _, rv := range v.Replicas {
		if sameAddr(rv.Addr, r.addr) {
			return !rv.Disconnected && !rv.SDown && rv.MasterLinkUp &&
				m.hostMatches(rv.MasterHost) && rv.MasterPort == m.addr.Port
		}
	}
	return false
}

// stateDump renders the true state and every sentinel's view.
func (w *World) stateDump() string {
	var b strings.Builder
	for _, in := range w.inst {
		fmt.Fprintf(&b, "  redis %s up=%v paused=%v role=%s", in.addr.IP, in.up, in.paused, in.role)
		if in.role == roleSlave {
			fmt.Fprintf(&b, " of %s:%d link=%v", in.masterHost, in.masterPort, in.linkUp)
		}
		fmt.Fprintf(&b, " prio=%d offset=%d\n", in.priority, in.offset)
	}
	for _, s := range w.sent {
		if !s.up || s.core == nil {
			fmt.Fprintf(&b, "  sentinel %d down\n", s.id)
			continue
		}
		fmt.Fprintf(&b, "  sentinel %d epoch=%d tilt=%v", s.id, s.core.CurrentEpoch(), s.core.InTilt())
		for _, name := range w.masters {
			v, _ := view(s, name)
			fmt.Fprintf(&b, " | %s=%s config-epoch=%d failover=%s sdown=%v odown=%v leader=%s@%d replicas=%d sentinels=%d",
				name, fmtAddr(v.Addr), v.ConfigEpoch, v.FailoverState, v.SDown, v.ODown, short(v.Leader), v.LeaderEpoch,
				len(v.Replicas), len(v.Sentinels))
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}
