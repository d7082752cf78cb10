package core

import (
	"fmt"
	"strings"

	"github.com/gosentinel/gosentinel/internal/glob"
)

var (
	okValue       = Status("OK")
	errSaveConfig = ErrorValue("ERR Failed to save config file. Check server logs.")
	// errNotDurable refuses SENTINEL FAILOVER while a config save fails
	// (durable.go).
	errNotDurable = ErrorValue("ERR Failed to save config file: no failover until it can be saved (docs/core.md). Check server logs.")
)

// cmdMonitor is SENTINEL MONITOR <name> <ip> <port> <quorum>, with the
// checks in the order of sentinel.c.
func (s *Sentinel) cmdMonitor(id uint64, args []string) {
	name, host := args[2], args[3]
	quorum, ok := parseLL(args[5])
	if !ok {
		s.respond(id, ErrorValue("ERR Invalid quorum"))
		return
	}
	port, ok := parseLL(args[4])
	if !ok {
		s.respond(id, ErrorValue("ERR Invalid port"))
		return
	}
	if quorum <= 0 {
		s.respond(id, ErrorValue("ERR Quorum must be 1 or greater."))
		return
	}
	// createSentinelRedisInstance: the address first (createSentinelAddr:
	// port range, then resolution), then the duplicate name.
	_, isIP := parseIP(host)
	if !isIP && !s.resolveHostnames {
		s.respond(id, ErrorValue("ERR Invalid IP address or hostname specified"))
		return
	}
	if port < 0 || port > 65535 {
		s.respond(id, ErrorValue("ERR Invalid port number."))
		return
	}
	addr := Addr{Host: host, Port: int(port)}
	if ip, ok := parseIP(host); ok {
		addr.IP = ip
	} else if s.resolveIP != nil {
		ip, ok := s.resolveIP(host)
		if !ok {
			s.respond(id, ErrorValue("ERR Can't resolve instance hostname."))
			return
		}
		addr.IP = ip
	}
	if _, dup := s.masters[name]; dup {
		s.respond(id, ErrorValue("ERR Duplicate master name."))
		return
	}
	m := s.createMaster(name, addr, int(quorum))
	s.markDirty()
	s.eventAt(LevelWarning, "+monitor", m, fmt.Sprintf("quorum %d", m.m.quorum))
	s.respondPersisted(id, okValue, okValue)
}

func (s *Sentinel) cmdRemove(id uint64, args []string) {
	m := s.masterOrErr(id, args[2])
	if m == nil {
		return
	}
	s.eventAt(LevelWarning, "-monitor", m, "")
	delete(s.masters, m.name)
	s.dictChanged()
	s.releaseInstance(m)
	s.markDirty()
	s.respondPersisted(id, okValue, okValue)
}

// cmdReset is SENTINEL RESET <pattern> (glob, case-sensitive; no flush).
func (s *Sentinel) cmdReset(id uint64, args []string) {
	n := 0
	for _, m := range s.sortedMasters() {
		if glob.Match(args[2], m.name, false) {
			s.resetMaster(m, true, true)
			n++
		}
	}
	s.respond(id, Int(int64(n)))
}

func (s *Sentinel) cmdFailover(id uint64, args []string) {
	if len(args) > 4 {
		s.respond(id, errWrongArgs("sentinel|failover"))
		return
	}
	m := s.masterOrErr(id, args[2])
	if m == nil {
		return
	}
	if len(args) == 4 { // [COORDINATED] (Valkey 9, coordinated.go)
		s.cmdFailoverCoordinated(id, m, args[3])
		return
	}
	if !s.manualFailoverPossible(id, m) {
		return
	}
	s.logf(LevelWarning, "Executing user requested FAILOVER of '%s'", m.name)
	s.startFailover(m)
	m.flags |= fForceFailover
	s.respond(id, okValue)
}

func (s *Sentinel) cmdFlushconfig(id uint64, _ []string) {
	s.markDirty()
	s.respondPersisted(id, okValue, errSaveConfig)
}

func (s *Sentinel) cmdSimulateFailure(id uint64, args []string) {
	s.simFlags = 0
	for _, a := range args[2:] {
		switch strings.ToLower(a) {
		case "crash-after-election":
			s.simFlags |= simCrashAfterElection
			s.logf(LevelWarning, "Failure simulation: this Sentinel will crash after being successfully elected as failover leader")
		case "crash-after-promotion":
			s.simFlags |= simCrashAfterPromotion
			s.logf(LevelWarning, "Failure simulation: this Sentinel will crash after promoting the selected replica to master")
		case "help":
			s.respond(id, Array(Bulk("crash-after-election"), Bulk("crash-after-promotion")))
			return
		default:
			s.respond(id, ErrorValue("ERR Unknown failure simulation specified"))
			return
		}
	}
	s.respond(id, okValue)
}

// manualFailoverPossible answers SENTINEL FAILOVER's INPROG / NOGOODSLAVE
// errors (plain and COORDINATED alike) and reports whether none applies.
func (s *Sentinel) manualFailoverPossible(id uint64, m *instance) bool {
	if m.flags&fFailoverInProgress != 0 {
		s.respond(id, ErrorValue("INPROG Failover already in progress"))
		return false
	}
	if !s.durable() { // durable.go
		s.respond(id, errNotDurable)
		return false
	}
	if s.selectSlave(m) == nil {
		s.respond(id, ErrorValue("NOGOODSLAVE No suitable replica to promote"))
		return false
	}
	return true
}
