package core

import "strings"

// iflag is a bit of sentinelRedisInstance.flags (SRI_*).
type iflag uint32

const (
	fMaster iflag = 1 << iota
	fSlave
	fSentinel
	fSDown
	fODown
	fMasterDown
	fFailoverInProgress
	fPromoted
	fReconfSent
	fReconfInprog
	fReconfDone
	fForceFailover
	fScriptKillSent
	fMasterReboot
)

// instance is a sentinelRedisInstance: a master, a replica of a master, or
// a peer sentinel of a master.
type instance struct {
	flags    iflag
	name     string // master name, replica "ip:port", sentinel runid
	addr     Addr
	runid    string
	link     *instanceLink
	master   *instance // nil for masters
	released bool      // removed: late replies are discarded

	downAfter        Millis
	sdownSince       Millis
	odownSince       Millis
	lastPubTime      Millis
	lastHelloTime    Millis
	lastMDReplyTime  Millis // last_master_down_reply_time
	askPending       bool   // an is-master-down-by-addr request is in flight
	infoPending      bool   // an INFO request is in flight
	helloPending     bool   // a hello PUBLISH is in flight (or held)
	infoRefresh      Millis // 0: never
	info             string
	hasInfo          bool
	roleReported     iflag // fMaster or fSlave
	roleReportedTime Millis
	slaveConfChange  Millis
	rebootSince      Millis
	// convertAt is when the safety wait of a pending +convert-to-slave
	// ends: INFO is asked then (convert.go; 0: none pending).
	convertAt Millis

	// replica fields (from INFO)
	masterLinkDownTime Millis
	slaveMasterHost    string
	slaveMasterPort    int
	slaveMasterLinkUp  bool
	priority           int
	priorityKnown      bool // slave_priority was read from INFO at least once
	replOffset         uint64
	replicaAnnounced   bool
	reconfSentTime     Millis
	// formerMaster: the replica object +switch-master made of the old
	// master's address; cleared by its first INFO with role:slave. While
	// it still reports role:master it is the old master not converted
	// yet, and is not promoted (select.go).
	formerMaster bool

	// sentinel fields: the vote the peer reported in its last
	// is-master-down-by-addr reply (sentinel.c ri->leader and
	// ri->leader_epoch; SENTINEL SENTINELS shows them as voted-leader and
	// voted-leader-epoch)
	votedLeader      string
	votedLeaderEpoch uint64
	probe            peerProbe // vote gate (votegate.go)

	// master fields
	m *masterState
}

// masterState holds the fields only masters have.
type masterState struct {
	// foreignHelloLogged is when a hello of another deployment was last
	// logged (foreign.go; 0: never); foreignHellos counts them.
	foreignHelloLogged   Millis
	foreignHellos        uint64
	quorum               int
	failoverTimeout      Millis
	parallelSyncs        int
	rebootDownAfter      Millis
	rebootOption         string      // see MasterConfig.RebootOption
	newer                masterNewer // coordinated failover (coordinated.go)
	notificationScript   string
	clientReconfigScript string
	authUser             string
	authPass             string
	renames              []Rename

	configEpoch uint64
	// shown is the config epoch and address on disk, which replies show
	// while a change of configEpoch is not (shown.go); configSeq is the
	// Persist Seq that covers the latest change of configEpoch.
	shown        shownConfig
	configSeq    uint64
	ourVote      string
	ourVoteEpoch uint64
	probe        peerProbe  // vote gate (votegate.go)
	floor        voterFloor // voters kept after SENTINEL RESET (voterfloor.go)

	replicas  map[string]*instance // key: replicaKey (the replica's name)
	sentinels map[string]*instance // key: runid (the sentinel's name)
	// replicasSorted and sentinelsSorted cache the sorted views (see
	// sortedCached).
	replicasSorted, sentinelsSorted sortedCache
	// sentinel is the owning core (for its dictionary generation).
	sentinel *Sentinel

	failoverState       FailoverState
	failoverEpoch       uint64
	failoverStateChange Millis
	// noOneAfter is the Persist Seq that must succeed before SLAVEOF NO
	// ONE goes out (the election's epoch and vote; 0: nothing to wait for).
	noOneAfter        uint64
	failoverStartTime Millis // 0: never
	// startDesync is the random part of failoverStartTime (desync):
	// the 2×failover-timeout block counts from failoverStartTime minus it,
	// and the retry after the block is staggered by rank (stagger.go).
	startDesync         Millis
	failoverDelayLogged Millis
	promoted            *instance
	// noGoodSlave is our last automatic attempt that aborted with
	// no-good-slave: it may be retried early (retry.go).
	noGoodSlave noGoodSlaveAbort
	// attemptStart is when our last failover attempt of this master
	// started, otherVoteAt when we last voted for another sentinel to
	// lead it (retry.go: a vote for another during the attempt takes the
	// early retry away).
	attemptStart, otherVoteAt Millis

	sched schedSlot // schedule.go
}

