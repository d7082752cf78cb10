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
	errACLDefaultDelete = errors.New("The 'default' user cannot be removed")
)

// user is one ACL user: its flags and passwords, its root selector
// (embedded) and the selectors added with "(...)", like Redis 7.
type user struct {
	name      string
	enabled   bool
	nopass    bool
	sanitize  string   // "", "sanitize-payload" (set by reset) or "skip-sanitize-payload"
	passwords []string // sha256 hex digests, insertion order
	selector
	selectors []*selector // "(...)" selectors, in the order they were added
}

// selector is one set of permissions: keys, channels and commands. A user
// may run a command if its root selector or any other selector allows the
// command with every channel it names.
type selector struct {
	allKeys     bool
	keys        []string // "~pattern" style rules as given
	allChannels bool
	channels    []string // channel patterns without '&'
	allowAll    bool     // base rule: +@all (true) or -@all (false)
	cmdRules    []string // rules after the base, for display
	allowed     map[string]bool
}

// clone returns a deep copy.
func (s *selector) clone() selector {
	c := *s
	c.keys = slices.Clone(s.keys)
	c.channels = slices.Clone(s.channels)
	c.cmdRules = slices.Clone(s.cmdRules)
	c.allowed = make(map[string]bool, len(s.allowed))
	for k, v := range s.allowed {
		c.allowed[k] = v
	}
	return c
}

// clone returns a deep copy.
func (u *user) clone() *user {
	c := *u
	c.passwords = slices.Clone(u.passwords)
	c.selector = u.selector.clone()
	c.selectors = make([]*selector, len(u.selectors))
	for i, s := range u.selectors {
		x := s.clone()
		c.selectors[i] = &x
	}
	return &c
}

// all returns the root selector followed by the others.
func (u *user) all() []*selector {
	return append([]*selector{&u.selector}, u.selectors...)
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
	return &user{name: name, selector: selector{allowed: map[string]bool{}}}
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
	merged, err := mergeSelectorArgs(rules)
	if err != nil {
		return "", err
	}
	for _, r := range merged {
		if err := a.applyOne(work, r); err != nil {
			return r, err
		}
	}
	a.users[name] = work
	return "", nil
}

// UnmatchedParenError is a selector "(" without its ")" in ACL SETUSER
// arguments; Redis reports it without naming a modifier.
type UnmatchedParenError struct{ Arg string }

// Error returns Redis' text.
func (e *UnmatchedParenError) Error() string {
	return "Unmatched parenthesis in acl selector starting at '" + e.Arg + "'."
}

