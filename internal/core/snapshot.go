package core

// snapshot builds the State written to sentinel.conf (rewriteConfigSentinelOption):
// the monitor line carries the current address (the promoted replica once
// the failover reached RECONF_SLAVES) and the known replicas list the old
// master instead of the promoted one.
func (s *Sentinel) snapshot() State {
	st := State{
		MyID:                s.myid,
		CurrentEpoch:        s.currentEpoch,
		AnnounceIP:          s.announceIP,
		AnnounceIPSet:       s.announceIPSet,
		AnnouncePort:        s.announcePort,
		AnnounceHostnames:   s.announceHostnames,
		ResolveHostnames:    s.resolveHostnames,
		DenyScriptsReconfig: s.denyScripts,
		SentinelUser:        s.sentinelUser,
		SentinelPass:        s.sentinelPass,
		LogLevel:            s.logLevel(),
	}
	for _, m := range s.sortedMasters() {
		ms := m.m
		cur := s.currentMasterAddr(m)
		mc := MasterConfig{
			Name:                        m.name,
			Addr:                        cur,
			Quorum:                      ms.quorum,
			DownAfter:                   m.downAfter,
			FailoverTimeout:             ms.failoverTimeout,
			ParallelSyncs:               ms.parallelSyncs,
			MasterRebootDownAfterPeriod: ms.rebootDownAfter,
			NotificationScript:          ms.notificationScript,
			ClientReconfigScript:        ms.clientReconfigScript,
			AuthUser:                    ms.authUser,
			AuthPass:                    ms.authPass,
			RenameCommands:              append([]Rename(nil), ms.renames...),
			ConfigEpoch:                 ms.configEpoch,
			LeaderEpoch:                 ms.ourVoteEpoch,
			Leader:                      ms.ourVote,
			RebootOption:                ms.rebootOption,
		}
		for _, r := range m.sortedReplicas() {
			a := r.addr
			if addrEqual(a, cur) {
				a = m.addr
			}
			mc.KnownReplicas = append(mc.KnownReplicas, a)
		}
		for _, si := range m.sortedSentinels() {
			if si.runid != "" {
				mc.KnownSentinels = append(mc.KnownSentinels, KnownSentinel{Addr: si.addr, RunID: si.runid})
			}
		}
		s.snapshotVoterFloor(m, &mc) // voterfloor.go
		st.Masters = append(st.Masters, mc)
	}
	return st
}
