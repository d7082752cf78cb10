package config

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ACL rule errors, with the texts of ACLSetUserStringError.
var (
	errACLSyntax      = errors.New("Syntax error")
	errACLKeysAfter   = errors.New("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns")
	errACLChansAfter  = errors.New("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels")
	errACLNoSuchPass  = errors.New("The password you are trying to remove from the user does not exist")
	errACLBadHash     = errors.New("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters")
	errACLDuplicateID = errors.New("Duplicate user found. A user can only be defined once in config files")
	// errACLUnclosed is what 7.0.15 prints for an unclosed "(" selector
	// (a stale errno: the merge step does not set one).
	errACLUnclosed = errors.New("Unknown command or category name in ACL")
)

// aclUser is the small subset of an ACL user needed to describe it the way
// ACLDescribeUser does for the rules a sentinel.conf uses.
type aclUser struct {
	on          bool
	nopass      bool
	sanitize    string // "", "sanitize-payload" or "skip-sanitize-payload"
	passwords   []string
	allKeys     bool
	keys        []string
	allChannels bool
	channels    []string
	allCommands bool
	commands    []string
	selectors   []string
}

// isHash reports whether s is 64 lower-case hex digits.
func isHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')) {
			return false
		}
	}
	return true
}

// reset is ACLSetUser(u, "reset").
func (u *aclUser) reset() {
	*u = aclUser{sanitize: "sanitize-payload"}
}

// apply applies one rule.
func (u *aclUser) apply(r string) error {
	lr := strings.ToLower(r)
	switch {
	case lr == "on":
		u.on = true
	case lr == "off":
		u.on = false
	case lr == "nopass":
		u.nopass, u.passwords = true, nil
	case lr == "resetpass":
		u.nopass, u.passwords = false, nil
	case lr == "reset":
		u.reset()
	case lr == "allkeys":
		u.allKeys, u.keys = true, nil
	case lr == "resetkeys":
		u.allKeys, u.keys = false, nil
	case lr == "allchannels":
		u.allChannels, u.channels = true, nil
	case lr == "resetchannels":
		u.allChannels, u.channels = false, nil
	case lr == "allcommands" || lr == "+@all":
		u.allCommands, u.commands = true, nil
	case lr == "nocommands" || lr == "-@all":
		u.allCommands, u.commands = false, nil
	case lr == "sanitize-payload" || lr == "skip-sanitize-payload":
		u.sanitize = lr
	case strings.HasPrefix(r, ">"):
		u.addPass(passwordHash(r[1:]))
	case strings.HasPrefix(r, "#"):
		if !isHash(r[1:]) {
			return errACLBadHash
		}
		u.addPass(r[1:])
	case strings.HasPrefix(r, "<"):
		return u.delPass(passwordHash(r[1:]))
	case strings.HasPrefix(r, "!"):
		if !isHash(r[1:]) {
			return errACLBadHash
		}
		return u.delPass(r[1:])
	case strings.HasPrefix(r, "~") || strings.HasPrefix(r, "%"):
		if u.allKeys {
			return errACLKeysAfter
		}
		if strings.HasPrefix(r, "%") && !validKeyPerm(r) {
			return errACLSyntax
		}
		if r == "~*" || r == "%RW~*" || r == "%WR~*" {
			u.allKeys, u.keys = true, nil
		} else {
			u.keys = append(u.keys, r)
		}
	case strings.HasPrefix(r, "&"):
		if u.allChannels {
			return errACLChansAfter
		}
		if r == "&*" {
			u.allChannels, u.channels = true, nil
		} else {
			u.channels = append(u.channels, r)
		}
	case (strings.HasPrefix(r, "+") || strings.HasPrefix(r, "-")) && len(r) > 1:
		u.commandRule(lr)
	case strings.HasPrefix(r, "(") && strings.HasSuffix(r, ")"):
		u.selectors = append(u.selectors, r)
	default:
		return errACLSyntax
	}
	return nil
}

// commandRule records a +cmd / -cmd / +@cat / -@cat rule the way Redis
// keeps command_rules: a new rule replaces earlier rules for the same name
// (and a command's rule replaces its subcommands' rules), and a rule that
// does not change what the +@all/-@all base already gives is dropped.
// Without a command table, "does not change" is decided conservatively:
// a command rule is only dropped when no category rule remains.
func (u *aclUser) commandRule(r string) {
	allow, name := r[0] == '+', r[1:]
	kept := u.commands[:0]
	for _, c := range u.commands {
		n := c[1:]
		if n == name || (!strings.Contains(name, "|") && strings.HasPrefix(n, name+"|")) {
			continue
		}
		kept = append(kept, c)
	}
	u.commands = kept
	if allow == u.allCommands {
		redundant := true
		if !strings.HasPrefix(name, "@") {
			for _, c := range u.commands {
				if strings.HasPrefix(c[1:], "@") {
					redundant = false
				}
			}
		} else {
			for _, c := range u.commands {
				if (c[0] == '+') != allow {
					redundant = false
				}
			}
		}
		if redundant {
			return
		}
	}
	u.commands = append(u.commands, r)
}

func (u *aclUser) addPass(h string) {
	u.nopass = false
	for _, p := range u.passwords {
		if p == h {
			return
		}
	}
	u.passwords = append(u.passwords, h)
}

func (u *aclUser) delPass(h string) error {
	for i, p := range u.passwords {
		if p == h {
			u.passwords = append(u.passwords[:i], u.passwords[i+1:]...)
			return nil
		}
	}
	return errACLNoSuchPass
}

