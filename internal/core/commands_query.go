package core

import (
	"strconv"
	"strings"
)

func uitoa(n uint64) string { return strconv.FormatUint(n, 10) }

func (s *Sentinel) cmdMasters(id uint64, _ []string) {
	out := []Value{}
	for _, m := range s.sortedMasters() {
		out = append(out, s.instanceMap(m))
	}
	s.respond(id, Array(out...))
}

func (s *Sentinel) cmdMaster(id uint64, args []string) {
	if m := s.masterOrErr(id, args[2]); m != nil {
		s.respond(id, s.instanceMap(m))
	}
}

// cmdReplicas omits replicas with replica_announced=0.
func (s *Sentinel) cmdReplicas(id uint64, args []string) {
	m := s.masterOrErr(id, args[2])
	if m == nil {
		return
	}
	out := []Value{}
	for _, r := range m.sortedReplicas() {
		if r.replicaAnnounced {
			out = append(out, s.instanceMap(r))
		}
	}
	s.respond(id, Array(out...))
}

func (s *Sentinel) cmdSentinels(id uint64, args []string) {
	m := s.masterOrErr(id, args[2])
	if m == nil {
		return
	}
	out := []Value{}
	for _, si := range m.sortedSentinels() {
		out = append(out, s.instanceMap(si))
	}
	s.respond(id, Array(out...))
}

func (s *Sentinel) cmdGetMasterAddr(id uint64, args []string) {
	host, port, ok := s.MasterAddr(args[2])
	if !ok {
		s.respond(id, NilArray())
		return
	}
	s.respond(id, Array(Bulk(host), Bulk(strconv.Itoa(port))))
}

// MasterAddr is what SENTINEL GET-MASTER-ADDR-BY-NAME name answers: the
// master's address as on disk (shown.go) with its announced host, or
// ok=false (a nil array) for an unknown name. It changes no state; the
// runtime's query cache checks its cached replies with it after every
// step.
func (s *Sentinel) MasterAddr(name string) (host string, port int, ok bool) {
	m, ok := s.masters[name]
	if !ok {
		return "", 0, false
	}
	_, _, a := s.shownMaster(m)
	return s.announceHost(a), a.Port, true
}

func (s *Sentinel) cmdMyID(id uint64, _ []string) { s.respond(id, Bulk(s.myid)) }

func (s *Sentinel) cmdPendingScripts(id uint64, _ []string) {
	s.respond(id, s.pendingScriptsValue())
}

// cmdCkquorum is SENTINEL CKQUORUM (sentinelIsQuorumReachable).
func (s *Sentinel) cmdCkquorum(id uint64, args []string) {
	m := s.masterOrErr(id, args[2])
	if m == nil {
		return
	}
	usable, noQuorum, noAuth := quorumReachable(m, s.voters(m))
	n := strconv.Itoa(usable)
	if !noQuorum && !noAuth {
		s.respond(id, Status("OK "+n+" usable Sentinels. Quorum and failover authorization can be reached"))
		return
	}
	e := "NOQUORUM " + n + " usable Sentinels. "
	if noQuorum {
		e += "Not enough available Sentinels to reach the specified quorum for this master"
	}
	if noAuth {
		if noQuorum {
			e += ". "
		}
		e += "Not enough available Sentinels to reach the majority and authorize a failover"
	}
	s.respond(id, ErrorValue(e))
}

// quorumReachable counts ourselves plus the peers not SDOWN/ODOWN; the
// majority is of voters (known sentinels + 1, or the floor kept after a
// SENTINEL RESET, voterfloor.go).
func quorumReachable(m *instance, voters int) (usable int, noQuorum, noAuth bool) {
	usable = 1
	for _, si := range m.sortedSentinels() {
		if si.flags&(fSDown|fODown) == 0 {
			usable++
		}
	}
	return usable, usable < m.m.quorum, usable < voters/2+1
}

