package core

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gosentinel/gosentinel/internal/glob"
)

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
		if glob.Match(pattern, p.name, true) {
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
		s.announceIP, s.announceIPSet = value, true
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
