package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// clientHelp is CLIENT HELP of Redis 7.0.15.
var clientHelp = []string{
	"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CACHING (YES|NO)",
	"    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
	"GETREDIR",
	"    Return the client ID we are redirecting to when tracking is enabled.",
	"GETNAME",
	"    Return the name of the current connection.",
	"ID",
	"    Return the ID of the current connection.",
	"INFO",
	"    Return information about the current client connection.",
	"KILL <ip:port>",
	"    Kill connection made from <ip:port>.",
	"KILL <option> <value> [<option> <value> [...]]",
	"    Kill connections. Options are:",
	"    * ADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made from the specified address",
	"    * LADDR (<ip:port>|<unixsocket>:0)",
	"      Kill connections made to specified local address",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Kill connections by type.",
	"    * USER <username>",
	"      Kill connections authenticated by <username>.",
	"    * SKIPME (YES|NO)",
	"      Skip killing current connection (default: yes).",
	"LIST [options ...]",
	"    Return information about client connections. Options:",
	"    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
	"      Return clients of specified type.",
	"UNPAUSE",
	"    Stop the current client pause, resuming traffic.",
	"PAUSE <timeout> [WRITE|ALL]",
	"    Suspend all, or just write, clients for <timeout> milliseconds.",
	"REPLY (ON|OFF|SKIP)",
	"    Control the replies sent to the current connection.",
	"SETNAME <name>",
	"    Assign the name <name> to the current connection.",
	"UNBLOCK <clientid> [TIMEOUT|ERROR]",
	"    Unblock the specified blocked client.",
	"TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
	"         [OPTIN] [OPTOUT] [NOLOOP]",
	"    Control server assisted client side caching.",
	"TRACKINGINFO",
	"    Report tracking status for the current connection.",
	"NO-EVICT (ON|OFF)",
	"    Protect current client connection from eviction.",
	"HELP",
	"    Prints this help.",
}

// helpReply renders help lines as an array of status replies.
func helpReply(lines []string) []byte {
	b := resp.AppendArrayLen(nil, len(lines))
	for _, l := range lines {
		b = resp.AppendSimple(b, l)
	}
	return b
}

// validClientName accepts what Redis' validateClientName accepts: bytes
// '!' to '~' only (the empty name clears).
func validClientName(n string) bool {
	for i := 0; i < len(n); i++ {
		if n[i] < '!' || n[i] > '~' {
			return false
		}
	}
	return true
}

func cmdClient(c *client, cmd *command, args [][]byte) {
	dispatchSubcommand(c, cmd, args, clientSubcommands)
}

// dispatchSubcommand runs the handler of cmd's subcommand ("client|kill"
// → subs["kill"]); the command table has checked the name and arity, so
// the error is for a handler missing from subs.
func dispatchSubcommand(c *client, cmd *command, args [][]byte, subs map[string]func(*client, [][]byte)) {
	_, sub, _ := strings.Cut(cmd.name, "|")
	if h, ok := subs[sub]; ok {
		h(c, args)
		return
	}
	top, _, _ := strings.Cut(cmd.name, "|")
	c.addError("ERR unknown subcommand '" + string(args[1]) + "'. Try " + strings.ToUpper(top) + " HELP.")
}

// clientSubcommands handles each CLIENT subcommand (arity is checked by
// the command table before).
var clientSubcommands = map[string]func(c *client, args [][]byte){
	"id":      func(c *client, _ [][]byte) { c.addReply(resp.AppendInt(nil, c.id)) },
	"getname": clientGetname,
	"setname": clientSetname,
	"setinfo": clientSetinfo,
	"info":    func(c *client, _ [][]byte) { c.addValue(resp.Verbatim("txt", c.describe()+"\n")) },
	"list":    clientListCmd,
	"kill":    clientKillCmd,
	"help":    func(c *client, _ [][]byte) { c.addReply(helpReply(clientHelp)) },
	"reply":   clientReply,
	"pause":   clientPause,
	"unpause": replyOK,
	"no-evict": func(c *client, args [][]byte) {
		onOff(c, args[2], func(bool) {})
	},
	"unblock": func(c *client, args [][]byte) {
		if _, ok := parseInt(string(args[2])); !ok {
			c.addError("ERR value is not an integer or out of range")
			return
		}
		c.addReply(resp.AppendInt(nil, 0))
	},
	"tracking": func(c *client, args [][]byte) {
		onOff(c, args[2], func(on bool) { c.tracking = on })
	},
	"trackinginfo": func(c *client, _ [][]byte) {
		c.addValue(resp.Map(
			resp.Bulk("flags"), resp.Set(resp.Bulk("off")),
			resp.Bulk("redirect"), resp.Integer(-1),
			resp.Bulk("prefixes"), resp.Array(),
		))
	},
	"getredir": func(c *client, _ [][]byte) { c.addReply(resp.AppendInt(nil, -1)) },
	"caching":  clientCaching,
}

