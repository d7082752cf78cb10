package core

import (
	"fmt"
	"strconv"
	"strings"
)

// startFailoverIfNeeded is sentinelStartFailoverIfNeeded, plus the
// staggered start of stagger.go.
func (s *Sentinel) startFailoverIfNeeded(m *instance) bool {
	ms := m.m
	if m.flags&fODown == 0 || m.flags&fFailoverInProgress != 0 {
		return false
	}
	var early *instance                                        // a replica that allows an early retry (retry.go)
	if end, blocked := s.blockEnd(m); blocked && s.now < end { // stagger.go
		if early = s.earlyRetry(m); early == nil {
			if ms.failoverDelayLogged != ms.failoverStartTime {
				ms.failoverDelayLogged = ms.failoverStartTime
				s.logf(LevelWarning, "Next failover delay: I will not start a failover before %d ms from now",
					end-s.now)
			}
			return false
		}
	}
	if early == nil && s.now < s.failoverStartAt(m) { // stagger.go; an early retry waited its turn (retry.go)
		return false
	}
	if s.currentEpoch >= MaxEpoch { // epoch.go: only a hand-edited config gets here
		if ms.failoverDelayLogged != -1 {
			ms.failoverDelayLogged = -1
			s.logf(LevelWarning, "Cannot start a failover: current epoch %d is at the maximum %d", s.currentEpoch, MaxEpoch)
		}
		return false
	}
	if !s.mayStartFailover(m) { // durable.go
		return false
	}
	if early != nil {
		s.logf(LevelWarning, "Retrying the failover of %s %d ms after -failover-abort-no-good-slave, before 2×failover-timeout: replica %s is eligible now (docs/core.md decision 27)",
			m.name, s.now-ms.noGoodSlave.at, early.name)
	}
	s.startFailover(m)
	return true
}

// startFailover is sentinelStartFailover.
func (s *Sentinel) startFailover(m *instance) {
	ms := m.m
	ms.failoverState = FailoverWaitStart
	ms.failoverStateChange = s.now
	m.flags |= fFailoverInProgress
	s.currentEpoch++
	ms.failoverEpoch = s.currentEpoch
	ms.noGoodSlave = noGoodSlaveAbort{} // retry.go
	ms.attemptStart = s.now
	// sentinel.c does not flush here (the self-vote that follows does), but
	// the forced IS-MASTER-DOWN-BY-ADDR requests sent right after carry the
	// new epoch: mark it dirty so they wait for the Persist (FINDINGS F1).
	s.markDirty()
	s.revealEvent(LevelWarning, "+new-epoch", m, strconv.FormatUint(s.currentEpoch, 10))
	s.eventAt(LevelWarning, "+try-failover", m, "") // held behind +new-epoch (event.go)
	ms.startDesync = s.desync()
	ms.failoverStartTime = s.now + ms.startDesync
}

// failoverStateMachine is sentinelFailoverStateMachine.
func (s *Sentinel) failoverStateMachine(m *instance) {
	if m.flags&fFailoverInProgress == 0 {
		return
	}
	if m.m.failoverState != FailoverWaitStart && s.eventsHeld(m) {
		// A +new-epoch / +vote-for-leader of this master waits for its
		// Persist (event.go): the failover's next events must not
		// overtake it.
		return
	}
	switch m.m.failoverState {
	case FailoverWaitStart:
		s.failoverWaitStart(m)
	case FailoverSelectSlave:
		s.failoverSelectSlave(m)
	case FailoverSendSlaveofNoOne:
		s.failoverSendSlaveOfNoOne(m)
	case FailoverWaitPromotion:
		s.failoverWaitPromotion(m)
	case FailoverReconfSlaves:
		s.failoverReconfNextSlave(m)
	}
}

// electionTimeout is min(election-timeout, failover-timeout).
func (s *Sentinel) electionTimeout(m *instance) Millis {
	t := s.timing.ElectionTimeout
	if t > m.m.failoverTimeout {
		t = m.m.failoverTimeout
	}
	return t
}

