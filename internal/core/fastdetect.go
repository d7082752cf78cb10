package core

// Speed-ups of failure detection (issue "Performance"). Both only make
// existing messages more frequent (PING, SENTINEL IS-MASTER-DOWN-BY-ADDR):
// nothing new goes on the wire, so real redis-sentinel peers interoperate.
//
//   - SDOWN the moment the last valid reply is down-after old: PINGs go out
//     every min(ping-period, down-after/10) (at least FastPingFloor), and an
//     instance with a PING pending is SDOWN once now-last_avail_time >
//     down-after (sentinel.c's rule, now-act_ping_time > down-after, still
//     holds and is implied; silentSince bounds the gain to two PING
//     intervals, so lowering down-after at runtime flags nothing). A healthy instance is tolerated up to ~0.9×
//     down-after of PING latency instead of down-after.
//   - ODOWN without waiting an ask-period: while a master is SDOWN and not
//     ODOWN, a peer whose last answer said "not down" is asked again every
//     min(ask-period, FastAskPeriod), and an answer is acted on at once.

// FastPingFloor is the shortest PING interval the down-after/10 rule may
// give.
const FastPingFloor Millis = 10

// FastAskPeriod is the re-ask period, capped by ask-period, for a peer
// whose last answer said "not down" while our master is SDOWN and not
// ODOWN.
const FastAskPeriod Millis = 100

// pingInterval is the PING period of i: min(ping-period, down-after,
// max(down-after/10, FastPingFloor)).
func (s *Sentinel) pingInterval(i *instance) Millis {
	p := min(s.timing.PingPeriod, i.downAfter)
	return min(p, max(i.downAfter/10, FastPingFloor))
}

// silentFor is how long i has been silent for the SDOWN rule (0 when it
// is not: no PING pending and the link up); see silentSince.
func (s *Sentinel) silentFor(i *instance) Millis {
	base, ok := s.silentSince(i)
	if !ok {
		return 0
	}
	return s.now - base
}

// silentSince is the time i's silence counts from, and false when no PING
// is pending and the link is up. It is the last valid reply (fast
// detection), but never earlier than two current PING intervals before the
// pending PING was sent (one interval plus the tick's lateness at the
// ping-period pace), and never later than that PING (sentinel.c counts
// from act_ping_time alone). The bound matters when down-after is lowered
// at runtime: PINGs went out at the old, longer interval, so the last reply
// may already be older than the new down-after while the instance is
// healthy; sentinel.c does not flag it SDOWN, and neither do we.
func (s *Sentinel) silentSince(i *instance) (Millis, bool) {
	l := i.link
	switch {
	case l.actPingTime != 0:
		return max(min(l.lastAvailTime, l.actPingTime), l.actPingTime-2*s.pingInterval(i)), true
	case l.disconnected():
		return l.lastAvailTime, true
	}
	return 0, false
}

// askPeriodFor is how long after its last answer peer si is asked again
// about master m.
func (s *Sentinel) askPeriodFor(m, si *instance) Millis {
	if m.flags&fSDown != 0 && m.flags&fODown == 0 && si.flags&fMasterDown == 0 {
		return min(s.timing.AskPeriod, FastAskPeriod)
	}
	if s.electionReask(m, si) {
		return min(s.timing.AskPeriod, FastAskPeriod)
	}
	return s.timing.AskPeriod
}

// electionReask reports that peer si is asked for its vote again every
// FastAskPeriod: our election runs, and si's last answer said "not down"
// and held no vote of this election. A gosentinel peer refuses a vote
// while it sees the master up (votegate.go), which it may for a few
// PING intervals after we saw it down; the vote then comes within
// FastAskPeriod of its own S_DOWN instead of a whole ask-period later.
func (s *Sentinel) electionReask(m, si *instance) bool {
	return m.m.failoverState == FailoverWaitStart && si.flags&fMasterDown == 0 &&
		si.votedLeaderEpoch != m.m.failoverEpoch
}

// reactToMasterDownReply re-evaluates ODOWN (and a failover start) as
// soon as a peer's answer arrives, as the timer would on its next tick;
// nothing is done in TILT.
func (s *Sentinel) reactToMasterDownReply(m *instance) {
	if m == nil || s.tilt || m.released || !m.isMaster() || m.flags&fSDown == 0 {
		return
	}
	s.checkObjectivelyDown(m)
	if s.startFailoverIfNeeded(m) {
		s.askMasterState(m, true)
	}
}

// reaskOnPeerAsk is called when a peer asks us about m while we see m
// SDOWN: a peer only asks when it sees m SDOWN itself (sentinel.c), so
// the peers whose last answer said "not down" are asked again now instead
// of after FastAskPeriod (during our election: those that gave no vote
// of it, see electionReask). The sentinel that was SDOWN first then reaches
// ODOWN about one round trip after the other instead of up to
// FastAskPeriod (plus a tick) later, which is what lets the staggered
// start (stagger.go) order two candidates (docs/core.md decision 22).
func (s *Sentinel) reaskOnPeerAsk(m *instance) {
	electing := m.m.failoverState == FailoverWaitStart
	if !electing && (m.flags&(fODown|fFailoverInProgress) != 0 || m.m.failoverState != FailoverNone) {
		return
	}
	for _, si := range m.sortedSentinels() {
		if si.flags&fMasterDown == 0 && !si.askPending && !si.link.disconnected() &&
			(!electing || s.electionReask(m, si)) {
			// While our election runs this is a vote request: a peer
			// that refused (it saw the master up, votegate.go) and now
			// asks us, sees it down and votes.
			s.askPeer(m, si)
		}
	}
}

// refreshReplicasInfo asks the replicas of a master that just became
// ODOWN for INFO now, before the vote requests leave (their INFO period
// drops to FailingReplicaInfoPeriod anyway): replica selection must not
// see INFO older than 5×ping-period, and with INFO every 10 s it could
// if the votes came back first. sentinel.c has a tick between ODOWN and
// the selection; a failover started from a reply (or votes answered
// within the step) has not.
func (s *Sentinel) refreshReplicasInfo(m *instance) {
	for _, r := range m.sortedReplicas() {
		l := r.link
		if r.released || r.infoPending || l.disconnected() || l.ccState != connUp ||
			l.pending >= MaxPendingCommands*l.refcount {
			continue
		}
		if r.infoRefresh == 0 || s.now-r.infoRefresh > odownInfoRefreshAge(s.timing.PingPeriod) {
			s.sendInfo(r)
		}
	}
}

// odownInfoRefreshAge is the INFO age above which refreshReplicasInfo asks
// a replica again. Selection rejects INFO older than 5×ping-period while
// the master is SDOWN, and replicas whose master link is down are asked
// only every FailingReplicaInfoPeriod: with ping-period below 200 ms (the
// Tcl suite runs with 100) their INFO is stale half of the time, and a
// leader elected a few ms after ODOWN aborted with no-good-slave (then
// waited 2×failover-timeout). Half the validity leaves room for the reply.
func odownInfoRefreshAge(pingPeriod Millis) Millis {
	return min(FailingReplicaInfoPeriod, 5*pingPeriod/2)
}
