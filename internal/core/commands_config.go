package core

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gosentinel/gosentinel/internal/glob"
)

// errConfigUsage is the Redis 7.4 / Valkey 8 text (7.2 lacks the space
// before "/ SET"; 7.0.15 said "GET <option> / SET <option> <value>").
var errConfigUsage = ErrorValue("ERR Only SENTINEL CONFIG GET <param> [<param> <param> ...] / SET <param> <value> [<param> <value> ...] are supported.")

// configParams are the SENTINEL CONFIG parameters in GET reply order.
var configParams = []string{"resolve-hostnames", "announce-hostnames", "announce-ip",
	"announce-port", "sentinel-user", "sentinel-pass", "loglevel"}

// logLevels are the loglevel values SENTINEL CONFIG SET takes (7.2+).
var logLevels = []string{"debug", "verbose", "notice", "warning", "nothing"}

// cmdConfig is SENTINEL CONFIG GET <pattern> [<pattern> ...] /
// SET <param> <value> [<param> <value> ...] (Redis 7.2+).
func (s *Sentinel) cmdConfig(id uint64, args []string) {
	sub := strings.ToLower(args[2])
	switch {
	case sub == "get" && len(args) >= 4:
		s.configGet(id, args[3:])
	case sub == "set" && len(args) >= 5:
		s.configSet(id, args[3:])
	default:
		s.respond(id, errConfigUsage)
	}
}

// configValue returns a SENTINEL CONFIG parameter's current value.
func (s *Sentinel) configValue(name string) string {
	switch name {
	case "resolve-hostnames":
		return yesNo(s.resolveHostnames)
	case "announce-hostnames":
		return yesNo(s.announceHostnames)
	case "announce-ip":
		return s.announceIP
	case "announce-port":
		return strconv.Itoa(s.announcePort)
	case "sentinel-user":
		return s.sentinelUser
	case "sentinel-pass":
		return s.sentinelPass
	case "loglevel":
		return s.logLevel()
	}
	return ""
}

// configGet answers each pattern in turn with the parameters it matches
// that no earlier pattern emitted.
func (s *Sentinel) configGet(id uint64, patterns []string) {
	emitted := map[string]bool{}
	kv := []Value{}
	for _, pattern := range patterns {
		for _, p := range configParams {
			if !emitted[p] && glob.Match(pattern, p, true) {
				emitted[p] = true
				kv = append(kv, Bulk(p), Bulk(s.configValue(p)))
			}
		}
	}
	s.respond(id, Map(kv...))
}

// configSet validates every pair first (unknown, duplicate, missing or
// bad value: nothing is changed), then applies them all and flushes once.
func (s *Sentinel) configSet(id uint64, pairs []string) {
	seen := map[string]bool{}
	for i := 0; i < len(pairs); i++ {
		name := pairs[i]
		lname := strings.ToLower(name)
		if !containsString(configParams, lname) {
			s.respond(id, ErrorValue(fmt.Sprintf("ERR Invalid argument '%s' to SENTINEL CONFIG SET", name)))
			return
		}
		if seen[lname] {
			s.respond(id, ErrorValue(fmt.Sprintf("ERR Duplicate argument '%s' to SENTINEL CONFIG SET", name)))
			return
		}
		seen[lname] = true
		if i+1 == len(pairs) {
			s.respond(id, ErrorValue(fmt.Sprintf("ERR Missing argument '%s' value", name)))
			return
		}
		i++
		if !validConfigValue(lname, pairs[i]) {
			s.respond(id, ErrorValue(fmt.Sprintf("ERR Invalid value '%s' to SENTINEL CONFIG SET '%s'", pairs[i], name)))
			return
		}
	}
	drop := false
	for i := 0; i+1 < len(pairs); i += 2 {
		value := pairs[i+1]
		switch strings.ToLower(pairs[i]) {
		case "resolve-hostnames":
			s.resolveHostnames, _ = parseYesNo(value)
		case "announce-hostnames":
			s.announceHostnames, _ = parseYesNo(value)
		case "announce-ip":
			s.announceIP, s.announceIPSet = value, true
		case "announce-port":
			n, _ := parseLL(value)
			s.announcePort = int(n)
		case "sentinel-user":
			s.sentinelUser = value
			drop = true
		case "sentinel-pass":
			s.sentinelPass = value
			drop = true
		case "loglevel":
			s.newer.logLevel = strings.ToLower(value)
		}
	}
	s.markDirty()
	s.respondPersisted(id, okValue, errSaveConfig)
	if drop {
		s.dropSentinelConnections()
	}
}

// validConfigValue checks one SENTINEL CONFIG SET value (lname lower-case).
func validConfigValue(lname, value string) bool {
	switch lname {
	case "resolve-hostnames", "announce-hostnames":
		_, ok := parseYesNo(value)
		return ok
	case "announce-port":
		n, ok := parseLL(value)
		return ok && n >= 0 && n <= 65535
	case "loglevel":
		return containsString(logLevels, strings.ToLower(value))
	}
	return true
}

func containsString(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
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
