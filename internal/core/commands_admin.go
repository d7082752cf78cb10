package core

import (
	"fmt"
	"strconv"
	"strings"
)

var (
	okValue       = Status("OK")
	errSaveConfig = ErrorValue("ERR Failed to save config file. Check server logs.")
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
	addr := Addr{Host: host}
	if ip, isIP := parseIP(host); isIP {
		addr.IP = ip
	} else if !s.resolveHostnames {
		s.respond(id, ErrorValue("ERR Invalid IP address or hostname specified"))
		return
	} else if s.resolveIP != nil {
		ip, ok := s.resolveIP(host)
		if !ok {
			s.respond(id, ErrorValue("ERR Invalid IP address or hostname specified"))
			return
		}
		addr.IP = ip
	}
	if _, dup := s.masters[name]; dup {
		s.respond(id, ErrorValue("ERR Duplicate master name."))
		return
	}
	if port < 0 || port > 65535 {
		s.respond(id, ErrorValue("ERR Invalid port number."))
		return
	}
	addr.Port = int(port)
	m := s.createMaster(name, addr, int(quorum))
	s.markDirty()
	s.event(LevelWarning, "+monitor", m, fmt.Sprintf("%s quorum %d", s.at(m), m.m.quorum))
	s.respondPersisted(id, okValue, okValue)
}

func (s *Sentinel) cmdRemove(id uint64, args []string) {
	m := s.masterOrErr(id, args[2])
	if m == nil {
		return
	}
	s.event(LevelWarning, "-monitor", m, s.at(m))
	delete(s.masters, m.name)
	s.releaseInstance(m)
	s.markDirty()
	s.respondPersisted(id, okValue, okValue)
}

// cmdReset is SENTINEL RESET <pattern> (glob, case-sensitive; no flush).
func (s *Sentinel) cmdReset(id uint64, args []string) {
	n := 0
	for _, m := range s.sortedMasters() {
		if stringMatch(args[2], m.name, false) {
			s.resetMaster(m, true, true)
			n++
		}
	}
	s.respond(id, Int(int64(n)))
}

