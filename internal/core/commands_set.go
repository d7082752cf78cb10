package core

import (
	"fmt"
	"strings"
)

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
	// finish replies once the changes are on disk. A failed flush turns
	// the +OK of a fully applied SET into the save error (like
	// sentinelFlushConfigAndReply); an argument error is replied as is.
	finish := func(reply Value) {
		if changes > 0 {
			s.markDirty()
			fail := reply
			if !reply.IsError() {
				fail = errSaveConfig
			}
			s.respondPersisted(id, reply, fail)
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
		case (opt == "master-reboot-down-after-period" || opt == "primary-reboot-down-after-period") && moreargs > 0:
			ll, ok := positive(0)
			if !ok {
				return
			}
			if ms.rebootDownAfter == 0 && ll != 0 {
				ms.rebootOption = "" // the name that makes the period non-zero sticks
				if opt == "primary-reboot-down-after-period" {
					ms.rebootOption = opt
				}
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
