package core

import (
	"strconv"
	"strings"
)

// SENTINEL FAILOVER <master> COORDINATED, with Valkey 9's semantics
// (valkey PR #1292; newer-versions.md C.1, C.2): a real election first,
// then the primary itself hands over with FAILOVER TO <replica>, so that
// writes are paused while the replica catches up and no acknowledged
// write is lost. The rest (+promoted-slave, reconfiguration of the other
// replicas, +switch-master) is the ordinary failover.

// masterNewer is the per-master state of a coordinated failover.
type masterNewer struct {
	// coordinated is set while a COORDINATED failover of this master runs
	// (flag coordinated_failover).
	coordinated bool
}

// failoverStateOf returns the master_failover_state: value of i's last
// INFO (Redis ≥ 6.2, Valkey), and whether the line was there.
func failoverStateOf(i *instance) (string, bool) {
	const key = "\r\nmaster_failover_state:"
	k := strings.Index(i.info, key)
	if k < 0 {
		return "", false
	}
	v := i.info[k+len(key):]
	if e := strings.IndexByte(v, '\r'); e >= 0 {
		v = v[:e]
	}
	return v, true
}

// failoverOngoing reports that i's last INFO shows a FAILOVER command in
// progress on the node.
func failoverOngoing(i *instance) bool {
	v, ok := failoverStateOf(i)
	return ok && v != "no-failover"
}

// holdHello reports that no hello may be published to i: PUBLISH blocks
// while the node pauses writes for a coordinated failover.
func (s *Sentinel) holdHello(i *instance) bool {
	if failoverOngoing(i) {
		return true
	}
	m := i.masterOf()
	return i == m && m.m.newer.coordinated && m.m.failoverState <= FailoverWaitPromotion
}

// cmdFailoverCoordinated is the COORDINATED branch of SENTINEL FAILOVER,
// after the master lookup: checks in Valkey 9's order, then the start.
func (s *Sentinel) cmdFailoverCoordinated(id uint64, m *instance, opt string) {
	if !strings.EqualFold(opt, "coordinated") {
		s.respond(id, ErrorValue("ERR Unknown failover option specified"))
		return
	}
	if _, ok := failoverStateOf(m); !ok {
		s.respond(id, ErrorValue("NOGOODPRIMARY Primary does not support FAILOVER command"))
		return
	}
	if !s.manualFailoverPossible(id, m) {
		return
	}
	s.logf(LevelNotice, "Executing user requested FAILOVER of '%s'", m.name)
	s.startFailover(m)
	m.m.newer.coordinated = true
	s.askMasterState(m, true)
	s.respond(id, okValue)
}

// failoverSendFailover is the SEND_SLAVEOF_NOONE step of a coordinated
// failover: the primary gets MULTI, CLIENT PAUSE <R> WRITE, FAILOVER TO
// <replica> TIMEOUT <R>, EXEC, with R the failover-timeout left.
func (s *Sentinel) failoverSendFailover(m *instance) {
	r := m.m.promoted
	left := m.m.failoverTimeout - (s.now - m.m.failoverStateChange)
	if left < 1000 {
		s.eventAt(LevelWarning, "-failover-abort-master-timeout", m, "")
		s.abortFailover(m)
		return
	}
	if m.link.disconnected() || !m.connUp(false) {
		return // retried on the next tick
	}
	ms := strconv.FormatInt(int64(left), 10)
	cmds := [][]string{
		{s.mapCmd(m, "MULTI")},
		{s.mapCmd(m, "CLIENT"), "PAUSE", ms, "WRITE"},
		{s.mapCmd(m, "FAILOVER"), "TO", s.announceHost(r.addr), strconv.Itoa(r.addr.Port), "TIMEOUT", ms},
		{s.mapCmd(m, "EXEC")},
	}
	for _, c := range cmds {
		snd, ok := s.newSend(m, false, SendOther, c...)
		if !ok {
			return
		}
		s.revealSend(snd)
	}
	s.infoAfterSlaveOf(r, false)
	s.eventAt(LevelNotice, "+failover-state-wait-promotion", r, "")
	m.m.failoverState = FailoverWaitPromotion
	m.m.failoverStateChange = s.now
}

// coordinatedPromoted runs when the promoted replica reports role:master
// in a coordinated failover: both nodes rewrite their config, drop their
// clients (which reconnect through Sentinel to the new primary) and end
// the write pause.
func (s *Sentinel) coordinatedPromoted(m, promoted *instance) {
	for _, x := range []*instance{m, promoted} {
		if x.link.disconnected() || !x.connUp(false) {
			continue
		}
		for _, c := range [][]string{
			{s.mapCmd(x, "MULTI")},
			{s.mapCmd(x, "CONFIG"), "REWRITE"},
			{s.mapCmd(x, "CLIENT"), "KILL", "TYPE", "normal"},
			{s.mapCmd(x, "CLIENT"), "KILL", "TYPE", "pubsub"},
			{s.mapCmd(x, "CLIENT"), "UNPAUSE"},
			{s.mapCmd(x, "EXEC")},
		} {
			snd, ok := s.newSend(x, false, SendOther, c...)
			if !ok {
				break
			}
			s.revealSend(snd)
		}
	}
}

// coordinatedPoll asks the promoted replica for INFO on every tick while
// a coordinated failover waits for the promotion: the pause on the old
// primary lasts until the promotion is seen.
func (s *Sentinel) coordinatedPoll(m *instance) {
	r := m.m.promoted
	if !m.m.newer.coordinated || r == nil || m.m.failoverState != FailoverWaitPromotion || r.infoPending {
		return
	}
	if !r.link.disconnected() && r.connUp(false) {
		s.infoAfterSlaveOf(r, false)
	}
}