// validKeyPerm checks a %R~ / %W~ / %RW~ key pattern.
func validKeyPerm(r string) bool {
	i := 1
	for i < len(r) && (r[i] == 'R' || r[i] == 'W' || r[i] == 'r' || r[i] == 'w') {
		i++
	}
	return i > 1 && i < len(r) && r[i] == '~'
}

// mergeSelectors joins "(a" "b)" into one "(a b)" rule like
// ACLMergeSelectorArguments; bad is the index of an unclosed "(".
func mergeSelectors(rules []string) (merged []string, bad int, err error) {
	open := -1
	sel := ""
	for j, r := range rules {
		if open < 0 && strings.HasPrefix(r, "(") && !strings.HasSuffix(r, ")") {
			open, sel = j, r
			continue
		}
		if open >= 0 {
			sel += " " + r
			if strings.HasSuffix(r, ")") {
				merged = append(merged, sel)
				open = -1
			}
			continue
		}
		merged = append(merged, r)
	}
	if open >= 0 {
		return nil, open, errACLUnclosed
	}
	return merged, 0, nil
}

// describe renders the user like ACLDescribeUser.
func (u *aclUser) describe() string {
	var parts []string
	if u.on {
		parts = append(parts, "on")
	} else {
		parts = append(parts, "off")
	}
	if u.nopass {
		parts = append(parts, "nopass")
	}
	if u.sanitize != "" {
		parts = append(parts, u.sanitize)
	}
	for _, p := range u.passwords {
		parts = append(parts, "#"+p)
	}
	for _, p := range u.selectorParts() {
		parts = append(parts, QuoteIfNeeded(p)) // a pattern with a space must stay one word
	}
	for _, sel := range u.selectors {
		var su aclUser
		for _, r := range strings.Fields(strings.TrimSuffix(strings.TrimPrefix(sel, "("), ")")) {
			_ = su.apply(r) // validated at load
		}
		parts = append(parts, "("+strings.Join(su.selectorParts(), " ")+")")
	}
	return strings.Join(parts, " ")
}

// selectorParts describes keys, channels and commands (ACLDescribeSelector).
func (u *aclUser) selectorParts() []string {
	var parts []string
	if u.allKeys {
		parts = append(parts, "~*")
	} else {
		parts = append(parts, u.keys...)
	}
	if u.allChannels {
		parts = append(parts, "&*")
	} else {
		parts = append(parts, "resetchannels")
		parts = append(parts, u.channels...)
	}
	if u.allCommands {
		parts = append(parts, "+@all")
	} else {
		parts = append(parts, "-@all")
	}
	return append(parts, u.commands...)
}

// checkUserRules validates the rules of a `user` line and returns them with
// selectors merged; on error bad is the index Redis reports (see userError).
func checkUserRules(rules []string) (merged []string, bad int, err error) {
	merged, bad, err = mergeSelectors(rules)
	if err != nil {
		return nil, bad, err
	}
	var u aclUser
	for j, r := range merged {
		if err := u.apply(r); err != nil {
			return nil, j, err
		}
	}
	return merged, 0, nil
}

// userLines returns the `user` lines a rewrite writes: every user sorted by
// name, the default user included (from requirepass when it has no line).
func userLines(s *Server) []string {
	users := map[string]*aclUser{}
	def := &aclUser{on: true, nopass: true, allKeys: true, allChannels: true, allCommands: true}
	if s.RequirePass != "" {
		def.nopass = false
		def.passwords = []string{passwordHash(s.RequirePass)}
	}
	users["default"] = def
	for _, cu := range s.Users {
		u := &aclUser{}
		// A `user default` line read from a file starts from "reset" in
		// Redis (so it then shows sanitize-payload). Users built by code
		// (the runtime's live ACL LIST descriptions, no source line) are
		// already complete descriptions: they are written as they are.
		if cu.Name == "default" && cu.at.line > 0 {
			u.reset()
		}
		for _, r := range cu.Rules {
			_ = u.apply(r) // validated at load
		}
		users[cu.Name] = u
	}
	names := make([]string, 0, len(users))
	for n := range users {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, "user "+QuoteIfNeeded(n)+" "+users[n].describe())
	}
	return out
}

// aclCategories are the ACL command categories of Redis 7.0.
var aclCategories = map[string]bool{
	"all": true, "keyspace": true, "read": true, "write": true, "set": true, "sortedset": true,
	"list": true, "hash": true, "string": true, "bitmap": true, "hyperloglog": true, "geo": true,
	"stream": true, "pubsub": true, "admin": true, "fast": true, "slow": true, "blocking": true,
	"dangerous": true, "connection": true, "transaction": true, "scripting": true,
}

// checkUserCommands reports the first +cmd/-cmd rule naming a command a
// sentinel does not have (ACLLoadConfiguredUsers at startup: "Error loading
// ACL rule ..."), or "" when all are known. Selectors are checked inside.
func checkUserCommands(u User) string {
	for _, r := range u.Rules {
		rules := []string{r}
		if strings.HasPrefix(r, "(") {
			rules = strings.Fields(strings.Trim(r, "()"))
		}
		for _, x := range rules {
			if len(x) < 2 || (x[0] != '+' && x[0] != '-') {
				continue
			}
			name := strings.ToLower(x[1:])
			known := false
			if strings.HasPrefix(name, "@") {
				known = aclCategories[name[1:]]
			} else {
				cmd, _, _ := strings.Cut(name, "|")
				for _, c := range sentinelCommands {
					if c == cmd {
						known = true
					}
				}
			}
			if !known {
				return fmt.Sprintf("Error loading ACL rule '%s' for the user named '%s': Unknown command or category name in ACL", r, u.Name)
			}
		}
	}
	return ""
}
