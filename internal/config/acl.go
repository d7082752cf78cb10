package config

import (
	"errors"
	"sort"
	"strings"
)

// errACLSyntax is returned for a `user` rule Redis would not accept.
var errACLSyntax = errors.New("acl: syntax error")

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

func isHash(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
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
			return errACLSyntax
		}
		u.addPass(strings.ToLower(r[1:]))
	case strings.HasPrefix(r, "<"):
		u.delPass(passwordHash(r[1:]))
	case strings.HasPrefix(r, "!"):
		u.delPass(strings.ToLower(r[1:]))
	case r == "~*":
		u.allKeys, u.keys = true, nil
	case strings.HasPrefix(r, "~") || strings.HasPrefix(r, "%"):
		if !u.allKeys {
			u.keys = append(u.keys, r)
		}
	case r == "&*":
		u.allChannels, u.channels = true, nil
	case strings.HasPrefix(r, "&"):
		if !u.allChannels {
			u.channels = append(u.channels, r)
		}
	case (strings.HasPrefix(r, "+") || strings.HasPrefix(r, "-")) && len(r) > 1:
		u.commands = append(u.commands, r)
	case strings.HasPrefix(r, "(") && strings.HasSuffix(r, ")"):
		u.selectors = append(u.selectors, r)
	default:
		return errACLSyntax
	}
	return nil
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

func (u *aclUser) delPass(h string) {
	for i, p := range u.passwords {
		if p == h {
			u.passwords = append(u.passwords[:i], u.passwords[i+1:]...)
			return
		}
	}
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
	parts = append(parts, u.commands...)
	parts = append(parts, u.selectors...)
	return strings.Join(parts, " ")
}

// checkUserRules reports whether every rule of a `user` line is valid.
func checkUserRules(rules []string) error {
	var u aclUser
	for _, r := range rules {
		if err := u.apply(r); err != nil {
			return err
		}
	}
	return nil
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
		if cu.Name == "default" {
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
		out = append(out, "user "+n+" "+users[n].describe())
	}
	return out
}
