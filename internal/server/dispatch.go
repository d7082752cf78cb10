package server

import (
	"strings"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// handler runs one command; cmd is the resolved (sub)command.
type handler func(c *client, cmd *command, args [][]byte)

// handlers maps top-level command names to their implementation.
var handlers map[string]handler

func init() {
	handlers = map[string]handler{
		"ping":         cmdPing,
		"hello":        cmdHello,
		"auth":         cmdAuth,
		"client":       cmdClient,
		"command":      cmdCommand,
		"acl":          cmdACL,
		"info":         cmdInfo,
		"shutdown":     cmdShutdown,
		"sentinel":     cmdForward,
		"role":         cmdForward,
		"publish":      cmdPublish,
		"subscribe":    func(c *client, _ *command, a [][]byte) { cmdSubscribe(c, a, false) },
		"psubscribe":   func(c *client, _ *command, a [][]byte) { cmdSubscribe(c, a, true) },
		"unsubscribe":  func(c *client, _ *command, a [][]byte) { cmdUnsubscribe(c, a, false) },
		"punsubscribe": func(c *client, _ *command, a [][]byte) { cmdUnsubscribe(c, a, true) },
	}
}

// allowedInPubsub lists the commands a RESP2 client may send while
// subscribed (ssubscribe, quit and reset do not exist on a 7.0 sentinel).
var allowedInPubsub = map[string]bool{
	"ping": true, "subscribe": true, "psubscribe": true, "unsubscribe": true, "punsubscribe": true,
}

// lowerInto writes the ASCII lower-case form of b into dst.
func lowerInto(dst, b []byte) []byte {
	dst = dst[:0]
	for _, ch := range b {
		if ch >= 'A' && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		dst = append(dst, ch)
	}
	return dst
}

// resolve finds the (sub)command for args, or returns the error reply that
// Redis' processCommand gives (unknown command, unknown subcommand, arity).
func (s *Server) resolve(args [][]byte, scratch []byte) (*command, string, []byte) {
	scratch = lowerInto(scratch, args[0])
	cmd := s.cmds[string(scratch)]
	if cmd == nil {
		return nil, unknownCommand(args), scratch
	}
	if cmd.subs != nil && len(args) >= 2 {
		scratch = lowerInto(scratch, args[1])
		sub := cmd.subs[string(scratch)]
		if sub == nil {
			return nil, "ERR unknown subcommand '" + trunc(string(args[1]), 128) + "'. Try " +
				strings.ToUpper(string(args[0])) + " HELP.", scratch
		}
		cmd = sub
	}
	if (cmd.arity > 0 && len(args) != cmd.arity) || len(args) < -cmd.arity {
		return nil, "ERR wrong number of arguments for '" + cmd.name + "' command", scratch
	}
	return cmd, "", scratch
}

// unknownCommand formats Redis 7's unknown command error: each argument
// quoted and followed by a space, stopping once 128 bytes are written.
func unknownCommand(args [][]byte) string {
	var b strings.Builder
	for i := 1; i < len(args) && b.Len() < 128; i++ {
		n := 128 - b.Len()
		b.WriteByte('\'')
		b.WriteString(trunc(string(args[i]), n))
		b.WriteString("' ")
	}
	return "ERR unknown command '" + trunc(string(args[0]), 128) + "', with args beginning with: " + b.String()
}

func trunc(s string, n int) string {
	if n < 0 {
		n = 0
	}
	if len(s) > n {
		return s[:n]
	}
	return s
}

// exec runs one command with the checks of processCommand, in order:
// lookup, arity, authentication, ACL, pub/sub context.
func (c *client) exec(args [][]byte) {
	c.served++
	if c.reply == replySkipNext {
		c.reply = replySkipThis
	}
	defer func() {
		if c.reply == replySkipThis {
			c.reply = replyOn
		}
	}()
	cmd, errMsg, scratch := c.s.resolve(args, c.lower)
	c.lower = scratch
	if cmd == nil {
		c.addError(errMsg)
		return
	}
	top := cmd
	if top.parent != nil {
		top = top.parent
	}
	if !forwarded[top.name] {
		// A local command runs after the pipelined ones have been
		// answered (pipeline.go), as if each had been waited for.
		c.drainFutures()
	}
	// One snapshot of the connection state per command.
	c.mu.Lock()
	authed, user, proto := c.authenticated, c.user, c.proto
	subscribed := len(c.channels)+len(c.patterns) > 0
	c.lastCmd = cmd.name
	c.mu.Unlock()
	open, res, idx := c.s.acl.check(user, cmd, args)
	// Redis decides per read whether the small unauthenticated input caps
	// apply; refresh them as the ACL may have changed.
	c.rd.SetUnauthenticated(!authed && !open)
	if !top.noAuth && !authed && !open {
		c.addError("NOAUTH Authentication required.")
		return
	}
	switch res {
	case aclDeniedCmd:
		c.s.aclLogDenied(c, "command", cmd.name, user)
		c.addError("NOPERM this user has no permissions to run the '" + cmd.name + "' command")
		return
	case aclDeniedChannel:
		c.s.aclLogDenied(c, "channel", string(args[idx]), user)
		c.addError("NOPERM this user has no permissions to access one of the channels used as arguments")
		return
	}
	if subscribed && proto == resp.RESP2 && !allowedInPubsub[top.name] {
		c.addError("ERR Can't execute '" + cmd.name + "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
		return
	}
	handlers[top.name](c, cmd, args)
}

// copyArgs returns args copied out of the reader's reused buffer.
func copyArgs(args [][]byte) [][]byte {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	buf := make([]byte, 0, n)
	out := make([][]byte, len(args))
	for i, a := range args {
		start := len(buf)
		buf = append(buf, a...)
		out[i] = buf[start:len(buf):len(buf)]
	}
	return out
}

// backendArgs copies args for the backend. A command called by its
// rename-command name reaches the backend under its original name, so the
// backend never needs to know the renames.
func backendArgs(cmd *command, args [][]byte) [][]byte {
	out := copyArgs(args)
	top, _, _ := strings.Cut(cmd.name, "|")
	if !strings.EqualFold(string(out[0]), top) {
		out[0] = []byte(strings.ToUpper(top))
	}
	return out
}

// cmdForward sends SENTINEL and ROLE to the backend.
func cmdForward(c *client, cmd *command, args [][]byte) {
	if c.s.addrs != nil && len(c.futures) == 0 && len(args) == 3 && cmd.name == "sentinel|get-master-addr-by-name" {
		if v, ok := c.s.addrs.CachedMasterAddr(args[2]); ok {
			c.addValue(v)
			return
		}
	}
	c.forward(cmd, args)
}

// cmdPublish forwards PUBLISH (hello messages from other sentinels).
func cmdPublish(c *client, cmd *command, args [][]byte) {
	c.forward(cmd, args)
}
