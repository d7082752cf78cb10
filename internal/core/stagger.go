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

// failoverRank is the number of known peer sentinels of m that are not
// SDOWN and whose runid sorts before ours.
func (s *Sentinel) failoverRank(m *instance) int {
	rank := 0
	for _, si := range m.m.sentinels {
		if si.flags&fSDown == 0 && si.runid != "" && si.runid < s.myid {
			rank++
		}
	}
	return rank
}

// failoverStartAt is the earliest instant at which an automatic failover of
// the ODOWN master m may start.
func (s *Sentinel) failoverStartAt(m *instance) Millis {
	return m.odownSince + Millis(s.failoverRank(m))*s.timing.FailoverStagger
}
