package core

// The voter floor after SENTINEL RESET (docs/core.md decision 33).
//
// RESET forgets the master's known sentinels (reference §8: "drops
// replicas+sentinels"); they come back from the hellos within a hello
// period when they are reachable. sentinel.c counts the leader election's
// voters as the known sentinels + 1, so a sentinel reset while it cannot
// hear its peers counts itself alone, and with a quorum below the
// majority (quorum 1 of 3) its own vote elects it while the others go on
// with the old master (sim finding F12). The core keeps the voter count
// from before the RESET as a floor for its own elections until as many
// sentinels are known again or the window below has passed. It only
// raises the number of votes our own election needs: peers, real
// sentinels among them, are unaffected.

// voterFloor is the voter count a RESET left behind.
type voterFloor struct {
	n     int    // voters (known sentinels + 1) before the RESET; 0: none
	until Millis // the floor expires at this time
}

// voterFloorWindow is how long a floor lasts when rediscovery does not
// reach it: down-after + 2 × failover-timeout. RESET re-arms the master's
// link as if a reply had just come, so the master cannot be SDOWN before
// down-after; a failover attempt that is not elected is retried only
// 2 × failover-timeout later; so every election of the first attempt the
// reset sentinel can make counts the old voters. After the window a
// sentinel that was removed for good (stop it, then SENTINEL RESET the
// others one by one: Redis docs "Adding or removing Sentinels") stops
// counting.
func voterFloorWindow(m *instance) Millis {
	return m.downAfter + 2*m.m.failoverTimeout
}

// setVoterFloor records, before a RESET forgets m's sentinels, the voter
// count the election keeps as a floor. A floor still in force counts, so
// a second RESET within the window does not lower it.
func (s *Sentinel) setVoterFloor(m *instance) {
	n := s.voters(m)
	if n <= 1 {
		m.m.floor = voterFloor{}
		return
	}
	m.m.floor = voterFloor{n: n, until: s.now + voterFloorWindow(m)}
	s.logf(LevelNotice, "SENTINEL RESET of %s forgot %d sentinels: its elections count %d voters until as many are known again, or for %d ms (docs/core.md decision 33)",
		m.name, len(m.m.sentinels), n, voterFloorWindow(m))
}

// voters is the number of voters m's leader election counts: the known
// sentinels plus ourselves, or the floor of a recent RESET if higher.
func (s *Sentinel) voters(m *instance) int {
	n := len(m.m.sentinels) + 1
	if f := m.m.floor; f.n > n && s.now < f.until {
		return f.n
	}
	return n
}

// voterFloorReached drops m's floor once rediscovery has reached it.
func (m *instance) voterFloorReached() {
	if f := m.m.floor; f.n != 0 && len(m.m.sentinels)+1 >= f.n {
		m.m.floor = voterFloor{}
	}
}