func replyOK(c *client, _ [][]byte) { c.addReply([]byte("+OK\r\n")) }

// onOff accepts "on" or "off" (any case), calls set and replies +OK, or
// replies a syntax error.
func onOff(c *client, arg []byte, set func(on bool)) {
	switch strings.ToLower(string(arg)) {
	case "on", "off":
		set(strings.EqualFold(string(arg), "on"))
		replyOK(c, nil)
	default:
		c.addError("ERR syntax error")
	}
}

func clientGetname(c *client, _ [][]byte) {
	c.mu.Lock()
	name := c.name
	c.mu.Unlock()
	if name == "" {
		c.addReply(resp.AppendNullBulk(nil, c.protocol()))
	} else {
		c.addReply(resp.AppendBulkString(nil, name))
	}
}

func clientSetname(c *client, args [][]byte) {
	n := string(args[2])
	if !validClientName(n) {
		c.addError("ERR Client names cannot contain spaces, newlines or special characters.")
		return
	}
	c.mu.Lock()
	c.name = n
	c.mu.Unlock()
	replyOK(c, nil)
}

func clientReply(c *client, args [][]byte) {
	switch strings.ToLower(string(args[2])) {
	case "on":
		c.reply = replyOn
		replyOK(c, nil)
	case "off":
		c.reply = replyOff
	case "skip":
		if c.reply == replyOn || c.reply == replySkipThis {
			c.reply = replySkipNext
		}
	default:
		c.addError("ERR syntax error")
	}
}

func clientPause(c *client, args [][]byte) {
	if _, ok := parseInt(string(args[2])); !ok {
		c.addError("ERR timeout is not an integer or out of range")
		return
	}
	if len(args) > 4 || (len(args) == 4 && !strings.EqualFold(string(args[3]), "write") && !strings.EqualFold(string(args[3]), "all")) {
		c.addError("ERR syntax error")
		return
	}
	replyOK(c, nil)
}

