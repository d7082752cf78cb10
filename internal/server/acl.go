package server

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/gosentinel/gosentinel/internal/glob"
)

// ACL errors worded like Redis 7.0 (ACLSetUserStringError).
var (
	errACLSyntax        = errors.New("Syntax error")
	errACLUnknownCmd    = errors.New("Unknown command or category name in ACL")
	errACLKeyAfterAll   = errors.New("Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns")
	errACLChanAfterAll  = errors.New("Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels")
	errACLNoSuchPass    = errors.New("The password you are trying to remove from the user does not exist")
	errACLBadHash       = errors.New("The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters")
	errACLNoSelectors   = errors.New("Selectors are not supported by gosentinel")
	errACLDefaultDelete = errors.New("The 'default' user cannot be removed")
)

// user is one ACL user.
type user struct {
	name        string
	enabled     bool
	nopass      bool
	sanitize    string   // "", "sanitize-payload" (set by reset) or "skip-sanitize-payload"
	passwords   []string // sha256 hex digests, insertion order
	allKeys     bool
	keys        []string // "~pattern" style rules as given
	allChannels bool
	channels    []string // channel patterns without '&'
	allowAll    bool     // base rule: +@all (true) or -@all (false)
	cmdRules    []string // rules after the base, for display
	allowed     map[string]bool
}

// clone returns a deep copy.
func (u *user) clone() *user {
	c := *u
	c.passwords = slices.Clone(u.passwords)
	c.keys = slices.Clone(u.keys)
	c.channels = slices.Clone(u.channels)
	c.cmdRules = slices.Clone(u.cmdRules)
	c.allowed = make(map[string]bool, len(u.allowed))
	for k, v := range u.allowed {
		c.allowed[k] = v
	}
	return &c
}

// acl is the user database, shared by all connections.
type acl struct {
	mu    sync.RWMutex
	users map[string]*user
	tab   *table
}

// newACL returns a database with Redis' default user
// ("on nopass ~* &* +@all").
func newACL(tab *table) *acl {
	a := &acl{users: map[string]*user{}, tab: tab}
	def := a.newUser("default")
	_ = a.apply(def, []string{"on", "nopass", "~*", "&*", "+@all"})
	a.users["default"] = def
	return a
}

// newUser returns a user as ACL SETUSER creates it: off, no passwords, no
// keys, no channels (Redis 7.0 acl-pubsub-default resetchannels), -@all.
func (a *acl) newUser(name string) *user {
	return &user{name: name, allowed: map[string]bool{}}
}

// setUser applies rules to a (possibly new) user atomically: on error the
// user is unchanged. It returns the offending rule with the error.
func (a *acl) setUser(name string, rules []string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	u, ok := a.users[name]
	var work *user
	if ok {
		work = u.clone()
	} else {
		work = a.newUser(name)
	}
	for _, r := range rules {
		if err := a.apply(work, []string{r}); err != nil {
			return r, err
		}
	}
	a.users[name] = work
	return "", nil
}

// apply applies rules in order to u (caller holds the lock or owns u).
func (a *acl) apply(u *user, rules []string) error {
	for _, r := range rules {
		if err := a.applyOne(u, r); err != nil {
			return err
		}
	}
	return nil
}

