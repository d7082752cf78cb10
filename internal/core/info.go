package core

import (
	"strings"
)

// infoReport is what sentinelRefreshInstanceInfo extracts from an INFO
// reply. It is produced by parseInfo, a pure function.
type infoReport struct {
	runID    string
	replicas []hostPortPair // slave<N>: lines (meaningful for masters)
	// linkDownSince is master_link_down_since_seconds in ms (0 if absent).
	linkDownSince Millis
	role          iflag // fMaster, fSlave or 0 when unknown

	// Fields of a replica, only parsed after a role:slave line.
	masterHost       string
	hasMasterHost    bool
	masterPort       int
	hasMasterPort    bool
	linkUp           bool
	hasLinkStatus    bool
	priority         int
	hasPriority      bool
	replOffset       uint64
	hasReplOffset    bool
	replicaAnnounced int
	hasAnnounced     bool
}

type hostPortPair struct {
	host string
	port int
}

// parseInfo parses an INFO reply the way sentinelRefreshInstanceInfo does:
// lines split on "\r\n", C atoi/strtoull semantics for numbers.
func parseInfo(info string) infoReport {
	var r infoReport
	for _, l := range strings.Split(info, "\r\n") {
		if len(l) >= 47 && strings.HasPrefix(l, "run_id:") {
			r.runID = l[7:47]
		}
		if len(l) > 5 && strings.HasPrefix(l, "slave") && l[5] >= '0' && l[5] <= '9' {
			if hp, ok := parseSlaveLine(l); ok {
				r.replicas = append(r.replicas, hp)
			}
		}
		if len(l) >= 32 && strings.HasPrefix(l, "master_link_down_since_seconds") {
			r.linkDownSince = Millis(atoll(l[31:])) * 1000
		}
		if len(l) >= 6 && strings.HasPrefix(l, "role:") {
			switch {
			case strings.HasPrefix(l[5:], "master"):
				r.role = fMaster
			case strings.HasPrefix(l[5:], "slave"):
				r.role = fSlave
			}
		}
		if r.role != fSlave {
			continue
		}
		switch {
		case len(l) >= 12 && strings.HasPrefix(l, "master_host:"):
			r.masterHost, r.hasMasterHost = l[12:], true
		case len(l) >= 12 && strings.HasPrefix(l, "master_port:"):
			r.masterPort, r.hasMasterPort = int(atoll(l[12:])), true
		case len(l) >= 19 && strings.HasPrefix(l, "master_link_status:"):
			r.linkUp, r.hasLinkStatus = len(l) >= 21 && strings.EqualFold(l[19:21], "up"), true
		case len(l) >= 15 && strings.HasPrefix(l, "slave_priority:"):
			r.priority, r.hasPriority = int(atoll(l[15:])), true
		case len(l) >= 18 && strings.HasPrefix(l, "slave_repl_offset:"):
			r.replOffset, r.hasReplOffset = uint64(atoll(l[18:])), true
		case len(l) >= 18 && strings.HasPrefix(l, "replica_announced:"):
			r.replicaAnnounced, r.hasAnnounced = int(atoll(l[18:])), true
		}
	}
	return r
}

// parseSlaveLine parses "slave0:ip=..,port=..,..." or the old
// "slave0:<ip>,<port>,<state>" format.
func parseSlaveLine(l string) (hostPortPair, bool) {
	var ip, port string
	if !strings.Contains(l, "ip=") {
		c := strings.IndexByte(l, ':')
		if c < 0 {
			return hostPortPair{}, false
		}
		rest := l[c+1:]
		parts := strings.SplitN(rest, ",", 3)
		if len(parts) < 3 {
			return hostPortPair{}, false
		}
		ip, port = parts[0], parts[1]
	} else {
		i := strings.Index(l, "ip=")
		p := strings.Index(l, "port=")
		if p < 0 {
			return hostPortPair{}, false
		}
		ip = l[i+3:]
		if e := strings.IndexByte(ip, ','); e >= 0 {
			ip = ip[:e]
		}
		port = l[p+5:]
		if e := strings.IndexByte(port, ','); e >= 0 {
			port = port[:e]
		}
	}
	if ip == "" {
		return hostPortPair{}, false
	}
	return hostPortPair{host: ip, port: int(atoll(port))}, true
}

