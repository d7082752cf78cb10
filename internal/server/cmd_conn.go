package server

import (
	"strings"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// Version is the Redis version gosentinel reports.
const Version = "7.0.15"

// cmdPing: +PONG or the argument; in RESP2 subscribed mode, a
// ["pong", arg-or-""] array.
func cmdPing(c *client, _ *command, args [][]byte) {
	if len(args) > 2 {
		c.addError("ERR wrong number of arguments for 'ping' command")
		return
	}
	if c.protocol() == resp.RESP2 && c.subscribed() {
		b := resp.AppendArrayLen(nil, 2)
		b = resp.AppendBulkString(b, "pong")
		if len(args) == 2 {
			b = resp.AppendBulk(b, args[1])
		} else {
			b = resp.AppendBulkString(b, "")
		}
		c.addReply(b)
		return
	}
	if len(args) == 2 {
		c.addReply(resp.AppendBulk(nil, args[1]))
		return
	}
	c.addReply([]byte("+PONG\r\n"))
}

// cmdHello: HELLO [protover [AUTH user pass] [SETNAME name]].
func cmdHello(c *client, _ *command, args [][]byte) {
	ver := 0
	if len(args) >= 2 {
		v, ok := parseInt(string(args[1]))
		if !ok {
			c.addError("ERR Protocol version is not an integer or out of range")
			return
		}
		if v < 2 || v > 3 {
			c.addError("NOPROTO unsupported protocol version")
			return
		}
		ver = int(v)
	}
	var user, pass, name *string
	for j := 2; j < len(args); j++ {
		more := len(args) - 1 - j
		opt := strings.ToLower(string(args[j]))
		switch {
		case opt == "auth" && more >= 2:
			u, p := string(args[j+1]), string(args[j+2])
			user, pass = &u, &p
			j += 2
		case opt == "setname" && more >= 1:
			n := string(args[j+1])
			if !validClientName(n) {
				c.addError("ERR Client names cannot contain spaces, newlines or special characters.")
				return
			}
			name = &n
			j++
		default:
			c.addError("ERR Syntax error in HELLO option '" + string(args[j]) + "'")
			return
		}
	}
	if user != nil {
		if !c.s.acl.authenticate(*user, *pass) {
			c.s.aclLogAuthFailure(c, string(args[0]), *user)
			c.addError("WRONGPASS invalid username-password pair or user is disabled.")
			return
		}
		c.setAuthenticated(*user)
	}
	if c.authRequired() {
		c.addError("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	c.mu.Lock()
	if name != nil {
		c.name = *name
	}
	if ver != 0 {
		c.proto = ver
	}
	proto := c.proto
	c.mu.Unlock()
	c.addValue(resp.Map(
		resp.Bulk("server"), resp.Bulk("redis"),
		resp.Bulk("version"), resp.Bulk(Version),
		resp.Bulk("proto"), resp.Integer(int64(proto)),
		resp.Bulk("id"), resp.Integer(c.id),
		resp.Bulk("mode"), resp.Bulk("sentinel"),
		resp.Bulk("modules"), resp.Array(),
	))
}

// setAuthenticated records a successful AUTH and lifts the
// unauthenticated input limits.
func (c *client) setAuthenticated(user string) {
	c.mu.Lock()
	c.authenticated = true
	c.user = user
	c.mu.Unlock()
	c.rd.SetUnauthenticated(false)
}

// cmdAuth: AUTH [user] pass.
func cmdAuth(c *client, _ *command, args [][]byte) {
	if len(args) > 3 {
		c.addError("ERR syntax error")
		return
	}
	user := "default"
	pass := string(args[1])
	if len(args) == 2 {
		if c.s.acl.defaultNoPass() {
			c.addError("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
			return
		}
	} else {
		user, pass = string(args[1]), string(args[2])
	}
	if !c.s.acl.authenticate(user, pass) {
		c.s.aclLogAuthFailure(c, string(args[0]), user)
		c.addError("WRONGPASS invalid username-password pair or user is disabled.")
		return
	}
	c.setAuthenticated(user)
	c.addReply([]byte("+OK\r\n"))
}

// cmdShutdown: SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. Sentinel never
// saves; the backend stops the process and the connection is closed.
func cmdShutdown(c *client, _ *command, args [][]byte) {
	for _, a := range args[1:] {
		switch strings.ToLower(string(a)) {
		case "nosave", "save", "now", "force":
		case "abort":
			c.addError("ERR No shutdown in progress.")
			return
		default:
			c.addError("ERR syntax error")
			return
		}
	}
	c.s.cfg.Logf("server: user requested shutdown")
	c.closeNext = true
	c.s.backend.Shutdown()
}