func (a *acl) applyOne(u *user, r string) error {
	lr := strings.ToLower(r)
	switch lr {
	case "on":
		u.enabled = true
		return nil
	case "off":
		u.enabled = false
		return nil
	case "nopass":
		u.nopass = true
		u.passwords = nil
		return nil
	case "resetpass":
		u.nopass = false
		u.passwords = nil
		return nil
	case "allkeys":
		u.allKeys, u.keys = true, []string{"~*"}
		return nil
	case "resetkeys":
		u.allKeys, u.keys = false, nil
		return nil
	case "allchannels":
		u.allChannels, u.channels = true, []string{"*"}
		return nil
	case "resetchannels":
		u.allChannels, u.channels = false, nil
		return nil
	case "allcommands", "+@all":
		a.setAll(u, true)
		return nil
	case "nocommands", "-@all":
		a.setAll(u, false)
		return nil
	case "reset":
		for _, x := range []string{"resetpass", "resetkeys", "resetchannels", "off", "sanitize-payload", "-@all"} {
			_ = a.applyOne(u, x)
		}
		return nil
	case "sanitize-payload", "skip-sanitize-payload":
		u.sanitize = lr
		return nil
	case "clearselectors":
		return nil
	}
	if r == "" {
		return errACLSyntax
	}
	switch r[0] {
	case '>':
		h := hashPassword(r[1:])
		if !slices.Contains(u.passwords, h) {
			u.passwords = append(u.passwords, h)
		}
		u.nopass = false
		return nil
	case '<':
		return removePassword(u, hashPassword(r[1:]))
	case '#':
		if !validHash(r[1:]) {
			return errACLBadHash
		}
		if !slices.Contains(u.passwords, r[1:]) {
			u.passwords = append(u.passwords, r[1:])
		}
		u.nopass = false
		return nil
	case '!':
		if !validHash(r[1:]) {
			return errACLBadHash
		}
		return removePassword(u, r[1:])
	case '~', '%':
		if r[0] == '%' {
			i := strings.IndexByte(r, '~')
			if i < 2 || strings.Trim(strings.ToUpper(r[1:i]), "RW") != "" {
				return errACLSyntax
			}
		}
		if r == "~*" {
			u.allKeys, u.keys = true, []string{"~*"}
			return nil
		}
		if u.allKeys {
			return errACLKeyAfterAll
		}
		if !slices.Contains(u.keys, r) {
			u.keys = append(u.keys, r)
		}
		return nil
	case '&':
		if r == "&*" {
			u.allChannels, u.channels = true, []string{"*"}
			return nil
		}
		if u.allChannels {
			return errACLChanAfterAll
		}
		if !slices.Contains(u.channels, r[1:]) {
			u.channels = append(u.channels, r[1:])
		}
		return nil
	case '(':
		return errACLNoSelectors
	case '+', '-':
		return a.applyCommandRule(u, r[0] == '+', strings.ToLower(r[1:]))
	}
	return errACLSyntax
}

// applyCommandRule handles +cmd, -cmd, +@cat, -@cat, +parent|sub.
func (a *acl) applyCommandRule(u *user, allow bool, target string) error {
	if cat, ok := strings.CutPrefix(target, "@"); ok {
		if !slices.Contains(a.tab.cats, cat) {
			return errACLUnknownCmd
		}
		for _, c := range a.tab.all {
			if c.hasCategory(cat) {
				u.allowed[c.name] = allow
			}
		}
	} else {
		c := a.tab.lookup(target)
		if c == nil {
			return errACLUnknownCmd
		}
		u.allowed[c.name] = allow
		for _, s := range c.subOrder {
			u.allowed[s.name] = allow
		}
	}
	sign := "-"
	if allow {
		sign = "+"
	}
	rule := sign + target
	u.cmdRules = slices.DeleteFunc(u.cmdRules, func(x string) bool { return x[1:] == target })
	u.cmdRules = append(u.cmdRules, rule)
	return nil
}

// setAll resets command permissions to everything or nothing.
func (a *acl) setAll(u *user, allow bool) {
	u.allowAll = allow
	u.cmdRules = nil
	for _, c := range a.tab.all {
		u.allowed[c.name] = allow
	}
}

func removePassword(u *user, h string) error {
	i := slices.Index(u.passwords, h)
	if i < 0 {
		return errACLNoSuchPass
	}
	u.passwords = slices.Delete(u.passwords, i, i+1)
	return nil
}