func (s *Sentinel) cmdFailover(id uint64, args []string) {
	m := s.masterOrErr(id, args[2])
	if m == nil {
		return
	}
	if m.flags&fFailoverInProgress != 0 {
		s.respond(id, ErrorValue("INPROG Failover already in progress"))
		return
	}
	if s.selectSlave(m) == nil {
		s.respond(id, ErrorValue("NOGOODSLAVE No suitable replica to promote"))
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

// cmdSet is SENTINEL SET <name> <option> <value> [<option> <value> ...].
// Changes before an error stay (and are flushed); only the error is
// replied.
func (s *Sentinel) cmdSet(id uint64, args []string) {
	m := s.masterOrErr(id, args[2])
	if m == nil {
		return
	}
	ms := m.m
	changes := 0
	finish := func(reply Value) {
		if changes > 0 {
			s.markDirty()
			s.respondPersisted(id, reply, reply)
			return
		}
		s.respond(id, reply)
	}
	for j := 3; j < len(args); j++ {
		moreargs := len(args) - 1 - j
		option := args[j]
		oldJ := j
		redacted := false
		badfmt := func(bad int) {
			finish(ErrorValue(fmt.Sprintf("ERR Invalid argument '%s' for SENTINEL SET '%s'", args[bad], option)))
		}
		positive := func(min int64) (int64, bool) {
			j++
			ll, ok := parseLL(args[j])
			if !ok || ll < min {
				badfmt(j)
				return 0, false
			}
			return ll, true
		}
		opt := strings.ToLower(option)
		switch {
		case opt == "down-after-milliseconds" && moreargs > 0:
			ll, ok := positive(1)
			if !ok {
				return
			}
			m.downAfter = ll
			for _, r := range m.sortedReplicas() {
				r.downAfter = ll
			}
			for _, si := range m.sortedSentinels() {
				si.downAfter = ll
			}
		case opt == "failover-timeout" && moreargs > 0:
			ll, ok := positive(1)
			if !ok {
				return
			}
			ms.failoverTimeout = ll
		case opt == "parallel-syncs" && moreargs > 0:
			ll, ok := positive(1)
			if !ok {
				return
			}
			ms.parallelSyncs = int(ll)
		case (opt == "notification-script" || opt == "client-reconfig-script") && moreargs > 0:
			j++
			v := args[j]
			if s.denyScripts {
				finish(ErrorValue("ERR Reconfiguration of scripts path is denied for security reasons. Check the deny-scripts-reconfig configuration directive in your Sentinel configuration"))
				return
			}
			if v != "" && s.executable != nil && !s.executable(v) {
				if opt == "notification-script" {
					finish(ErrorValue("ERR Notification script seems non existing or non executable"))
				} else {
					finish(ErrorValue("ERR Client reconfiguration script seems non existing or non executable"))
				}
				return
			}
			if opt == "notification-script" {
				ms.notificationScript = v
			} else {
				ms.clientReconfigScript = v
			}
		case (opt == "auth-pass" || opt == "auth-user") && moreargs > 0:
			j++
			if opt == "auth-pass" {
				ms.authPass = args[j]
				redacted = true
			} else {
				ms.authUser = args[j]
			}
			s.dropInstanceConnections(m)
		case opt == "quorum" && moreargs > 0:
			ll, ok := positive(1)
			if !ok {
				return
			}
			ms.quorum = int(ll)
		case opt == "rename-command" && moreargs > 1:
			from, to := args[j+1], args[j+2]
			j += 2
			if from == "" || to == "" {
				bad := j
				if to != "" {
					bad = j - 1
				}
				badfmt(bad)
				return
			}
			ms.renames = setRename(ms.renames, from, to)
		case opt == "master-reboot-down-after-period" && moreargs > 0:
			ll, ok := positive(0)
			if !ok {
				return
			}
			ms.rebootDownAfter = ll
		default:
			finish(ErrorValue(fmt.Sprintf("ERR Unknown option or number of arguments for SENTINEL SET '%s'", option)))
			return
		}
		changes++
		switch j - oldJ + 1 {
		case 2:
			v := args[oldJ+1]
			if redacted {
				v = "******"
			}
			s.event(LevelWarning, "+set", m, fmt.Sprintf("%s %s %s", s.at(m), args[oldJ], v))
		case 3:
			s.event(LevelWarning, "+set", m, fmt.Sprintf("%s %s %s %s", s.at(m), args[oldJ], args[oldJ+1], args[oldJ+2]))
		default:
			s.event(LevelWarning, "+set", m, fmt.Sprintf("%s %s", s.at(m), args[oldJ]))
		}
	}
	finish(okValue)
}

// setRename removes from's mapping and adds from→to unless both names are
// the same (case-insensitively).
func setRename(rs []Rename, from, to string) []Rename {
	out := make([]Rename, 0, len(rs)+1)
	for _, r := range rs {
		if !strings.EqualFold(r.From, from) {
			out = append(out, r)
		}
	}
	if !strings.EqualFold(from, to) {
		out = append(out, Rename{From: from, To: to})
	}
	return out
}

var errConfigUsage = ErrorValue("ERR Only SENTINEL CONFIG GET <option> / SET <option> <value> are supported.")

// cmdConfig is SENTINEL CONFIG GET <pattern> / SET <param> <value>.
func (s *Sentinel) cmdConfig(id uint64, args []string) {
	sub := strings.ToLower(args[2])
	switch {
	case sub == "get" && len(args) == 4:
		s.configGet(id, args[3])
	case sub == "set" && len(args) == 5:
		s.configSet(id, args[3], args[4])
	default:
		s.respond(id, errConfigUsage)
	}
}

func (s *Sentinel) configGet(id uint64, pattern string) {
	params := []struct{ name, value string }{
		{"resolve-hostnames", yesNo(s.resolveHostnames)},
		{"announce-hostnames", yesNo(s.announceHostnames)},
		{"announce-ip", s.announceIP},
		{"announce-port", strconv.Itoa(s.announcePort)},
		{"sentinel-user", s.sentinelUser},
		{"sentinel-pass", s.sentinelPass},
	}
	kv := []Value{}
	for _, p := range params {
		if stringMatch(pattern, p.name, true) {
			kv = append(kv, Bulk(p.name), Bulk(p.value))
		}
	}
	s.respond(id, Map(kv...))
}

func (s *Sentinel) configSet(id uint64, name, value string) {
	bad := func() {
		s.respond(id, ErrorValue(fmt.Sprintf("ERR Invalid value '%s' to SENTINEL CONFIG SET '%s'", value, name)))
	}
	drop := false
	switch strings.ToLower(name) {
	case "resolve-hostnames":
		b, ok := parseYesNo(value)
		if !ok {
			bad()
			return
		}
		s.resolveHostnames = b
	case "announce-hostnames":
		b, ok := parseYesNo(value)
		if !ok {
			bad()
			return
		}
		s.announceHostnames = b
	case "announce-ip":
		s.announceIP = value
	case "announce-port":
		n, ok := parseLL(value)
		if !ok || n < 0 || n > 65535 {
			bad()
			return
		}
		s.announcePort = int(n)
	case "sentinel-user":
		s.sentinelUser = value
		drop = true
	case "sentinel-pass":
		s.sentinelPass = value
		drop = true
	default:
		s.respond(id, ErrorValue(fmt.Sprintf("ERR Invalid argument '%s' to SENTINEL CONFIG SET", name)))
		return
	}
	s.markDirty()
	s.respondPersisted(id, okValue, okValue)
	if drop {
		s.dropSentinelConnections()
	}
}

// debugParams lists the SENTINEL DEBUG timers in reply order.
func (s *Sentinel) debugParams() []struct {
	name string
	v    *Millis
} {
	t := &s.timing
	return []struct {
		name string
		v    *Millis
	}{
		{"info-period", &t.InfoPeriod},
		{"ping-period", &t.PingPeriod},
		{"ask-period", &t.AskPeriod},
		{"publish-period", &t.PublishPeriod},
		{"default-down-after", &t.DefaultDownAfter},
		{"default-failover-timeout", &t.DefaultFailoverTimeout},
		{"tilt-trigger", &t.TiltTrigger},
		{"tilt-period", &t.TiltPeriod},
		{"slave-reconf-timeout", &t.SlaveReconfTimeout},
		{"min-link-reconnect-period", &t.MinLinkReconnectPeriod},
		{"election-timeout", &t.ElectionTimeout},
		{"script-max-runtime", &t.ScriptMaxRuntime},
		{"script-retry-delay", &t.ScriptRetryDelay},
	}
}

// cmdDebug is SENTINEL DEBUG [<param> <value> ...].
func (s *Sentinel) cmdDebug(id uint64, args []string) {
	params := s.debugParams()
	if len(args) == 2 {
		kv := []Value{}
		for _, p := range params {
			kv = append(kv, Bulk(strings.ToUpper(p.name)), BulkInt(*p.v))
		}
		s.respond(id, Map(kv...))
		return
	}
	for j := 2; j < len(args); j++ {
		option := args[j]
		var target *Millis
		for _, p := range params {
			if strings.EqualFold(p.name, option) {
				target = p.v
			}
		}
		if target == nil || len(args)-1-j < 1 {
			s.respond(id, ErrorValue(fmt.Sprintf("ERR Unknown option or number of arguments for SENTINEL DEBUG '%s'", option)))
			return
		}
		j++
		ll, ok := parseLL(args[j])
		if !ok || ll <= 0 {
			s.respond(id, ErrorValue(fmt.Sprintf("ERR Invalid argument '%s' for SENTINEL DEBUG '%s'", args[j], option)))
			return
		}
		*target = ll
	}
	s.respond(id, okValue)
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