func (s *Sentinel) failoverWaitStart(m *instance) {
	ms := m.m
	leader := ""
	if s.durable() || m.flags&fForceFailover != 0 {
		// Non-durable (durable.go): no vote for ourselves, so no
		// election; the attempt is aborted below as not elected.
		leader = s.getLeader(m, ms.failoverEpoch)
	}
	if s.eventsHeld(m) {
		// Our epoch or vote is not on disk yet (its events are held,
		// event.go): act on the election once it is, as sentinel.c does
		// after flushing the vote in sentinelVoteLeader.
		return
	}
	isLeader := leader != "" && strings.EqualFold(leader, s.myid)
	if !isLeader && m.flags&fForceFailover == 0 {
		if s.now-ms.failoverStartTime > s.electionTimeout(m) {
			s.eventAt(LevelWarning, "-failover-abort-not-elected", m, "")
			s.abortFailover(m)
		}
		return
	}
	s.eventAt(LevelWarning, "+elected-leader", m, "")
	if s.simFlags&simCrashAfterElection != 0 {
		s.simulatedCrash("crash-after-election")
		return
	}
	ms.failoverState = FailoverSelectSlave
	ms.failoverStateChange = s.now
	s.eventAt(LevelWarning, "+failover-state-select-slave", m, "")
}

func (s *Sentinel) failoverSelectSlave(m *instance) {
	if s.tiltExit != 0 && s.now == s.tiltExit {
		// TILT ended in this tick, while handling the first master: the
		// replicas' SDOWN flags were not re-evaluated during TILT and are
		// only refreshed when their turn in this tick comes. Select on
		// the next tick, with fresh flags (docs/core.md decision 23; sim
		// seed 600899). sentinel.c selects on the stale flags.
		return
	}
	r := s.selectSlave(m)
	if r == nil {
		s.eventAt(LevelWarning, "-failover-abort-no-good-slave", m, "")
		s.noteNoGoodSlave(m) // retry.go
		s.abortFailover(m)
		return
	}
	s.eventAt(LevelWarning, "+selected-slave", r, "")
	r.flags |= fPromoted
	m.m.promoted = r
	m.m.noOneAfter = 0
	if s.unpersisted() {
		m.m.noOneAfter = s.persist.needSeq
	}
	m.m.failoverState = FailoverSendSlaveofNoOne
	m.m.failoverStateChange = s.now
	s.eventAt(LevelNotice, "+failover-state-send-slaveof-noone", r, "")
}

func (s *Sentinel) failoverSendSlaveOfNoOne(m *instance) {
	if m.m.newer.coordinated {
		s.failoverSendFailover(m) // coordinated.go
		return
	}
	r := m.m.promoted
	// SLAVEOF NO ONE reveals the failover epoch: it waits here until the
	// election is on disk and is then sent at once, never held. A held
	// one would be dropped by a failed Persist while the state machine
	// waited for a promotion nobody asked for, and took any instance of
	// that address reporting role:master (a restarted old master with
	// its own dataset) as promoted (sim E2, FINDINGS F6).
	if r.link.disconnected() || !r.connUp(false) || s.persist.doneSeq < m.m.noOneAfter {
		if s.now-m.m.failoverStateChange > m.m.failoverTimeout {
			s.eventAt(LevelWarning, "-failover-abort-slave-timeout", m, "")
			s.abortFailover(m)
		}
		return
	}
	if !s.sendSlaveOf(r, nil, true) {
		return
	}
	s.infoAfterSlaveOf(r, true)
	s.eventAt(LevelNotice, "+failover-state-wait-promotion", r, "")
	m.m.failoverState = FailoverWaitPromotion
	m.m.failoverStateChange = s.now
}

// infoAfterSlaveOf is a speed-up: INFO pipelined right after a SLAVEOF
// transaction, so its effect (the promotion, or the replica following the
// new master) is seen in one round trip instead of the next INFO period.
// An INFO already in flight was sent before the transaction: it is not
// waited for. direct says the transaction was sent at once (sendSlaveOf's
// result): the INFO then follows it at once too; otherwise it stays behind
// the transaction if that is held.
func (s *Sentinel) infoAfterSlaveOf(r *instance, direct bool) {
	if snd, ok := s.newSend(r, false, SendInfo, s.mapCmd(r, "INFO")); ok {
		r.infoPending = true
		if direct {
			s.emit(snd)
		} else {
			s.revealSend(snd)
		}
	}
}

func (s *Sentinel) failoverWaitPromotion(m *instance) {
	s.coordinatedPoll(m)
	if s.now-m.m.failoverStateChange > m.m.failoverTimeout {
		s.eventAt(LevelWarning, "-failover-abort-slave-timeout", m, "")
		s.abortFailover(m)
	}
}