func hashPassword(p string) string {
	sum := sha256.Sum256([]byte(p))
	return hex.EncodeToString(sum[:])
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// authenticate checks a username/password pair like ACLCheckUserCredentials.
func (a *acl) authenticate(name, pass string) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	u := a.users[name]
	if u == nil || !u.enabled {
		return false
	}
	if u.nopass {
		return true
	}
	return slices.Contains(u.passwords, hashPassword(pass))
}

// defaultOpen reports whether new connections are authenticated
// automatically (default user enabled with nopass).
func (a *acl) defaultOpen() bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	d := a.users["default"]
	return d != nil && d.enabled && d.nopass
}

// defaultNoPass reports whether the default user has the nopass flag.
func (a *acl) defaultNoPass() bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	d := a.users["default"]
	return d != nil && d.nopass
}

// check returns, under one lock, whether new connections are open
// (default user on and nopass) and whether user name may run c.
func (a *acl) check(name string, c *command) (open, allowed bool) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	d := a.users["default"]
	open = d != nil && d.enabled && d.nopass
	u := a.users[name]
	return open, u != nil && u.allowed[c.name]
}

// canRun reports whether user name may run command c.
func (a *acl) canRun(name string, c *command) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	u := a.users[name]
	return u != nil && u.allowed[c.name]
}

// canAccessChannels reports whether user name may use the channels (or,
// when patterns is true, the patterns) given. Patterns must match an
// allowed pattern literally, like ACLCheckChannelAgainstList.
func (a *acl) canAccessChannels(name string, chans [][]byte, patterns bool) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	u := a.users[name]
	if u == nil {
		return false
	}
	if u.allChannels {
		return true
	}
	for _, ch := range chans {
		ok := false
		for _, p := range u.channels {
			if patterns {
				ok = p == string(ch)
			} else {
				ok = glob.Match(p, string(ch), false)
			}
			if ok {
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// describe renders a user like ACL LIST does.
func (u *user) describe() string {
	var b strings.Builder
	b.WriteString("user ")
	b.WriteString(u.name)
	if u.enabled {
		b.WriteString(" on")
	} else {
		b.WriteString(" off")
	}
	if u.nopass {
		b.WriteString(" nopass")
	}
	if u.sanitize != "" {
		b.WriteString(" ")
		b.WriteString(u.sanitize)
	}
	for _, p := range u.passwords {
		b.WriteString(" #")
		b.WriteString(p)
	}
	if k := u.keysString(); k != "" {
		b.WriteString(" ")
		b.WriteString(k)
	}
	if u.allChannels {
		b.WriteString(" &*")
	} else {
		b.WriteString(" resetchannels")
		for _, c := range u.channels {
			b.WriteString(" &")
			b.WriteString(c)
		}
	}
	b.WriteString(" ")
	b.WriteString(u.commandsString())
	return b.String()
}

func (u *user) keysString() string {
	return strings.Join(u.keys, " ")
}

func (u *user) channelsString() string {
	if u.allChannels {
		return "&*"
	}
	parts := make([]string, len(u.channels))
	for i, c := range u.channels {
		parts[i] = "&" + c
	}
	return strings.Join(parts, " ")
}

func (u *user) commandsString() string {
	base := "-@all"
	if u.allowAll {
		base = "+@all"
	}
	if len(u.cmdRules) == 0 {
		return base
	}
	return base + " " + strings.Join(u.cmdRules, " ")
}

// flags returns the GETUSER flags.
func (u *user) flags() []string {
	f := []string{"off"}
	if u.enabled {
		f[0] = "on"
	}
	if u.nopass {
		f = append(f, "nopass")
	}
	if u.sanitize != "" {
		f = append(f, u.sanitize)
	}
	return f
}

// ACLUsers returns the users in "ACL LIST" form ("user default on nopass
// ~* &* +@all"), sorted by name: what a config rewrite writes back as
// "user" lines.
func (s *Server) ACLUsers() []string {
	a := s.acl
	a.mu.RLock()
	defer a.mu.RUnlock()
	names := sortedUsers(a)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = a.users[n].describe()
	}
	return out
}
