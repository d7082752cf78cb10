package core

// tick is sentinelTimer: TILT check, every master with its replicas and
// sentinels, the deferred address switch, then scripts.
func (s *Sentinel) tick() {
	prev := s.prevTick
	s.tickPrev = prev // reconnect: RESETs since the previous tick
	s.checkTilt()
	s.runVoterFloors(s.now - prev) // voterfloor.go
	// Every master whose group has something due, in name order; groups
	// with nothing due are skipped without being looked at (schedule.go).
	switchTo := s.runDueGroups()
	for _, m := range switchTo {
		if !m.released {
			s.switchToPromoted(m)
		}
	}
	s.runPendingScripts()
	s.killTimedOutScripts()
}

// handleGroup is one iteration of sentinelHandleDictOfRedisInstances: a
// master, its replicas and its sentinels. It reports whether the master
// is to be switched to its promoted replica after the loop.
func (s *Sentinel) handleGroup(m *instance) bool {
	s.handleInstance(m)
	for _, r := range m.sortedReplicas() {
		s.handleInstance(r)
	}
	for _, si := range m.sortedSentinels() {
		s.handleInstance(si)
	}
	return m.m.failoverState == FailoverUpdateConfig
}

// checkTilt is sentinelCheckTiltCondition.
func (s *Sentinel) checkTilt() {
	delta := s.now - s.prevTick
	if delta < 0 || delta > s.timing.TiltTrigger {
		s.tilt = true
		s.tiltStart = s.now
		s.newer.totalTilt++
		s.event(LevelWarning, "+tilt", nil, "#tilt mode entered")
	}
	s.prevTick = s.now
}

// handleInstance is sentinelHandleRedisInstance.
func (s *Sentinel) handleInstance(i *instance) {
	if i.released {
		return
	}
	s.reconnect(i)
	s.sendPeriodicCommands(i)
	if s.tilt {
		if s.now-s.tiltStart < s.timing.TiltPeriod {
			return
		}
		s.tilt = false
		s.tiltExit = s.now
		s.event(LevelWarning, "-tilt", nil, "#tilt mode exited")
	}
	s.checkSubjectivelyDown(i)
	if i.isMaster() {
		s.checkObjectivelyDown(i)
		if s.startFailoverIfNeeded(i) {
			s.askMasterState(i, true)
		}
		s.chainFailover(i)
		s.askMasterState(i, false)
	}
}

// chainFailover runs the failover state machine for this tick, walking the
// states that need no outside input in one go (see react.go). The switch
// to the promoted replica stays after the loop over all masters, as in
// sentinelHandleDictOfRedisInstances.
func (s *Sentinel) chainFailover(m *instance) {
	for k := 0; k < maxChainedStates; k++ {
		before := m.m.failoverState
		s.failoverStateMachine(m)
		after := m.m.failoverState
		if after == before || m.flags&fFailoverInProgress == 0 ||
			(after != FailoverSelectSlave && after != FailoverSendSlaveofNoOne) {
			return
		}
	}
}

// sendPeriodicCommands is sentinelSendPeriodicCommands: INFO, PING, hello.
func (s *Sentinel) sendPeriodicCommands(i *instance) {
	l := i.link
	if l.disconnected() || l.ccState != connUp {
		return
	}
	if l.pending >= MaxPendingCommands*l.refcount {
		return
	}
	pingPeriod := s.pingInterval(i)
	if !i.isSentinel() && !i.infoPending &&
		(i.infoRefresh == 0 || s.now-i.infoRefresh > s.infoPeriodFor(i) || s.convertInfoDue(i)) {
		s.sendInfo(i)
	}
	if s.now-l.lastPongTime > pingPeriod && s.now-l.lastPingTime > pingPeriod/2 {
		s.sendPing(i)
	}
	if !i.helloPending && s.now-i.lastPubTime > s.timing.PublishPeriod {
		s.sendHello(i)
	}
}

// infoPeriodFor is the INFO period of an instance.
func (s *Sentinel) infoPeriodFor(i *instance) Millis {
	infoPeriod := s.timing.InfoPeriod
	if i.isSlave() && (i.master.flags&(fODown|fFailoverInProgress) != 0 || i.masterLinkDownTime != 0) {
		infoPeriod = FailingReplicaInfoPeriod
	}
	if i.isSlave() && i.flags&(fReconfSent|fReconfInprog) != 0 && i.master.flags&fFailoverInProgress != 0 {
		// Speed-up (conformance P1): a replica we are reconfiguring is
		// asked every tick, so its RECONF_DONE, and the end of the
		// failover, is seen within a tick instead of up to 1 s.
		infoPeriod = ReconfReplicaInfoPeriod
	}
	return infoPeriod
}

// sendInfo asks an instance for INFO.
func (s *Sentinel) sendInfo(i *instance) {
	if s.sendCmd(i, false, SendInfo, s.mapCmd(i, "INFO")) {
		i.infoPending = true
	}
}