// failoverReconfNextSlave is sentinelFailoverReconfNextSlave.
func (s *Sentinel) failoverReconfNextSlave(m *instance) {
	ms := m.m
	inProgress := 0
	replicas := m.sortedReplicas()
	for _, r := range replicas {
		if r.flags&(fReconfSent|fReconfInprog) != 0 {
			inProgress++
		}
	}
	for _, r := range replicas {
		if inProgress >= ms.parallelSyncs {
			break
		}
		if r.flags&(fPromoted|fReconfDone) != 0 {
			continue
		}
		if r.flags&fReconfSent != 0 && s.now-r.reconfSentTime > s.timing.SlaveReconfTimeout {
			s.eventAt(LevelNotice, "-slave-reconf-sent-timeout", r, "")
			r.flags &^= fReconfSent
			r.flags |= fReconfDone
			continue
		}
		if r.flags&(fReconfSent|fReconfInprog) != 0 || r.link.disconnected() {
			continue
		}
		// Our failover's reconfiguration is sent at once (decision 37).
		if direct, ok := s.sendSlaveOfReconf(r, ms.promoted.addr); ok {
			r.flags |= fReconfSent
			r.reconfSentTime = s.now
			s.eventAt(LevelNotice, "+slave-reconf-sent", r, "")
			inProgress++
			s.infoAfterSlaveOf(r, direct)
		}
	}
	s.failoverDetectEnd(m)
}

// failoverDetectEnd is sentinelFailoverDetectEnd.
func (s *Sentinel) failoverDetectEnd(m *instance) {
	ms := m.m
	if ms.promoted == nil || ms.promoted.flags&fSDown != 0 {
		return
	}
	notReconfigured := 0
	for _, r := range m.sortedReplicas() {
		if r.flags&(fPromoted|fReconfDone|fSDown) != 0 {
			continue
		}
		notReconfigured++
	}
	timeout := false
	if s.now-ms.failoverStateChange > ms.failoverTimeout {
		notReconfigured = 0
		timeout = true
		s.eventAt(LevelWarning, "+failover-end-for-timeout", m, "")
	}
	if notReconfigured == 0 && !timeout && s.configUnsaved(m) {
		// The replicas were reconfigured while the promotion's config
		// epoch was being saved (decision 37): the failover ends, and
		// switches, once it is on disk, as when the reconfiguration
		// waited for that save (the simulator's S9 pairs the switch
		// with the replies).
		return
	}
	if notReconfigured == 0 {
		s.eventAt(LevelWarning, "+failover-end", m, "")
		ms.failoverState = FailoverUpdateConfig
		ms.failoverStateChange = s.now
	}
	if timeout {
		for _, r := range m.sortedReplicas() {
			if r.flags&(fPromoted|fReconfDone|fReconfSent) != 0 || r.link.disconnected() {
				continue
			}
			if _, ok := s.sendSlaveOfReconf(r, ms.promoted.addr); ok {
				s.eventAt(LevelNotice, "+slave-reconf-sent-be", r, "")
				r.flags |= fReconfSent
			}
		}
	}
}

// abortFailover is sentinelAbortFailover; failover_start_time is kept so
// the 2×failover-timeout back-off applies.
func (s *Sentinel) abortFailover(m *instance) {
	ms := m.m
	m.flags &^= fFailoverInProgress | fForceFailover
	ms.newer = masterNewer{}
	ms.failoverState = FailoverNone
	ms.failoverStateChange = s.now
	if ms.promoted != nil {
		ms.promoted.flags &^= fPromoted
		ms.promoted = nil
	}
}

// supersedeFailover drops our failover of m because a hello carried a
// config epoch greater than its failover epoch: another sentinel completed
// a newer failover. Unlike abortFailover this works in any state, also
// RECONF_SLAVES (FINDINGS F2; sentinel.c would finish the stale failover and
// switch to its own promoted replica under the newer epoch).
//
// The event -failover-abort-superseded (not in sentinel.c, which has no
// such path) ends the leader's event sequence honestly: without it a leader
// would go from +elected-leader to +config-update-from/+switch-master with
// neither +failover-end nor an abort, and tools that follow a failover
// (sentinelctl watch, the simulator's parallel-syncs check) would wait for
// an end that never comes.
func (s *Sentinel) supersedeFailover(m *instance, configEpoch uint64) {
	s.logf(LevelWarning, "Failover of %s (epoch %d) superseded by config epoch %d", m.name, m.m.failoverEpoch, configEpoch)
	s.eventAt(LevelWarning, "-failover-abort-superseded", m, "")
	for _, r := range m.sortedReplicas() {
		r.flags &^= fReconfSent | fReconfInprog | fReconfDone
	}
	s.abortFailover(m)
}