// cmdInfoCache is SENTINEL INFO-CACHE, with the 7.0.15 quirk: a replica's
// age is 0 when its master never got INFO.
func (s *Sentinel) cmdInfoCache(id uint64, args []string) {
	seen := map[string]bool{}
	var ms []*instance
	for _, name := range args[2:] {
		if m, ok := s.masters[name]; ok && !seen[name] {
			seen[name] = true
			ms = append(ms, m)
		}
	}
	out := []Value{}
	entry := func(age Millis, i *instance) Value {
		info := Nil()
		if i.hasInfo {
			info = Bulk(i.info)
		}
		return Array(Int(age), info)
	}
	for _, m := range ms {
		items := []Value{entry(s.now-m.infoRefresh, m)}
		for _, r := range m.sortedReplicas() {
			age := Millis(0)
			if m.infoRefresh != 0 {
				age = s.now - r.infoRefresh
			}
			items = append(items, entry(age, r))
		}
		out = append(out, Bulk(m.name), Array(items...))
	}
	s.respond(id, Array(out...))
}

var sentinelHelp = []string{
	"SENTINEL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CKQUORUM <master-name>",
	"    Check if the current Sentinel configuration is able to reach the quorum",
	"    needed to failover a master and the majority needed to authorize the",
	"    failover.",
	"CONFIG SET param value [param value ...]", // Redis 7.2+ text
	"    Set a global Sentinel configuration parameter.",
	"CONFIG GET <param> [param param param ...]",
	"    Get global Sentinel configuration parameter.",
	"DEBUG [<param> <value> ...]",
	"    Show a list of configurable time parameters and their values (milliseconds).",
	"    Or update current configurable parameters values (one or more).",
	"GET-MASTER-ADDR-BY-NAME <master-name>",
	"    Return the ip and port number of the master with that name.",
	"FAILOVER <master-name>",
	"    Manually failover a master node without asking for agreement from other",
	"    Sentinels",
	"FLUSHCONFIG",
	"    Force Sentinel to rewrite its configuration on disk, including the current",
	"    Sentinel state.",
	"INFO-CACHE <master-name>",
	"    Return last cached INFO output from masters and all its replicas.",
	"IS-MASTER-DOWN-BY-ADDR <ip> <port> <current-epoch> <runid>",
	"    Check if the master specified by ip:port is down from current Sentinel's",
	"    point of view.",
	"MASTER <master-name>",
	"    Show the state and info of the specified master.",
	"MASTERS",
	"    Show a list of monitored masters and their state.",
	"MONITOR <name> <ip> <port> <quorum>",
	"    Start monitoring a new master with the specified name, ip, port and quorum.",
	"MYID",
	"    Return the ID of the Sentinel instance.",
	"PENDING-SCRIPTS",
	"    Get pending scripts information.",
	"REMOVE <master-name>",
	"    Remove master from Sentinel's monitor list.",
	"REPLICAS <master-name>",
	"    Show a list of replicas for this master and their state.",
	"RESET <pattern>",
	"    Reset masters for specific master name matching this pattern.",
	"SENTINELS <master-name>",
	"    Show a list of Sentinel instances for this master and their state.",
	"SET <master-name> <option> <value> [<option> <value> ...]",
	"    Set configuration parameters for certain masters.",
	"SIMULATE-FAILURE [CRASH-AFTER-ELECTION] [CRASH-AFTER-PROMOTION] [HELP]",
	"    Simulate a Sentinel crash.",
	"HELP",
	"    Prints this help.",
}

func (s *Sentinel) cmdHelp(id uint64, _ []string) {
	out := make([]Value, len(sentinelHelp))
	for k, l := range sentinelHelp {
		out[k] = Status(l)
	}
	s.respond(id, Array(out...))
}

// yesNo renders a boolean the way CONFIG GET does.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// parseYesNo is yesnotoi.
func parseYesNo(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "yes":
		return true, true
	case "no":
		return false, true
	}
	return false, false
}
