package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// applyServer applies one ordinary redis.conf directive (args[0] is
// lower-case) and returns Redis' error message, or "" when it is valid.
func (c *Config) applyServer(args []string) string {
	name := args[0]
	if sp, ok := lookupStandard(name); ok {
		vals := args[1:]
		if sp.kind != kMulti && len(args) != 2 {
			return msgWrongArgs
		}
		if sp.kind == kMulti && len(vals) == 1 && vals[0] != "" {
			// "--bind '1.2.3.4 ::1'" style: split a single argument again.
			v, err := SplitArgs(vals[0])
			if err != nil {
				return msgUnbalancedQuotes
			}
			vals = v
		}
		if msg := validate(name, sp, vals); msg != "" {
			return msg
		}
		return c.setStandard(primaryName(name), sp, vals)
	}
	if r, ok := deprecated[name]; ok && len(args) >= r[0] && len(args) <= r[1] {
		return ""
	}
	switch {
	case name == "rename-command" && len(args) == 3:
		return c.renameCommand(args[1], args[2])
	case name == "user" && len(args) >= 2:
		for _, u := range c.Server.Users {
			if u.Name == args[1] {
				return userError(args, 1, errACLDuplicateID)
			}
		}
		rules, bad, err := checkUserRules(args[2:])
		if err != nil {
			return userError(args, bad, err)
		}
		c.Server.Users = append(c.Server.Users, User{Name: args[1], Rules: rules, at: c.cur})
		return ""
	case name == "loadmodule" && len(args) >= 2:
		c.setOther(name, args[1:], false)
		return ""
	case strings.Contains(name, "."):
		if len(args) < 2 {
			return msgModuleNoValue
		}
		c.setOther(name, args[1:], true)
		return ""
	}
	return msgBadDirective
}

// setStandard stores a validated standard directive.
func (c *Config) setStandard(name string, sp spec, vals []string) string {
	s := &c.Server
	v := ""
	if len(vals) > 0 {
		v = vals[0]
	}
	atoi := func() int { n, _ := strconv.Atoi(v); return n }
	yes := func() bool { b, _ := yesNo(v); return b }
	switch name {
	case "port":
		s.Port = atoi()
	case "bind":
		s.Bind = append([]string(nil), vals...)
	case "dir":
		abs := c.resolveDir(v)
		if st, err := os.Stat(abs); err != nil {
			if os.IsNotExist(err) {
				return "No such file or directory"
			}
			return err.Error()
		} else if !st.IsDir() {
			return "Not a directory"
		}
		s.Dir, s.AbsDir = v, abs
	case "logfile":
		s.LogFile = v
	case "loglevel":
		s.LogLevel = strings.ToLower(v)
	case "daemonize":
		s.Daemonize = yes()
	case "pidfile":
		s.PidFile = v
	case "requirepass":
		s.RequirePass = v
	case "aclfile":
		s.ACLFile = v
	case "acllog-max-len":
		s.ACLLogMaxLen = atoi()
	case "maxclients":
		s.MaxClients = atoi()
	case "timeout":
		s.Timeout = atoi()
	case "tcp-keepalive":
		s.TCPKeepalive = atoi()
	case "protected-mode":
		s.ProtectedMode = yes()
	case "hz":
		s.HZ = atoi()
	case "bind-source-addr":
		s.BindSourceAddr = v
	case "tls-port":
		s.TLSPort = atoi()
	case "tls-cert-file":
		s.TLSCertFile = v
	case "tls-key-file":
		s.TLSKeyFile = v
	case "tls-ca-cert-file":
		s.TLSCACertFile = v
	case "tls-replication":
		s.TLSReplication = yes()
	case "tls-auth-clients":
		s.TLSAuthClients = strings.ToLower(v)
	case "client-output-buffer-limit":
		return c.setOutputLimits(vals)
	case "latency-tracking-info-percentiles":
		s.LatencyPercents = nil
		for _, p := range vals {
			if f, err := strconv.ParseFloat(p, 64); err == nil {
				s.LatencyPercents = append(s.LatencyPercents, f)
			}
		}
	case "notify-keyspace-events":
		ev, _ := keyspaceEvents(v) // validated
		c.setOther(name, []string{ev}, true)
	default:
		if strings.HasPrefix(name, "tls-") {
			if msg := checkTLSDirective(name, vals); msg != "" { // tls.go
				return msg
			}
		}
		c.setOther(name, canonicalArgs(sp, vals), true)
	}
	return ""
}

