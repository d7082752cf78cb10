package core

import (
	"fmt"
	"strings"
)

// cmdSet is SENTINEL SET <name> <option> <value> [<option> <value> ...].
// Each option is a row of setOptions. Changes before an error stay (and
// are flushed); only the error is replied.
func (s *Sentinel) cmdSet(id uint64, args []string) {
	m := s.masterOrErr(id, args[2])
	if m == nil {
		return
	}
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
		option := args[j]
		opt := strings.ToLower(option)
		o, ok := setOptions[opt]
		if !ok || len(args)-1-j < o.nargs {
			finish(ErrorValue(fmt.Sprintf("ERR Unknown option or number of arguments for SENTINEL SET '%s'", option)))
			return
		}
		if errReply, ok := o.apply(s, m, opt, args, j+1); !ok {
			finish(errReply)
			return
		}
		changes++
		vals := args[j+1 : j+1+o.nargs]
		if o.redact {
			vals = []string{"******"}
		}
		s.eventAt(LevelWarning, "+set", m, option+" "+strings.Join(vals, " "))
		j += o.nargs
	}
	finish(okValue)
}

// setOption is one option of SENTINEL SET (sentinelSetCommand).
type setOption struct {
	nargs  int  // values after the option name
	redact bool // a secret: the +set event shows "******"
	// apply checks and applies args[j:j+nargs]; on a bad value it returns
	// the error reply and false.
	apply func(s *Sentinel, m *instance, opt string, args []string, j int) (Value, bool)
}

// setOptions is the table of SENTINEL SET options, by lower-case name.
var setOptions = map[string]setOption{
	"down-after-milliseconds":          {1, false, setDownAfter},
	"failover-timeout":                 {1, false, setFailoverTimeout},
	"parallel-syncs":                   {1, false, setParallelSyncs},
	"quorum":                           {1, false, setQuorum},
	"notification-script":              {1, false, setScript},
	"client-reconfig-script":           {1, false, setScript},
	"auth-pass":                        {1, true, setAuth},
	"auth-user":                        {1, false, setAuth},
	"rename-command":                   {2, false, setRenameCommand},
	"master-reboot-down-after-period":  {1, false, setRebootDownAfter},
	"primary-reboot-down-after-period": {1, false, setRebootDownAfter},
}

// errSetArg is Redis' error for a value SENTINEL SET cannot take.
func errSetArg(args []string, bad int, option string) Value {
	return ErrorValue(fmt.Sprintf("ERR Invalid argument '%s' for SENTINEL SET '%s'", args[bad], option))
}

// setInt parses args[j] as an integer ≥ min.
func setInt(args []string, j int, min int64) (int64, Value, bool) {
	ll, ok := parseLL(args[j])
	if !ok || ll < min {
		return 0, errSetArg(args, j, args[j-1]), false
	}
	return ll, Value{}, true
}

func setDownAfter(_ *Sentinel, m *instance, _ string, args []string, j int) (Value, bool) {
	ll, e, ok := setInt(args, j, 1)
	if !ok {
		return e, false
	}
	m.downAfter = ll
	for _, r := range m.sortedReplicas() {
		r.downAfter = ll
	}
	for _, si := range m.sortedSentinels() {
		si.downAfter = ll
	}
	return Value{}, true
}

func setFailoverTimeout(_ *Sentinel, m *instance, _ string, args []string, j int) (Value, bool) {
	ll, e, ok := setInt(args, j, 1)
	if ok {
		m.m.failoverTimeout = ll
	}
	return e, ok
}

func setParallelSyncs(_ *Sentinel, m *instance, _ string, args []string, j int) (Value, bool) {
	ll, e, ok := setInt(args, j, 1)
	if ok {
		m.m.parallelSyncs = int(ll)
	}
	return e, ok
}

func setQuorum(_ *Sentinel, m *instance, _ string, args []string, j int) (Value, bool) {
	ll, e, ok := setInt(args, j, 1)
	if ok {
		m.m.quorum = int(ll)
	}
	return e, ok
}

func setScript(s *Sentinel, m *instance, opt string, args []string, j int) (Value, bool) {
	v := args[j]
	if s.denyScripts {
		return ErrorValue("ERR Reconfiguration of scripts path is denied for security reasons. Check the deny-scripts-reconfig configuration directive in your Sentinel configuration"), false
	}
	if v != "" && s.executable != nil && !s.executable(v) {
		if opt == "notification-script" {
			return ErrorValue("ERR Notification script seems non existing or non executable"), false
		}
		return ErrorValue("ERR Client reconfiguration script seems non existing or non executable"), false
	}
	if opt == "notification-script" {
		m.m.notificationScript = v
	} else {
		m.m.clientReconfigScript = v
	}
	return Value{}, true
}

func setAuth(s *Sentinel, m *instance, opt string, args []string, j int) (Value, bool) {
	if opt == "auth-pass" {
		m.m.authPass = args[j]
	} else {
		m.m.authUser = args[j]
	}
	s.dropInstanceConnections(m)
	return Value{}, true
}

func setRenameCommand(_ *Sentinel, m *instance, _ string, args []string, j int) (Value, bool) {
	from, to := args[j], args[j+1]
	if from == "" || to == "" {
		bad := j + 1
		if to != "" {
			bad = j
		}
		return errSetArg(args, bad, args[j-1]), false
	}
	m.m.renames = setRename(m.m.renames, from, to)
	return Value{}, true
}

func setRebootDownAfter(_ *Sentinel, m *instance, opt string, args []string, j int) (Value, bool) {
	ll, e, ok := setInt(args, j, 0)
	if !ok {
		return e, false
	}
	ms := m.m
	if ms.rebootDownAfter == 0 && ll != 0 {
		ms.rebootOption = "" // the name that makes the period non-zero sticks
		if opt == "primary-reboot-down-after-period" {
			ms.rebootOption = opt
		}
	}
	ms.rebootDownAfter = ll
	return Value{}, true
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