// atoll mimics C strtoll(s, NULL, 10): optional spaces and sign, then
// digits up to the first non-digit; 0 if none; saturates on overflow.
func atoll(s string) int64 {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var n int64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := int64(s[i] - '0')
		if n > (1<<63-1-d)/10 {
			n = 1<<63 - 1
			break
		}
		n = n*10 + d
	}
	if neg {
		return -n
	}
	return n
}

// refreshInfo is sentinelRefreshInstanceInfo: record what INFO says, then
// act on role changes (skipped in TILT).
//
// The strings parseInfo returns are slices of info; what outlives this
// INFO (the run ID, the replica's master host, a new replica's host) is
// copied, as Redis copies it into its own sds: a slice kept in a field
// that does not change would keep the whole ~5 KiB reply it came from
// alive next to the one in i.info (1000 instances: ~5 MiB of live heap,
// twice that in RSS under GOGC 100; docs/bench.md).
func (s *Sentinel) refreshInfo(i *instance, info string) {
	r := parseInfo(info)
	i.info, i.hasInfo = info, true
	i.convertAt = 0 // re-armed below if a conversion still waits (convert.go)
	i.masterLinkDownTime = r.linkDownSince
	if r.runID != "" {
		if i.runid != "" && i.runid != r.runID {
			s.eventAt(LevelNotice, "+reboot", i, "")
			if i.isMaster() && i.m.rebootDownAfter != 0 {
				i.flags |= fMasterReboot
				i.rebootSince = s.now
			}
		}
		if i.runid != r.runID {
			i.runid = strings.Clone(r.runID)
		}
	}
	if i.isMaster() {
		for _, hp := range r.replicas {
			if i.lookupReplica(hp.host, hp.port) != nil {
				continue
			}
			a, ok := s.resolveAddr(hp.host, hp.port)
			if !ok {
				continue
			}
			if _, dup := i.m.replicas[s.replicaKey(a)]; dup {
				continue
			}
			a.Host = strings.Clone(a.Host) // not a slice of info (see refreshInfo)
			rep := s.createReplica(i, a)
			s.eventAt(LevelNotice, "+slave", rep, "")
			s.markDirty()
		}
	}
	if r.role == fSlave {
		i.formerMaster = false // converted (or demoted by hand): an ordinary replica
		if r.hasMasterHost && (i.slaveMasterHost == "" || !strings.EqualFold(r.masterHost, i.slaveMasterHost)) {
			i.slaveMasterHost = strings.Clone(r.masterHost)
			i.slaveConfChange = s.now
		}
		if r.hasMasterPort && i.slaveMasterPort != r.masterPort {
			i.slaveMasterPort = r.masterPort
			i.slaveConfChange = s.now
		}
		if r.hasLinkStatus {
			i.slaveMasterLinkUp = r.linkUp
		}
		if r.hasPriority {
			i.priority = r.priority
			i.priorityKnown = true
		}
		if r.hasReplOffset {
			i.replOffset = r.replOffset
		}
		if r.hasAnnounced {
			i.replicaAnnounced = r.replicaAnnounced != 0
		}
	}
	i.infoRefresh = s.now

	if r.role != 0 && r.role != i.roleReported {
		i.roleReportedTime = s.now
		i.roleReported = r.role
		if r.role == fSlave {
			i.slaveConfChange = s.now
		}
		typ := "-role-change"
		if i.flags&(fMaster|fSlave) == r.role {
			typ = "+role-change"
		}
		roleName := "master"
		if r.role == fSlave {
			roleName = "slave"
		}
		s.eventAt(LevelVerbose, typ, i, "new reported role is "+roleName)
	}
	if s.tilt || i.isSentinel() {
		return
	}
	if i.isSlave() && r.role == fMaster {
		s.replicaReportsMaster(i)
	}
	m := i.master
	if i.isSlave() && r.role == fSlave &&
		(i.slaveMasterPort != m.addr.Port || !addrEqualsHost(m.addr, i.slaveMasterHost, m.addr.Port)) {
		wait := m.m.failoverTimeout
		if s.masterLooksSane(m) && s.noDownFor(i, wait) && s.now-i.slaveConfChange > wait {
			if s.sendSlaveOf(i, &m.addr, false) {
				s.eventAt(LevelNotice, "+fix-slave-config", i, "")
			}
		}
	}
	if i.isSlave() && r.role == fSlave && i.flags&(fReconfSent|fReconfInprog) != 0 && m.m.promoted != nil {
		p := m.m.promoted
		if i.flags&fReconfSent != 0 && i.slaveMasterHost != "" &&
			addrEqualsHost(p.addr, i.slaveMasterHost, i.slaveMasterPort) {
			i.flags &^= fReconfSent
			i.flags |= fReconfInprog
			s.eventAt(LevelNotice, "+slave-reconf-inprog", i, "")
		}
		if i.flags&fReconfInprog != 0 && i.slaveMasterLinkUp {
			i.flags &^= fReconfInprog
			i.flags |= fReconfDone
			s.eventAt(LevelNotice, "+slave-reconf-done", i, "")
		}
	}
}

