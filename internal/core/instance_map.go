package core

// instanceMap renders addReplySentinelRedisInstance: the field order is
// part of the contract (tools read num-other-sentinels at index 33). The
// fields every instance has come first, then those of its role, in
// sentinel.c's order: data nodes (master or replica), masters, replicas,
// sentinels.
func (s *Sentinel) instanceMap(i *instance) Value {
	f := instanceFields{kv: make([]Value, 0, 64)}
	s.commonFields(&f, i)
	if i.isMaster() || i.isSlave() {
		s.dataNodeFields(&f, i)
	}
	if i.isMaster() {
		epoch, _, _ := s.shownMaster(i) // the config epoch on disk (shown.go)
		masterFields(&f, i.m, epoch)
	}
	if i.isSlave() {
		replicaFields(&f, i)
	}
	if i.isSentinel() {
		s.sentinelFields(&f, i)
	}
	return Map(f.kv...)
}

// instanceFields accumulates the key/value pairs of instanceMap.
type instanceFields struct{ kv []Value }

func (f *instanceFields) add(k string, v Value)    { f.kv = append(f.kv, Bulk(k), v) }
func (f *instanceFields) addInt(k string, n int64) { f.add(k, BulkInt(n)) }

// commonFields: name to down-after-milliseconds, every kind of instance.
func (s *Sentinel) commonFields(f *instanceFields, i *instance) {
	l := i.link
	addr := i.addr
	if i.isMaster() {
		_, addr, _ = s.shownMaster(i) // the address on disk (shown.go)
	}
	f.add("name", Bulk(i.name))
	f.add("ip", Bulk(s.announceHost(addr)))
	f.addInt("port", int64(addr.Port))
	f.add("runid", Bulk(i.runid))
	f.add("flags", Bulk(i.flagsString()))
	f.addInt("link-pending-commands", int64(l.pending))
	f.addInt("link-refcount", int64(l.refcount))
	if i.flags&fFailoverInProgress != 0 {
		f.add("failover-state", Bulk(i.m.failoverState.String()))
	}
	lastPingSent := Millis(0)
	if l.actPingTime != 0 {
		lastPingSent = s.now - l.actPingTime
	}
	f.addInt("last-ping-sent", lastPingSent)
	f.addInt("last-ok-ping-reply", s.now-l.lastAvailTime)
	f.addInt("last-ping-reply", s.now-l.lastPongTime)
	if i.flags&fSDown != 0 {
		f.addInt("s-down-time", s.now-i.sdownSince)
	}
	if i.flags&fODown != 0 {
		f.addInt("o-down-time", s.now-i.odownSince)
	}
	f.addInt("down-after-milliseconds", i.downAfter)
}

// dataNodeFields: what INFO told us, masters and replicas.
func (s *Sentinel) dataNodeFields(f *instanceFields, i *instance) {
	infoRefresh := Millis(0)
	if i.infoRefresh != 0 {
		infoRefresh = s.now - i.infoRefresh
	}
	f.addInt("info-refresh", infoRefresh)
	role := "master"
	if i.roleReported == fSlave {
		role = "slave"
	}
	f.add("role-reported", Bulk(role))
	f.addInt("role-reported-time", s.now-i.roleReportedTime)
}

// masterFields: the master's configuration and counts.
// configEpoch is the one on disk (shown.go).
func masterFields(f *instanceFields, ms *masterState, configEpoch uint64) {
	f.addInt("config-epoch", int64(configEpoch))
	f.addInt("num-slaves", int64(len(ms.replicas)))
	f.addInt("num-other-sentinels", int64(len(ms.sentinels)))
	f.addInt("quorum", int64(ms.quorum))
	f.addInt("failover-timeout", ms.failoverTimeout)
	f.addInt("parallel-syncs", int64(ms.parallelSyncs))
	if ms.notificationScript != "" {
		f.add("notification-script", Bulk(ms.notificationScript))
	}
	if ms.clientReconfigScript != "" {
		f.add("client-reconfig-script", Bulk(ms.clientReconfigScript))
	}
}

// replicaFields: the replica's link to its master, priority and offset.
func replicaFields(f *instanceFields, i *instance) {
	f.addInt("master-link-down-time", i.masterLinkDownTime)
	status := "err"
	if i.slaveMasterLinkUp {
		status = "ok"
	}
	f.add("master-link-status", Bulk(status))
	host := i.slaveMasterHost
	if host == "" {
		host = "?"
	}
	f.add("master-host", Bulk(host))
	f.addInt("master-port", int64(i.slaveMasterPort))
	f.addInt("slave-priority", int64(i.priority))
	f.add("slave-repl-offset", Bulk(uitoa(i.replOffset)))
	announced := int64(0)
	if i.replicaAnnounced {
		announced = 1
	}
	f.addInt("replica-announced", announced)
}

// sentinelFields: the peer's last hello and the vote it reported.
func (s *Sentinel) sentinelFields(f *instanceFields, i *instance) {
	f.addInt("last-hello-message", s.now-i.lastHelloTime)
	leader := i.votedLeader
	if leader == "" {
		leader = "?"
	}
	f.add("voted-leader", Bulk(leader))
	f.addInt("voted-leader-epoch", int64(i.votedLeaderEpoch))
}
