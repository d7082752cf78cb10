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
//
// The floor is persisted (MasterConfig.VoterFloor, VoterFloorLeft: a
// gosentinel-only line of sentinel.conf, docs/config.md), so a sentinel
// restarted after the RESET keeps it (sim finding F13). Its window runs
// only while the sentinel could have heard its peers: not in TILT, and
// with a hello heard on the pub/sub link of the master or one of its
// replicas within the last 3 hello periods. A sentinel that is stalled,
// cut off, or whose master and replicas are all unreachable cannot tell
// a removed peer from a partitioned one, so the floor's expiry moves on
// with the clock (at most one window ahead of now) while that lasts. A
// sentinel that is down cannot hear either: what is persisted is the
// part of the window left, not an expiry, and a restart goes on from
// there (sim seed 1652531: a crash during a pause whose moved expiry was
// never saved, config writes failing, restarted past the saved expiry
// and elected alone).

// voterFloor is the voter count a RESET left behind.
type voterFloor struct {
	n     int    // voters (known sentinels + 1) before the RESET; 0: none
	until Millis // the floor expires at this time
	// heard is the last time a hello arrived on the pub/sub link of the
	// master or one of its replicas (the RESET or the start counts as one).
	heard Millis
	// left is the window left as loaded from the State, until the first
	// Step sets until from it (startVoterFloors).
	left Millis
}

// voterFloorWindow is how long a floor lasts when rediscovery does not
// reach it: down-after + 2 × failover-timeout of time in which the
// sentinel could hear its peers. RESET re-arms the master's link as if a
// reply had just come, so the master cannot be SDOWN before down-after; a
// failover attempt that is not elected is retried only 2 ×
// failover-timeout later; so every election of the first attempt the
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
	m.m.floor = voterFloor{n: n, until: s.now + voterFloorWindow(m), heard: s.now}
	s.trackVoterFloor(m)
	s.logf(LevelNotice, "SENTINEL RESET of %s forgot %d sentinels: its elections count %d voters until as many are known again, or for %d ms (docs/core.md decision 33)",
		m.name, len(m.m.sentinels), n, voterFloorWindow(m))
}

// trackVoterFloor adds m to the masters whose floor runVoterFloors looks
// at (usually none: ticks do not walk every master).
func (s *Sentinel) trackVoterFloor(m *instance) {
	for _, x := range s.floors {
		if x == m {
			return
		}
	}
	s.floors = append(s.floors, m)
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

// voterFloorActive reports whether m has a floor that has not expired.
func (s *Sentinel) voterFloorActive(m *instance) bool {
	f := m.m.floor
	return f.n > 1 && s.now < f.until
}

// runVoterFloors is called by every tick after the TILT check with the
// time since the previous tick: a floor whose sentinel could not hear its
// peers over that time (in TILT, which includes the stall or clock jump
// that triggered it, or no hello for 3 hello periods) has its expiry
// moved on by that time, up to one window from now. Nothing is saved for
// that: a pause keeps the window left as it is, so the part left that
// the file holds since its last write is never less than the part left
// now, and a restart after a crash during a pause loses none of it.
func (s *Sentinel) runVoterFloors(delta Millis) {
	if len(s.floors) == 0 {
		return
	}
	keep := s.floors[:0]
	for _, m := range s.floors {
		if m.released {
			continue
		}
		f := &m.m.floor
		// The pause is applied before the expiry is looked at: the tick
		// of a clock jump or stall longer than what is left of the window
		// enters TILT and must not find the floor expired by that jump
		// (sim seed 1654493: +3.8 s with 2.9 s left, elected alone 3 s
		// later). A hello "heard" later than now was heard before the
		// clock was set back and says nothing about now.
		if s.tilt || f.heard > s.now || s.now-f.heard > 3*s.timing.PublishPeriod {
			f.until = min(f.until+max(delta, 0), s.now+voterFloorWindow(m))
		}
		if !s.voterFloorActive(m) {
			m.m.floor = voterFloor{}
			continue
		}
		keep = append(keep, m)
	}
	clear(s.floors[len(keep):])
	s.floors = keep
}

// heardHello notes a hello message on link l: the floor of the master
// it belongs to (l's instances are the master or its replicas) runs.
func (s *Sentinel) heardHello(l *instanceLink) {
	if len(s.floors) == 0 {
		return
	}
	for _, i := range l.users {
		m := i
		if !i.isMaster() {
			m = i.master
		}
		if m != nil && m.m != nil && m.m.floor.n != 0 {
			m.m.floor.heard = s.now
		}
	}
}

// loadVoterFloor restores a persisted floor (MasterConfig.VoterFloor);
// its window starts again at the first Step.
func (s *Sentinel) loadVoterFloor(m *instance, mc *MasterConfig) {
	if mc.VoterFloor > 1 {
		m.m.floor = voterFloor{n: mc.VoterFloor, left: mc.VoterFloorLeft}
		s.trackVoterFloor(m)
	}
}

// startVoterFloors runs at the first Step, when the time is known: a
// loaded floor with nothing left is dropped, one with more than a window
// left (a hand-written line, or one written by a version that saved an
// expiry in Unix ms there) is cut to one window, and its hearing starts
// now.
func (s *Sentinel) startVoterFloors() {
	for _, m := range s.floors {
		f := &m.m.floor
		if f.n <= len(m.m.sentinels)+1 || f.left <= 0 {
			*f = voterFloor{}
			continue
		}
		f.until = s.now + min(f.left, voterFloorWindow(m))
		f.left = 0
		f.heard = s.now
		s.logf(LevelNotice, "Voter floor of %s loaded from the config: its elections count %d voters until as many are known again, or for %d ms in which it can hear them (docs/core.md decision 33)",
			m.name, f.n, f.until-s.now)
	}
}

// snapshotVoterFloor fills the persisted floor of mc from m.
func (s *Sentinel) snapshotVoterFloor(m *instance, mc *MasterConfig) {
	if s.voterFloorActive(m) {
		mc.VoterFloor = m.m.floor.n
		mc.VoterFloorLeft = m.m.floor.until - s.now
	}
}
