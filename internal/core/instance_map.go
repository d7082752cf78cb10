package core

// instanceMap renders addReplySentinelRedisInstance: the field order is
// part of the contract (tools read num-other-sentinels at index 33).
func (s *Sentinel) instanceMap(i *instance) Value {
	l := i.link
	kv := make([]Value, 0, 64)
	add := func(k string, v Value) { kv = append(kv, Bulk(k), v) }
	addInt := func(k string, n int64) { add(k, BulkInt(n)) }

	add("name", Bulk(i.name))
	add("ip", Bulk(s.announceHost(i.addr)))
	addInt("port", int64(i.addr.Port))
	add("runid", Bulk(i.runid))
	add("flags", Bulk(i.flagsString()))
	addInt("link-pending-commands", int64(l.pending))
	addInt("link-refcount", int64(l.refcount))
	if i.flags&fFailoverInProgress != 0 {
		add("failover-state", Bulk(i.m.failoverState.String()))
	}
	lastPingSent := Millis(0)
	if l.actPingTime != 0 {
		lastPingSent = s.now - l.actPingTime
	}
	addInt("last-ping-sent", lastPingSent)
	addInt("last-ok-ping-reply", s.now-l.lastAvailTime)
	addInt("last-ping-reply", s.now-l.lastPongTime)
	if i.flags&fSDown != 0 {
		addInt("s-down-time", s.now-i.sdownSince)
	}
	if i.flags&fODown != 0 {
		addInt("o-down-time", s.now-i.odownSince)
	}
	addInt("down-after-milliseconds", i.downAfter)

	if i.isMaster() || i.isSlave() {
		infoRefresh := Millis(0)
		if i.infoRefresh != 0 {
			infoRefresh = s.now - i.infoRefresh
		}
		addInt("info-refresh", infoRefresh)
		role := "master"
		if i.roleReported == fSlave {
			role = "slave"
		}
		add("role-reported", Bulk(role))
		addInt("role-reported-time", s.now-i.roleReportedTime)
	}
	if i.isMaster() {
		ms := i.m
		addInt("config-epoch", int64(ms.configEpoch))
		addInt("num-slaves", int64(len(ms.replicas)))
		addInt("num-other-sentinels", int64(len(ms.sentinels)))
		addInt("quorum", int64(ms.quorum))
		addInt("failover-timeout", ms.failoverTimeout)
		addInt("parallel-syncs", int64(ms.parallelSyncs))
		if ms.notificationScript != "" {
			add("notification-script", Bulk(ms.notificationScript))
		}
		if ms.clientReconfigScript != "" {
			add("client-reconfig-script", Bulk(ms.clientReconfigScript))
		}
	}
	if i.isSlave() {
		addInt("master-link-down-time", i.masterLinkDownTime)
		status := "err"
		if i.slaveMasterLinkUp {
			status = "ok"
		}
		add("master-link-status", Bulk(status))
		host := i.slaveMasterHost
		if host == "" {
			host = "?"
		}
		add("master-host", Bulk(host))
		addInt("master-port", int64(i.slaveMasterPort))
		addInt("slave-priority", int64(i.priority))
		add("slave-repl-offset", Bulk(uitoa(i.replOffset)))
		announced := int64(0)
		if i.replicaAnnounced {
			announced = 1
		}
		addInt("replica-announced", announced)
	}
	if i.isSentinel() {
		addInt("last-hello-message", s.now-i.lastHelloTime)
		leader := i.leader
		if leader == "" {
			leader = "?"
		}
		add("voted-leader", Bulk(leader))
		addInt("voted-leader-epoch", int64(i.leaderEpoch))
	}
	return Map(kv...)
}
