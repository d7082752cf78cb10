package core

// Speed-ups: sentinel.c advances the failover state machine once per timer
// tick (every 50–100 ms), so each state that needs no outside input costs a
// tick, and each awaited reply costs up to one more. The core instead reacts
// the moment the input arrives. The commands on the wire are the same, only
// earlier; everything is skipped in TILT, exactly like the timer's acting
// half.

// maxChainedStates bounds how many failover states one step may walk.
const maxChainedStates = 4

// advanceFailover runs the state machine until it stops making progress
// within this step (SELECT_SLAVE and SEND_SLAVEOF_NOONE need no outside
// input), then switches to the promoted replica at once if the failover
// ended.
func (s *Sentinel) advanceFailover(m *instance) {
	if s.tilt || m.released || m.flags&fFailoverInProgress == 0 {
		return
	}
	s.chainFailover(m)
	if m.m.failoverState == FailoverUpdateConfig {
		s.switchToPromoted(m)
	}
}

// reactToVote re-evaluates an election as soon as a peer's vote arrives.
func (s *Sentinel) reactToVote(m *instance) {
	if m.m.failoverState == FailoverWaitStart {
		s.advanceFailover(m)
	}
}

// reactToInfo continues a failover as soon as INFO shows progress: the
// promotion (start reconfiguring replicas now) or a replica done (maybe
// end the failover now).
func (s *Sentinel) reactToInfo(i *instance) {
	m := i.masterOf()
	if m == nil || i.isSentinel() || m.m.failoverState != FailoverReconfSlaves {
		return
	}
	s.advanceFailover(m)
}
