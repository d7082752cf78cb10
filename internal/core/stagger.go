package core

// Staggered failover start (docs/core.md decision 21). With fast detection
// (fastdetect.go) the sentinels of a master reach ODOWN within a few ms of
// each other; if all of them start a failover in the same epoch, each votes
// for itself, nobody wins, and the retry waits 2×failover-timeout. An
// automatic failover therefore starts only rank×FailoverStagger after ODOWN,
// where rank counts the live peers that would start before us. The lowest
// ranked live sentinel starts at once; its vote request reaches the others
// before their turn, and voting for it sets failover_start_time, which
// blocks their own start. Nothing changes on the wire. A forced failover
// (SENTINEL FAILOVER) is not staggered.

// failoverRank is the number of known peer sentinels of m whose runid
// sorts before ours, except those gone well before m (goneBefore).
func (s *Sentinel) failoverRank(m *instance) int {
	rank := 0
	for _, si := range m.m.sentinels {
		if si.runid != "" && si.runid < s.myid && !goneBefore(m, si) {
			rank++
		}
	}
	return rank
}

// goneBefore reports a peer that was SDOWN already down-after before m
// became SDOWN: every sentinel of m sees it gone by now, so none waits for
// it. A peer lost together with m (the master's host died, or was cut off
// with its sentinel, lab C1) still counts: the sentinels' SDOWN times of
// the same failure differ by their PING phases, and a rank that depends on
// them let two sentinels with different views both take rank 1 and start
// in the same instant (docs/core.md decision 22).
func goneBefore(m, si *instance) bool {
	return si.flags&fSDown != 0 && si.sdownSince < m.sdownSince-m.downAfter
}

// failoverStartAt is the earliest instant at which an automatic failover of
// the ODOWN master m may start.
func (s *Sentinel) failoverStartAt(m *instance) Millis {
	return m.odownSince + Millis(s.failoverRank(m))*s.timing.FailoverStagger
}