// clientCaching: tracking is accepted but without OPTIN/OPTOUT (no keys
// to track).
func clientCaching(c *client, args [][]byte) {
	switch {
	case !c.tracking:
		c.addError("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
	case strings.EqualFold(string(args[2]), "yes"):
		c.addError("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
	case strings.EqualFold(string(args[2]), "no"):
		c.addError("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
	default:
		c.addError("ERR syntax error")
	}
}

// describe renders one CLIENT LIST line (Redis 7.0 field layout, no
// trailing newline).
func (c *client) describe() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	flags := "N"
	if len(c.channels)+len(c.patterns) > 0 {
		flags = "P"
	}
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=%d name=%s age=%d idle=%d flags=%s db=0 sub=%d psub=%d ssub=0 multi=-1 watch=0 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=%d rbp=0 obl=0 oll=%d omem=%d tot-mem=%d events=r cmd=%s user=%s redir=-1 resp=%d lib-name=%s lib-ver=%s",
		c.id, c.addr, c.laddr, c.fd, c.name,
		int64(now.Sub(c.created)/time.Second), int64(now.Sub(c.lastActive)/time.Second),
		flags, len(c.channels), len(c.patterns), 16384, len(c.q.blocks), c.q.used(), 16384+c.q.used(),
		c.lastCmd, c.user, c.proto, c.libName, c.libVer)
}

// clientType returns "pubsub" or "normal".
func (c *client) clientType() string {
	if c.subscribed() {
		return "pubsub"
	}
	return "normal"
}

// clientListCmd: CLIENT LIST [TYPE type] [ID id ...].
func clientListCmd(c *client, args [][]byte) {
	var typ string
	var ids map[int64]bool
	switch {
	case len(args) == 2:
	case len(args) == 4 && strings.EqualFold(string(args[2]), "type"):
		typ = strings.ToLower(string(args[3]))
		if !validClientType(typ) {
			c.addError("ERR Unknown client type '" + string(args[3]) + "'")
			return
		}
		typ = normalType(typ)
	case len(args) > 3 && strings.EqualFold(string(args[2]), "id"):
		ids = map[int64]bool{}
		for _, a := range args[3:] {
			id, ok := parseInt(string(a))
			if !ok || id <= 0 {
				c.addError("ERR Invalid client ID")
				return
			}
			ids[id] = true
		}
	default:
		c.addError("ERR syntax error")
		return
	}
	var b strings.Builder
	for _, o := range c.s.clientList() {
		if typ != "" && o.clientType() != typ {
			continue
		}
		if ids != nil && !ids[o.id] {
			continue
		}
		b.WriteString(o.describe())
		b.WriteByte('\n')
	}
	c.addValue(resp.Verbatim("txt", b.String()))
}

func validClientType(t string) bool {
	switch t {
	case "normal", "master", "replica", "slave", "pubsub":
		return true
	}
	return false
}

func normalType(t string) string {
	if t == "slave" {
		return "replica"
	}
	return t
}

// killFilter is the CLIENT KILL filter set.
type killFilter struct {
	addr, laddr, user, typ string
	id                     int64
	maxAge                 int64
	skipMe                 bool
}

func (f *killFilter) match(self, o *client) bool {
	if f.skipMe && o == self {
		return false
	}
	// A client killed already is gone for Redis (freed at once, or
	// before the next command runs when it was flagged CLOSE_ASAP);
	// here it stays listed until its goroutine has released it, and a
	// second CLIENT KILL must not count it again.
	o.mu.Lock()
	killed := o.killed
	o.mu.Unlock()
	if killed {
		return false
	}
	if f.addr != "" && o.addr != f.addr {
		return false
	}
	if f.laddr != "" && o.laddr != f.laddr {
		return false
	}
	if f.id != 0 && o.id != f.id {
		return false
	}
	if f.typ != "" && o.clientType() != f.typ {
		return false
	}
	if f.user != "" {
		o.mu.Lock()
		u := o.user
		o.mu.Unlock()
		if u != f.user {
			return false
		}
	}
	if f.maxAge != 0 && int64(time.Since(o.created)/time.Second) < f.maxAge {
		return false
	}
	return true
}

// killFilterOptions parses each <option> <value> of CLIENT KILL's new
// form into the filter; a setter returns the error reply, or "".
var killFilterOptions = map[string]func(c *client, f *killFilter, val string) string{
	"id": func(_ *client, f *killFilter, val string) string {
		id, ok := parseInt(val)
		if !ok || id <= 0 {
			return "ERR client-id should be greater than 0"
		}
		f.id = id
		return ""
	},
	"type": func(_ *client, f *killFilter, val string) string {
		t := strings.ToLower(val)
		if !validClientType(t) {
			return "ERR Unknown client type '" + val + "'"
		}
		f.typ = normalType(t)
		return ""
	},
	"addr":  func(_ *client, f *killFilter, val string) string { f.addr = val; return "" },
	"laddr": func(_ *client, f *killFilter, val string) string { f.laddr = val; return "" },
	"user": func(c *client, f *killFilter, val string) string {
		c.s.acl.mu.RLock()
		_, ok := c.s.acl.users[val]
		c.s.acl.mu.RUnlock()
		if !ok {
			return "ERR No such user '" + val + "'"
		}
		f.user = val
		return ""
	},
	"skipme": func(_ *client, f *killFilter, val string) string {
		switch strings.ToLower(val) {
		case "yes":
			f.skipMe = true
		case "no":
			f.skipMe = false
		default:
			return "ERR syntax error"
		}
		return ""
	},
	// maxage is a Redis 7.4 addition; 7.0.15 answers "syntax error".
	"maxage": func(_ *client, f *killFilter, val string) string {
		n, ok := parseInt(val)
		if !ok || n < 0 {
			return "ERR syntax error"
		}
		f.maxAge = n
		return ""
	},
}

// clientKillCmd: CLIENT KILL ip:port | CLIENT KILL <filter> <value> ...
func clientKillCmd(c *client, args [][]byte) {
	f := killFilter{skipMe: true}
	oldForm := len(args) == 3
	if oldForm {
		f.addr = string(args[2])
		f.skipMe = false
	} else if len(args)%2 != 0 {
		c.addError("ERR syntax error")
		return
	} else {
		for i := 2; i < len(args); i += 2 {
			set, ok := killFilterOptions[strings.ToLower(string(args[i]))]
			if !ok {
				c.addError("ERR syntax error")
				return
			}
			if msg := set(c, &f, string(args[i+1])); msg != "" {
				c.addError(msg)
				return
			}
		}
	}
	killed := 0
	for _, o := range c.s.clientList() {
		if !f.match(c, o) {
			continue
		}
		killed++
		if o == c {
			c.closeNext = true // reply first, then close, like CLIENT_CLOSE_AFTER_REPLY
			continue
		}
		o.kill()
	}
	if oldForm {
		if killed == 0 {
			c.addError("ERR No such client")
			return
		}
		c.addReply([]byte("+OK\r\n"))
		return
	}
	c.addReply(resp.AppendInt(nil, int64(killed)))
}
