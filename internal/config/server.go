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

// validate checks the value of a standard directive like config.c does.
func validate(name string, sp spec, vals []string) string {
	switch sp.kind {
	case kBool:
		if _, ok := yesNo(vals[0]); !ok {
			return msgYesNo
		}
	case kEnum:
		v := strings.ToLower(vals[0])
		for _, e := range sp.enum {
			if v == e {
				return ""
			}
		}
		return "argument(s) must be one of the following: " + strings.Join(sp.enum, ", ")
	case kInt:
		n, err := strconv.ParseInt(vals[0], 10, 64)
		if err != nil {
			return msgNotInt
		}
		if (sp.min != 0 || sp.max != 0) && (n < sp.min || n > sp.max) {
			return fmt.Sprintf("argument must be between %d and %d inclusive", sp.min, sp.max)
		}
	case kMem:
		v := vals[0]
		if name == "maxmemory-clients" && strings.HasSuffix(v, "%") {
			v = strings.TrimSuffix(v, "%")
		}
		if _, ok := memToBytes(v); !ok {
			return msgNotMemory
		}
	case kMulti:
		return validateMulti(name, vals)
	}
	return ""
}

func validateMulti(name string, vals []string) string {
	switch name {
	case "replicaof", "slaveof":
		if len(vals) != 2 {
			return msgWrongArgs
		}
	case "bind":
		if len(vals) == 0 {
			return msgWrongArgs
		}
	case "latency-tracking-info-percentiles":
		if len(vals) == 1 && vals[0] == "" {
			return ""
		}
		for _, v := range vals {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return "latency-tracking-info-percentiles parameters should be a number"
			}
			if f < 0 || f > 100 {
				return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
			}
		}
	case "save":
		if len(vals) == 1 && vals[0] == "" {
			return ""
		}
		if len(vals)%2 != 0 {
			return "Invalid save parameters"
		}
		for _, v := range vals {
			if _, err := strconv.ParseInt(v, 10, 64); err != nil {
				return "Invalid save parameters"
			}
		}
	case "oom-score-adj-values":
		if len(vals) != 3 {
			return "Invalid oom-score-adj-values, please use 3 values"
		}
	}
	return ""
}

// yesNo parses yes/no case-insensitively (yesnotoi).
func yesNo(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "yes":
		return true, true
	case "no":
		return false, true
	}
	return false, false
}

// memToBytes parses "100", "1k", "1kb", "2mb", "3G" like memtoull.
func memToBytes(s string) (uint64, bool) {
	l := strings.ToLower(s)
	mul := uint64(1)
	for _, u := range []struct {
		suf string
		mul uint64
	}{{"kb", 1024}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1000}, {"m", 1000000}, {"g", 1000000000}, {"b", 1}} {
		if strings.HasSuffix(l, u.suf) {
			l = strings.TrimSuffix(l, u.suf)
			mul = u.mul
			break
		}
	}
	n, err := strconv.ParseUint(l, 10, 64)
	if err != nil {
		return 0, false
	}
	return n * mul, true
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
	case "latency-tracking-info-percentiles":
		s.LatencyPercents = nil
		for _, p := range vals {
			if f, err := strconv.ParseFloat(p, 64); err == nil {
				s.LatencyPercents = append(s.LatencyPercents, f)
			}
		}
	default:
		c.setOther(name, canonicalArgs(sp, vals), true)
	}
	return ""
}

// canonicalArgs lower-cases booleans and enums as Redis writes them back.
func canonicalArgs(sp spec, vals []string) []string {
	out := append([]string(nil), vals...)
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