// canonicalArgs writes values back as Redis does: booleans and enums in
// lower case, octal permissions without leading zeros, keyspace event
// flags in Redis' order.
func canonicalArgs(sp spec, vals []string) []string {
	out := append([]string(nil), vals...)
	if sp.kind == kRaw && len(out) == 1 {
		if n, err := strconv.ParseUint(out[0], 8, 32); err == nil {
			out[0] = strconv.FormatUint(n, 8)
		}
	}

	if (sp.kind == kBool || sp.kind == kEnum) && len(out) == 1 {
		out[0] = strings.ToLower(out[0])
	}
	return out
}

// setOther records a directive not modelled by a field; with replace the
// last value wins (config table semantics), otherwise each line is kept.
func (c *Config) setOther(name string, vals []string, replace bool) {
	if replace {
		for i := range c.Server.Other {
			if c.Server.Other[i].Name == name {
				c.Server.Other[i].Args = vals
				return
			}
		}
	}
	c.Server.Other = append(c.Server.Other, Directive{Name: name, Args: vals})
}

// renameCommand applies a top-level rename-command: in sentinel mode only
// the sentinel's own commands exist.
func (c *Config) renameCommand(oldName, newName string) string {
	names := c.commandNames()
	o := strings.ToLower(oldName)
	if !names[o] {
		return msgNoSuchCommand
	}
	if newName != "" && names[strings.ToLower(newName)] {
		return msgTargetExists
	}
	c.Server.RenameCommands = append(c.Server.RenameCommands, Rename{Old: oldName, New: newName})
	return ""
}

// commandNames returns the command table after the renames so far.
func (c *Config) commandNames() map[string]bool {
	names := make(map[string]bool, len(sentinelCommands))
	for _, n := range sentinelCommands {
		names[n] = true
	}
	for _, r := range c.Server.RenameCommands {
		delete(names, strings.ToLower(r.Old))
		if r.New != "" {
			names[strings.ToLower(r.New)] = true
		}
	}
	return names
}

// userError formats an ACL error like config.c. Redis prints argv[i] where i
// is the index of the failing rule among the rules (not among argv), so the
// word shown is two words to the left: we keep that for identical messages.
func userError(argv []string, i int, err error) string {
	return fmt.Sprintf("Error in user declaration '%s': %s", argv[i], err.Error())
}

// passwordHash returns the ACL form of a password (#<sha256 hex>).
func passwordHash(p string) string {
	h := sha256.Sum256([]byte(p))
	return hex.EncodeToString(h[:])
}

// setOutputLimits applies client-output-buffer-limit <class> <hard> <soft>
// <seconds> [...] like config.c.
func (c *Config) setOutputLimits(vals []string) string {
	if len(vals)%4 != 0 {
		return "Wrong number of arguments in buffer limit configuration."
	}
	limits := c.Server.outputLimits
	for i := 0; i < len(vals); i += 4 {
		class := -1
		switch strings.ToLower(vals[i]) {
		case "normal":
			class = 0
		case "replica", "slave":
			class = 1
		case "pubsub":
			class = 2
		}
		if class < 0 {
			return "Invalid client class specified in buffer limit configuration."
		}
		hard, ok1 := memToBytes(vals[i+1])
		soft, ok2 := memToBytes(vals[i+2])
		secs, err := strconv.ParseUint(vals[i+3], 10, 63)
		if !ok1 || !ok2 || err != nil {
			return "Error in hard, soft or soft_seconds setting in buffer limit configuration."
		}
		limits[class] = [3]uint64{hard, soft, secs}
	}
	c.Server.outputLimits = limits
	return ""
}
