package server

import "github.com/gosentinel/gosentinel/internal/resp"

// Pipelined forwarded commands. A client that pipelines SENTINEL, ROLE or
// PUBLISH commands has them submitted to a PipelinedBackend one after the
// other without waiting for each reply; the replies are written in
// request order. Any other command first waits for the replies still
// outstanding (drainFutures), so it sees the connection and the server
// as if every earlier command had been answered, and so does every
// reply path (addReply, addValue, flush). Subscribed connections keep
// the one-at-a-time path, so pushed messages and replies keep their
// order.

// maxFutures bounds the replies one connection may have outstanding;
// the reader waits for them all once it is reached.
const maxFutures = 512

// forwarded are the top-level commands whose handler calls forward.
var forwarded = map[string]bool{"sentinel": true, "role": true, "publish": true}

// replyFuture is the reply of a pipelined command.
type replyFuture struct {
	wait  func() resp.Value
	proto int  // the connection's protocol when the command ran
	quiet bool // CLIENT REPLY OFF / SKIP applied to this command
}

// forward sends a SENTINEL, ROLE or PUBLISH command to the backend: as a
// future when the backend pipelines, the connection is not subscribed and
// the command is part of a pipeline (replies outstanding or more input
// buffered), otherwise waiting for the reply (a lone command keeps the
// backend's synchronous path and its caches).
func (c *client) forward(cmd *command, args [][]byte) {
	pb, ok := c.s.backend.(PipelinedBackend)
	if ok && (len(c.futures) > 0 || c.rd.Buffered() > 0) {
		c.mu.Lock()
		proto := c.proto
		subscribed := len(c.channels)+len(c.patterns) > 0
		c.mu.Unlock()
		if !subscribed {
			wait := pb.CommandAsync(c.ctx, c.info(), backendArgs(cmd, args))
			quiet := c.reply == replyOff || c.reply == replySkipThis
			c.futures = append(c.futures, replyFuture{wait: wait, proto: proto, quiet: quiet})
			return
		}
	}
	c.addValue(c.s.backend.Command(c.ctx, c.info(), backendArgs(cmd, args)))
}

// drainFutures waits for the outstanding replies and buffers them in
// order.
func (c *client) drainFutures() {
	if len(c.futures) == 0 {
		return
	}
	fs := c.futures
	c.futures = nil
	for i, f := range fs {
		v := f.wait()
		fs[i] = replyFuture{}
		if f.quiet {
			continue
		}
		if v.Kind == resp.KindError {
			c.s.stats.errorReplies.Add(1)
		}
		c.pending = resp.AppendValue(c.pending, v, f.proto)
	}
	c.futures = fs[:0]
}

// hasOutput reports whether replies are buffered or outstanding.
func (c *client) hasOutput() bool { return len(c.pending) > 0 || len(c.futures) > 0 }