// mergeSelectorArgs joins selector arguments split over several rules
// ("(~x", "+ping)" → "(~x +ping)") like ACLMergeSelectorArguments.
func mergeSelectorArgs(rules []string) ([]string, error) {
	out := make([]string, 0, len(rules))
	open, start := "", -1
	for i, r := range rules {
		if start < 0 && strings.HasPrefix(r, "(") && !strings.HasSuffix(r, ")") {
			open, start = r, i
			continue
		}
		if start >= 0 {
			open += " " + r
			if strings.HasSuffix(r, ")") {
				out = append(out, open)
				start = -1
			}
			continue
		}
		out = append(out, r)
	}
	if start >= 0 {
		return nil, &UnmatchedParenError{Arg: rules[start]}
	}
	return out, nil
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

// applyOne applies one rule of ACL SETUSER to u, like Redis' ACLSetUser:
// user flags (userKeywordRules) and passwords (userPrefixRules) here,
// "(...)" as a new selector, everything else to the root selector.
func (a *acl) applyOne(u *user, r string) error {
	lr := strings.ToLower(r)
	if lr == "reset" {
		for _, x := range []string{"resetpass", "resetkeys", "resetchannels", "off", "sanitize-payload", "clearselectors", "-@all"} {
			_ = a.applyOne(u, x)
		}
		return nil
	}
	if set, ok := userKeywordRules[lr]; ok {
		set(u)
		return nil
	}
	if r == "" {
		return errACLSyntax
	}
	if r[0] == '(' && len(r) >= 2 && r[len(r)-1] == ')' {
		sel, err := a.parseSelector(r[1 : len(r)-1])
		if err != nil {
			return err
		}
		u.selectors = append(u.selectors, sel)
		return nil
	}
	if set, ok := userPrefixRules[r[0]]; ok {
		return set(u, r[1:])
	}
	return a.applySelector(&u.selector, r)
}

// userKeywordRules are the ACL SETUSER rules that are one word about the
// user itself (matched case-insensitively; "reset", which applies several
// of them, is in applyOne).
var userKeywordRules = map[string]func(u *user){
	"on":  func(u *user) { u.enabled = true },
	"off": func(u *user) { u.enabled = false },
	"nopass": func(u *user) {
		u.nopass = true
		u.passwords = nil
	},
	"resetpass": func(u *user) {
		u.nopass = false
		u.passwords = nil
	},
	"sanitize-payload":      func(u *user) { u.sanitize = "sanitize-payload" },
	"skip-sanitize-payload": func(u *user) { u.sanitize = "skip-sanitize-payload" },
	"clearselectors":        func(u *user) { u.selectors = nil },
}

// userPrefixRules are the password rules, keyed by their first byte:
// >clear and <clear add and remove a password, #hash and !hash the same
// by its SHA-256 hex.
var userPrefixRules = map[byte]func(u *user, arg string) error{
	'>': func(u *user, pass string) error { return addPassword(u, hashPassword(pass)) },
	'<': func(u *user, pass string) error { return removePassword(u, hashPassword(pass)) },
	'#': func(u *user, h string) error {
		if !validHash(h) {
			return errACLBadHash
		}
		return addPassword(u, h)
	},
	'!': func(u *user, h string) error {
		if !validHash(h) {
			return errACLBadHash
		}
		return removePassword(u, h)
	},
}

// addPassword adds the hash h to u's passwords (once) and clears nopass.
func addPassword(u *user, h string) error {
	if !slices.Contains(u.passwords, h) {
		u.passwords = append(u.passwords, h)
	}
	u.nopass = false
	return nil
}

// parseSelector builds a selector from the inside of "(...)": rules split
// on single spaces (quotes are not special, empty words are skipped: what
// redis-sentinel 7.0.15 answers), applied to an empty selector (no keys,
// no channels, no commands).
func (a *acl) parseSelector(body string) (*selector, error) {
	sel := &selector{allowed: map[string]bool{}}
	for _, r := range strings.Split(body, " ") {
		if r == "" {
			continue
		}
		if err := a.applySelector(sel, r); err != nil {
			return nil, err
		}
	}
	return sel, nil
}

// applySelector applies one key, channel or command rule to a selector,
// like ACLSetSelector; anything else is a syntax error.
func (a *acl) applySelector(u *selector, r string) error {
	lr := strings.ToLower(r)
	switch lr {
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
	}
	if r == "" {
		return errACLSyntax
	}
	switch r[0] {
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
	case '+', '-':
		return a.applyCommandRule(u, r[0] == '+', strings.ToLower(r[1:]))
	}
	return errACLSyntax
}

// applyCommandRule handles +cmd, -cmd, +@cat, -@cat, +parent|sub.
func (a *acl) applyCommandRule(u *selector, allow bool, target string) error {
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
func (a *acl) setAll(u *selector, allow bool) {
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

// ACL check results, numbered like Redis' ACL_DENIED_*: when no selector
// allows a command, the highest one found is reported.
const (
	aclOK            = 0
	aclDeniedCmd     = 1
	aclDeniedKey     = 2
	aclDeniedAuth    = 3
	aclDeniedChannel = 4
)

// channelArgs returns the argument positions [from, to) that the ACL
// checks as channels, and whether they are patterns: SUBSCRIBE and
// PSUBSCRIBE every argument, PUBLISH its channel. UNSUBSCRIBE and
// PUNSUBSCRIBE are never checked, as in Redis.
func channelArgs(top string, n int) (from, to int, pattern bool) {
	switch top {
	case "subscribe":
		return 1, n, false
	case "psubscribe":
		return 1, n, true
	case "publish":
		return 1, min(2, n), false
	}
	return 0, 0, false
}

// channelOK applies ACLCheckChannelAgainstList: a channel matches a
// pattern of the list, a subscribed pattern must equal one literally.
func (s *selector) channelOK(ch string, pattern bool) bool {
	if s.allChannels {
		return true
	}
	for _, p := range s.channels {
		if pattern && p == ch || !pattern && glob.Match(p, ch, false) {
			return true
		}
	}
	return false
}

// checkCmd is ACLSelectorCheckCmd: the command (no-auth commands always
// pass), then every channel argument. It returns the result and, for a
// channel, the position of the refused argument.
func (s *selector) checkCmd(cmd *command, args [][]byte) (int, int) {
	top := cmd
	if top.parent != nil {
		top = top.parent
	}
	if !s.allowed[cmd.name] && !top.noAuth {
		return aclDeniedCmd, 0
	}
	from, to, pattern := channelArgs(top.name, len(args))
	for i := from; i < to; i++ {
		if !s.channelOK(string(args[i]), pattern) {
			return aclDeniedChannel, i
		}
	}
	return aclOK, 0
}

// checkUser is ACLCheckAllUserCommandPerm: allowed if any selector
// allows; otherwise the highest result of all selectors, with the last
// refused position among those. A missing user may run nothing.
func checkUser(u *user, cmd *command, args [][]byte) (int, int) {
	if u == nil {
		return aclDeniedCmd, 0
	}
	res, last := aclDeniedCmd, 0
	for _, s := range u.all() {
		r, idx := s.checkCmd(cmd, args)
		if r == aclOK {
			return aclOK, 0
		}
		if r > res || r == res && idx > last {
			res, last = r, idx
		}
	}
	return res, last
}

// check returns, under one lock, whether new connections are open
// (default user on and nopass) and the ACL result of user name running
// cmd with args (aclOK or aclDenied*, and the refused argument's position).
func (a *acl) check(name string, cmd *command, args [][]byte) (open bool, res, idx int) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	d := a.users["default"]
	open = d != nil && d.enabled && d.nopass
	res, idx = checkUser(a.users[name], cmd, args)
	return open, res, idx
}

// canRun reports whether user name may run command c (channels aside).
func (a *acl) canRun(name string, c *command) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	res, _ := checkUser(a.users[name], c, [][]byte{[]byte(c.name)})
	return res == aclOK
}

// subscriptionsAllowed reports whether user name may keep these
// subscriptions after an ACL change: each channel or pattern must be
// allowed by some selector (Redis' ACLKillPubsubClientsIfNeeded).
func (a *acl) subscriptionsAllowed(name string, chans, pats []string) bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	u := a.users[name]
	if u == nil {
		return false
	}
	sels := u.all()
	ok := func(ch string, pattern bool) bool {
		for _, s := range sels {
			if s.channelOK(ch, pattern) {
				return true
			}
		}
		return false
	}
	for _, ch := range chans {
		if !ok(ch, false) {
			return false
		}
	}
	for _, p := range pats {
		if !ok(p, true) {
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
	b.WriteString(" ")
	b.WriteString(u.selector.describe())
	for _, s := range u.selectors {
		b.WriteString(" (")
		b.WriteString(s.describe())
		b.WriteString(")")
	}
	return b.String()
}

// describe renders a selector like ACLDescribeSelector: keys, channels,
// commands.
func (s *selector) describe() string {
	var b strings.Builder
	if k := s.keysString(); k != "" {
		b.WriteString(k)
		b.WriteString(" ")
	}
	if s.allChannels {
		b.WriteString("&*")
	} else {
		b.WriteString("resetchannels")
		for _, c := range s.channels {
			b.WriteString(" &")
			b.WriteString(c)
		}
	}
	b.WriteString(" ")
	b.WriteString(s.commandsString())
	return b.String()
}

func (u *selector) keysString() string {
	return strings.Join(u.keys, " ")
}

func (u *selector) channelsString() string {
	if u.allChannels {
		return "&*"
	}
	parts := make([]string, len(u.channels))
	for i, c := range u.channels {
		parts[i] = "&" + c
	}
	return strings.Join(parts, " ")
}

func (u *selector) commandsString() string {
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