// sendSlaveOfReconf sends the transaction that points replica r of our
// failover at the promoted replica (RECONF_SLAVES, or the end of the
// failover on a timeout). It reveals nothing that is not on disk: the
// failover epoch and our vote were saved before SLAVEOF NO ONE left
// (failoverSendSlaveOfNoOne), and the config epoch of the promotion, not
// saved yet, is not in it; so it is sent at once, without waiting for
// the save of the promotion or of other masters' changes (docs/core.md
// decision 37). When a command for r's link is still held (a hello or an
// earlier transaction), it is held behind it so the link keeps its order.
// direct reports whether it was sent at once.
func (s *Sentinel) sendSlaveOfReconf(r *instance, to Addr) (direct, ok bool) {
	direct = !s.heldFor(r)
	return direct, s.sendSlaveOf(r, &to, direct)
}

// heldFor reports whether a command for r's link is held (persist.go).
func (s *Sentinel) heldFor(r *instance) bool {
	for _, h := range s.persist.held {
		if snd, ok := h.eff.(Send); ok && snd.Link == r.link.id {
			return true
		}
	}
	return false
}

// sendSlaveOf sends the reconfiguration transaction (sentinelSendSlaveOf):
// MULTI, SLAVEOF host port (or NO ONE when to is nil), CONFIG REWRITE,
// CLIENT KILL TYPE normal, CLIENT KILL TYPE pubsub, EXEC. With direct the
// commands are emitted at once (SLAVEOF NO ONE follows an election whose
// save its caller waited for; our failover's reconfiguration, decision
// 37); otherwise they are held while anything is unpersisted.
func (s *Sentinel) sendSlaveOf(r *instance, to *Addr, direct bool) bool {
	if !r.connUp(false) || r.link.disconnected() {
		return false
	}
	host, port := "NO", "ONE"
	if to != nil {
		host, port = s.announceHost(*to), strconv.Itoa(to.Port)
	}
	cmds := [][]string{
		{s.mapCmd(r, "MULTI")},
	}
	if failoverOngoing(r) { // a stuck FAILOVER on the node blocks SLAVEOF (Valkey 9 #2780)
		cmds = append(cmds, []string{s.mapCmd(r, "FAILOVER"), "ABORT"})
	}
	cmds = append(cmds, [][]string{
		{s.mapCmd(r, "SLAVEOF"), host, port},
		{s.mapCmd(r, "CONFIG"), "REWRITE"},
		{s.mapCmd(r, "CLIENT"), "KILL", "TYPE", "normal"},
		{s.mapCmd(r, "CLIENT"), "KILL", "TYPE", "pubsub"},
		{s.mapCmd(r, "EXEC")},
	}...)
	for _, c := range cmds {
		snd, ok := s.newSend(r, false, SendOther, c...)
		if !ok {
			return false
		}
		if direct {
			s.emit(snd)
		} else {
			s.revealSend(snd)
		}
	}
	return true
}

// switchToPromoted is sentinelFailoverSwitchToPromotedSlave.
func (s *Sentinel) switchToPromoted(m *instance) {
	ref := m
	if m.m.promoted != nil {
		ref = m.m.promoted
	}
	s.holdUntilShown(m) // the promotion's config epoch may not be saved yet
	s.event(LevelWarning, "+switch-master", m, fmt.Sprintf("%s %s %d %s %d", m.name,
		s.announceHost(m.addr), m.addr.Port, s.announceHost(ref.addr), ref.addr.Port))
	s.heldUntilSaved(m)
	s.resetMasterAndChangeAddress(m, ref.addr.Host, ref.addr.Port)
}