// replicaReportsMaster handles a replica that says it is a master: our
// promotion completing, or a stray master to convert back.
func (s *Sentinel) replicaReportsMaster(i *instance) {
	m := i.master
	if i.flags&fPromoted != 0 && m.flags&fFailoverInProgress != 0 && m.m.failoverState == FailoverWaitPromotion {
		s.setConfigEpoch(m, m.m.failoverEpoch) // shown once saved (shown.go)
		m.m.failoverState = FailoverReconfSlaves
		m.m.failoverStateChange = s.now
		s.eventAt(LevelWarning, "+promoted-slave", i, "")
		if m.m.newer.coordinated {
			s.coordinatedPromoted(m, i) // coordinated.go
		}
		if s.simFlags&simCrashAfterPromotion != 0 {
			s.simulatedCrash("crash-after-promotion")
			return
		}
		s.eventAt(LevelWarning, "+failover-state-reconf-slaves", m, "")
		s.clientReconfScript(m, "leader", m.addr, i.addr)
		// sentinelForceHelloUpdateForMaster; a hello in flight carries the
		// old config, so the new one goes out without waiting for it.
		for _, x := range append(append([]*instance{m}, m.sortedReplicas()...), m.sortedSentinels()...) {
			x.lastPubTime = 0
			x.helloPending = false
		}
		return
	}
	wait := s.convertWait()
	if i.flags&fPromoted != 0 || !s.masterLooksSane(m) {
		return
	}
	if s.noDownFor(i, wait) && s.now-i.roleReportedTime > wait {
		if s.sendSlaveOf(i, &m.addr, false) {
			s.eventAt(LevelNotice, "+convert-to-slave", i, "")
		}
		return
	}
	// Blocked by the safety wait alone: ask INFO again when it ends
	// (convert.go) instead of at the next INFO period.
	i.convertAt = convertWaitEnd(i, wait)
}

// masterLooksSane is sentinelMasterLooksSane.
func (s *Sentinel) masterLooksSane(m *instance) bool {
	return m.isMaster() && m.roleReported == fMaster && m.flags&(fSDown|fODown) == 0 &&
		m.infoRefresh != 0 && s.now-m.infoRefresh < 2*s.timing.InfoPeriod
}

// noDownFor is sentinelRedisInstanceNoDownFor.
func (s *Sentinel) noDownFor(i *instance, ms Millis) bool {
	recent := i.sdownSince
	if i.odownSince > recent {
		recent = i.odownSince
	}
	return recent == 0 || s.now-recent > ms
}
