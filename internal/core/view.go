package core

// masterView copies a master's state for read-only consumers.
func (s *Sentinel) masterView(m *instance) MasterView {
	ms := m.m
	v := MasterView{
		Name:              m.name,
		Addr:              m.addr,
		CurrentAddr:       s.currentMasterAddr(m),
		Quorum:            ms.quorum,
		ConfigEpoch:       ms.configEpoch,
		Leader:            ms.ourVote,
		LeaderEpoch:       ms.ourVoteEpoch,
		SDown:             m.flags&fSDown != 0,
		ODown:             m.flags&fODown != 0,
		FailoverState:     ms.failoverState,
		FailoverEpoch:     ms.failoverEpoch,
		ForcedFailover:    m.flags&fForceFailover != 0,
		SDownSince:        ext(m.sdownSince),
		ODownSince:        ext(m.odownSince),
		FailoverStartTime: ext(ms.failoverStartTime),
		ForeignHellos:     ms.foreignHellos,
	}
	_, v.ShownAddr, v.ShownCurrentAddr = s.shownMaster(m)
	if ms.promoted != nil {
		v.Promoted = ms.promoted.addr
	}
	for _, r := range m.sortedReplicas() {
		v.Replicas = append(v.Replicas, ReplicaView{
			Addr:         r.addr,
			RunID:        r.runid,
			Flags:        r.flagsString(),
			SDown:        r.flags&fSDown != 0,
			Disconnected: r.link.disconnected(),
			Priority:     r.priority,
			ReplOffset:   int64(r.replOffset),
			MasterHost:   r.slaveMasterHost,
			MasterPort:   r.slaveMasterPort,
			MasterLinkUp: r.slaveMasterLinkUp,
		})
	}
	for _, si := range m.sortedSentinels() {
		v.Sentinels = append(v.Sentinels, SentinelView{
			RunID:       si.runid,
			Addr:        si.addr,
			Link:        si.link.id,
			SDown:       si.flags&fSDown != 0,
			MasterDown:  si.flags&fMasterDown != 0,
			Leader:      si.votedLeader,
			LeaderEpoch: si.votedLeaderEpoch,
		})
	}
	return v
}

// ext converts an internal timestamp back to the caller's clock (0 stays 0).
func ext(t Millis) Millis {
	if t == 0 {
		return 0
	}
	return t - timeBase
}