// resetMaster is sentinelResetMaster.
func (s *Sentinel) resetMaster(m *instance, dropSentinels, generateEvent bool) {
	ms := m.m
	// An empty dictionary stays as it is: dictChanged would invalidate
	// every sorted view and rebuild the schedule, for each master of a
	// SENTINEL RESET loop over masters without replicas or peers.
	if len(ms.replicas) > 0 {
		for _, r := range m.sortedReplicas() {
			s.releaseInstance(r)
		}
		ms.replicas = map[string]*instance{}
		s.dictChanged()
	}
	if dropSentinels {
		s.setVoterFloor(m) // voterfloor.go
		if len(ms.sentinels) > 0 {
			for _, si := range m.sortedSentinels() {
				s.releaseInstance(si)
			}
			ms.sentinels = map[string]*instance{}
			s.dictChanged()
		}
	}
	// The peers' "master is down" answers were about the old address
	// (sentinel.c keeps them; sim F5).
	for _, si := range m.sortedSentinels() {
		si.flags &^= fMasterDown
	}
	s.closeConn(m.link, false)
	s.closeConn(m.link, true)
	m.flags &= fMaster
	ms.ourVote = ""
	ms.newer = masterNewer{} // coordinated.go
	ms.failoverState = FailoverNone
	ms.failoverStateChange = 0
	ms.failoverStartTime = 0
	ms.startDesync = 0
	ms.noGoodSlave = noGoodSlaveAbort{}
	ms.promoted = nil
	m.runid = ""
	m.slaveMasterHost = ""
	m.infoPending = false
	l := m.link
	l.actPingTime = s.now
	l.lastPingTime = 0
	// Reconnect on the next tick: the ping-period pacing counts from the
	// last attempt at the old (possibly dead) address, and would delay the
	// first PING to a new master past a short down-after (false SDOWN).
	// A SENTINEL RESET (generateEvent; same address) within a
	// ping-period of the last one that did so owes the redial instead, at
	// the first tick after RESETs of it stop for a tick (reconnect), so
	// that a RESET loop does not redial every link at every tick
	// (docs/core.md decision 14).
	if generateEvent && l.resetAt != 0 && s.now-l.resetAt < s.timing.PingPeriod {
		l.resetRedial = s.now
	} else {
		l.lastReconnTime = 0
		l.resetRedial = 0
		if generateEvent {
			l.resetAt = s.now
		}
	}
	l.lastAvailTime = s.now
	l.lastPongTime = s.now
	m.roleReportedTime = s.now
	m.roleReported = fMaster
	if generateEvent {
		s.eventAt(LevelWarning, "+reset-master", m, "")
	}
}

// resetMasterAndChangeAddress is sentinelResetMasterAndChangeAddress: the
// master moves to host:port; its old address and its other replicas become
// replicas of the new address.
func (s *Sentinel) resetMasterAndChangeAddress(m *instance, host string, port int) bool {
	newAddr, ok := s.resolveAddr(host, port)
	if !ok {
		return false
	}
	var replicas []Addr
	known := map[string]int{} // priorities survive the re-creation
	for _, r := range m.sortedReplicas() {
		if addrEqualsHost(r.addr, host, port) {
			continue
		}
		replicas = append(replicas, r.addr)
		if r.priorityKnown {
			known[s.replicaKey(r.addr)] = r.priority
		}
	}
	oldKey := ""
	if !addrEqualsHost(m.addr, host, port) {
		replicas = append(replicas, m.addr)
		oldKey = s.replicaKey(m.addr)
		if m.priorityKnown {
			// The old master once reported role:slave with its priority
			// (a demoted master, or one an operator turned into a
			// replica): the replica object it becomes keeps it, or a
			// priority-0 node still running as master would be promoted
			// on the default (docs/core.md decision 13).
			known[s.replicaKey(m.addr)] = m.priority
		}
	}
	s.resetMaster(m, false, false)
	m.addr = newAddr
	m.priority, m.priorityKnown = DefaultReplicaPriority, false // the old address's, carried above
	m.odownSince = 0
	m.sdownSince = 0
	for _, a := range replicas {
		if _, dup := m.m.replicas[s.replicaKey(a)]; dup {
			continue
		}
		r := s.createReplica(m, a)
		if prio, ok := known[s.replicaKey(a)]; ok {
			r.priority, r.priorityKnown = prio, true
		}
		r.formerMaster = s.replicaKey(a) == oldKey
		s.eventAt(LevelNotice, "+slave", r, "")
	}
	s.markDirty()
	return true
}

// simulatedCrash implements SENTINEL SIMULATE-FAILURE.
func (s *Sentinel) simulatedCrash(what string) {
	s.logf(LevelWarning, "Simulated failure: %s", what)
	s.emit(Exit{Code: 99})
}
