package core

import (
	"sort"
	"strings"
)

// candidate is what replica selection looks at; selection is a pure
// function of these values so it can be table-tested.
type candidate struct {
	key      string // identifies the replica (its name)
	runid    string
	priority int
	// priorityKnown is false until INFO showed slave_priority: the default
	// (100) may hide a priority of 0.
	priorityKnown bool
	// reportsMaster: its last INFO said role:master (a master's INFO has no
	// slave_priority, so its priority can never be known).
	reportsMaster bool
	// unconvertedOldMaster: the master this sentinel switched away from,
	// still running as master and never seen as a replica since, while
	// the current master last reported role:master: it lacks every write
	// the new master acknowledged (fault lab C7). Once the current master
	// reports role:slave (it follows the old master, or a chain or loop
	// of replicas an operator or a lost failover left), its own writes are
	// gone with its next sync anyway, and the old master may be the only
	// node holding data (sim L1 seeds 199, 279, 863).
	unconvertedOldMaster bool
	offset               uint64
	down                 bool   // SDOWN or ODOWN
	disconnected         bool   // link disconnected
	lastAvailAge         Millis // now - last valid PING reply
	infoAge              Millis // now - last INFO
	linkDownTime         Millis // master_link_down_since_seconds in ms
}

// selectParams are the master-side inputs of sentinelSelectSlave.
type selectParams struct {
	pingPeriod      Millis
	infoPeriod      Millis
	masterSDown     bool
	masterDownAge   Millis // now - master.s_down_since (if SDOWN)
	masterDownAfter Millis
}

// eligible reports whether c can be promoted (sentinelSelectSlave filters).
func (p selectParams) eligible(c candidate) bool {
	maxMasterDown := 10 * p.masterDownAfter
	if p.masterSDown {
		maxMasterDown += p.masterDownAge
	}
	infoValidity := 3 * p.infoPeriod
	if p.masterSDown {
		infoValidity = 5 * p.pingPeriod
	}
	switch {
	case c.down, c.disconnected:
		return false
	case c.lastAvailAge > 5*p.pingPeriod:
		return false
	case c.priority == 0, !c.priorityKnown && !c.reportsMaster:
		return false
	case c.unconvertedOldMaster:
		return false
	case c.infoAge > infoValidity:
		return false
	case c.linkDownTime > maxMasterDown:
		return false
	}
	return true
}

// lessForPromotion is compareSlavesForPromotion: lower priority, then
// higher replication offset, then smaller runid (case-insensitive,
// missing runid last). Replicas whose priority was read from INFO rank
// before those whose priority is unknown.
func lessForPromotion(a, b candidate) bool {
	if a.priorityKnown != b.priorityKnown {
		return a.priorityKnown // a known priority first (see eligible)
	}
	if a.priority != b.priority {
		return a.priority < b.priority
	}
	if a.offset != b.offset {
		return a.offset > b.offset
	}
	switch {
	case a.runid == "" && b.runid == "":
		return a.key < b.key
	case a.runid == "":
		return false
	case b.runid == "":
		return true
	}
	ca, cb := strings.ToLower(a.runid), strings.ToLower(b.runid)
	if ca != cb {
		return ca < cb
	}
	return a.key < b.key
}

// rankCandidates returns the eligible candidates, best first.
func rankCandidates(p selectParams, cs []candidate) []candidate {
	var out []candidate
	for _, c := range cs {
		if p.eligible(c) {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return lessForPromotion(out[i], out[j]) })
	return out
}

// selectSlave is sentinelSelectSlave.
func (s *Sentinel) selectSlave(m *instance) *instance {
	p := selectParams{
		pingPeriod:      s.timing.PingPeriod,
		infoPeriod:      s.timing.InfoPeriod,
		masterSDown:     m.flags&fSDown != 0,
		masterDownAge:   s.now - m.sdownSince,
		masterDownAfter: m.downAfter,
	}
	var cs []candidate
	for _, r := range m.sortedReplicas() {
		cs = append(cs, s.candidateOf(r))
	}
	ranked := rankCandidates(p, cs)
	if len(ranked) == 0 {
		return nil
	}
	return m.m.replicas[ranked[0].key]
}

func (s *Sentinel) candidateOf(r *instance) candidate {
	infoAge := s.now - r.infoRefresh
	if r.infoRefresh == 0 {
		infoAge = s.now
	}
	return candidate{
		key:                  r.name,
		runid:                r.runid,
		priority:             r.priority,
		priorityKnown:        r.priorityKnown,
		reportsMaster:        r.roleReported == fMaster,
		unconvertedOldMaster: r.formerMaster && r.roleReported == fMaster && r.master.roleReported == fMaster,
		offset:               r.replOffset,
		down:                 r.flags&(fSDown|fODown) != 0,
		disconnected:         r.link.disconnected(),
		lastAvailAge:         s.now - r.link.lastAvailTime,
		infoAge:              infoAge,
		linkDownTime:         r.masterLinkDownTime,
	}
}