func (i *instance) isMaster() bool   { return i.flags&fMaster != 0 }
func (i *instance) isSlave() bool    { return i.flags&fSlave != 0 }
func (i *instance) isSentinel() bool { return i.flags&fSentinel != 0 }

// masterOf returns the master an instance belongs to (itself for masters).
func (i *instance) masterOf() *instance {
	if i.isMaster() {
		return i
	}
	return i.master
}

func (i *instance) role() Role {
	switch {
	case i.isMaster():
		return RoleMaster
	case i.isSlave():
		return RoleReplica
	}
	return RoleSentinel
}

// sortedReplicas returns the replicas of a master in name order.
func (i *instance) sortedReplicas() []*instance {
	return i.m.sentinel.sortedCached(i.m.replicas, &i.m.replicasSorted)
}

// sortedSentinels returns the sentinels of a master in runid order.
func (i *instance) sortedSentinels() []*instance {
	return i.m.sentinel.sortedCached(i.m.sentinels, &i.m.sentinelsSorted)
}

// addrEqualsHost reports whether a matches host:port (sentinelAddrEqualsHostname
// plus the port check): same port and same IP or hostname, case-insensitively.
func addrEqualsHost(a Addr, host string, port int) bool {
	if a.Port != port {
		return false
	}
	return strings.EqualFold(a.Host, host) || (a.IP != "" && strings.EqualFold(a.IP, host))
}

// addrEqual reports whether two addresses denote the same instance.
func addrEqual(a, b Addr) bool {
	if a.Port != b.Port {
		return false
	}
	if a.IP != "" && b.IP != "" && a.IP == b.IP {
		return true
	}
	return strings.EqualFold(a.Host, b.Host)
}

// flagsString renders flags in the fixed order of SENTINEL MASTER (§6).
func (i *instance) flagsString() string {
	var b []string
	add := func(f iflag, s string) {
		if i.flags&f != 0 {
			b = append(b, s)
		}
	}
	add(fSDown, "s_down")
	add(fODown, "o_down")
	add(fMaster, "master")
	add(fSlave, "slave")
	add(fSentinel, "sentinel")
	if i.link.disconnected() {
		b = append(b, "disconnected")
	}
	add(fMasterDown, "master_down")
	add(fFailoverInProgress, "failover_in_progress")
	add(fPromoted, "promoted")
	add(fReconfSent, "reconf_sent")
	add(fReconfInprog, "reconf_inprog")
	add(fReconfDone, "reconf_done")
	add(fForceFailover, "force_failover")
	if i.m != nil && i.m.newer.coordinated {
		b = append(b, "coordinated_failover") // Valkey 9
	}
	add(fScriptKillSent, "script_kill_sent")
	add(fMasterReboot, "master_reboot") // shown since Redis 7.2
	return strings.Join(b, ",")
}
