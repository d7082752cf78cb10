package server

import (
	"slices"
	"sync"

	"github.com/gosentinel/gosentinel/internal/glob"
	"github.com/gosentinel/gosentinel/internal/resp"
)

// pubsub indexes subscriptions for Publish.
type pubsub struct {
	mu       sync.RWMutex
	channels map[string]map[*client]struct{}
	patterns map[string]map[*client]struct{}
}

func (p *pubsub) init() {
	p.channels = map[string]map[*client]struct{}{}
	p.patterns = map[string]map[*client]struct{}{}
}

// counts returns the number of channels and patterns with subscribers.
func (p *pubsub) counts() (int, int) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return len(p.channels), len(p.patterns)
}

// add subscribes c to name; it reports whether c was not yet subscribed.
func (p *pubsub) add(idx map[string]map[*client]struct{}, name string, c *client) bool {
	set := idx[name]
	if set == nil {
		set = map[*client]struct{}{}
		idx[name] = set
	}
	if _, ok := set[c]; ok {
		return false
	}
	set[c] = struct{}{}
	return true
}

// remove unsubscribes c from name; it reports whether c was subscribed.
func (p *pubsub) remove(idx map[string]map[*client]struct{}, name string, c *client) bool {
	set := idx[name]
	if _, ok := set[c]; !ok {
		return false
	}
	delete(set, c)
	if len(set) == 0 {
		delete(idx, name)
	}
	return true
}

// unsubscribeAll drops every subscription of a disconnecting client.
func (p *pubsub) unsubscribeAll(c *client) {
	c.mu.Lock()
	chans, pats := c.channels, c.patterns
	c.channels, c.patterns = nil, nil
	c.mu.Unlock()
	p.mu.Lock()
	for _, ch := range chans {
		p.remove(p.channels, ch, c)
	}
	for _, pat := range pats {
		p.remove(p.patterns, pat, c)
	}
	p.mu.Unlock()
}

// MaxEventLen is the longest event message published: sentinelEvent
// formats events into a LOG_MAX_LEN (1024) byte buffer, so redis-sentinel
// publishes at most 1023 bytes and cuts longer ones (a long master name).
const MaxEventLen = 1023

// Publish delivers message to the clients subscribed to channel (directly
// or through a pattern) and returns how many deliveries were made. Like
// redis-sentinel, a message longer than MaxEventLen bytes is cut to that
// length. It never blocks on a slow client: output is queued, and a
// subscriber whose queue goes over the pubsub client-output-buffer-limit
// is disconnected.
func (s *Server) Publish(channel, message string) int {
	if len(message) > MaxEventLen {
		message = message[:MaxEventLen]
	}
	// The targets and the encoded messages live in a pooled scratch:
	// deliver copies a message into the client's queue, so nothing of it
	// outlives the call. An event storm (SENTINEL RESET * of hundreds of
	// masters) publishes hundreds of ~1 KiB messages per step, and
	// encoding each into a new slice was one of the larger sources of
	// garbage in that load.
	ps := pubScratchPool.Get().(*pubScratch)
	s.ps.mu.RLock()
	for c := range s.ps.channels[channel] {
		ps.targets = append(ps.targets, pubTarget{c: c})
	}
	for pat, set := range s.ps.patterns {
		if glob.Match(pat, channel, false) {
			for c := range set {
				ps.targets = append(ps.targets, pubTarget{c: c, pattern: pat})
			}
		}
	}
	s.ps.mu.RUnlock()
	n := len(ps.targets)
	for _, t := range ps.targets {
		t.c.deliver(ps.encode(t.c.protocol(), t.pattern, channel, message))
	}
	ps.reset()
	return n
}

// pubTarget is one delivery of a Publish: a client, and the pattern it
// matched ("" for a channel subscription).
type pubTarget struct {
	c       *client
	pattern string
}

// pubScratch is the working memory of one Publish.
type pubScratch struct {
	targets []pubTarget
	encs    []pubEncoding
	buf     []byte
}

// pubEncoding is the span of pubScratch.buf that holds the message
// encoded for one protocol and pattern.
type pubEncoding struct {
	proto      int
	pattern    string
	start, end int
}

var pubScratchPool = sync.Pool{New: func() any { return new(pubScratch) }}

// encode returns the message or pmessage push for proto and pattern,
// encoding it on first use; the slice is valid until the next encode.
func (ps *pubScratch) encode(proto int, pattern, channel, message string) []byte {
	for _, e := range ps.encs {
		if e.proto == proto && e.pattern == pattern {
			return ps.buf[e.start:e.end]
		}
	}
	start := len(ps.buf)
	b := ps.buf
	if pattern == "" {
		b = resp.AppendPushLen(b, 3, proto)
		b = resp.AppendBulkString(b, "message")
	} else {
		b = resp.AppendPushLen(b, 4, proto)
		b = resp.AppendBulkString(b, "pmessage")
		b = resp.AppendBulkString(b, pattern)
	}
	b = resp.AppendBulkString(b, channel)
	b = resp.AppendBulkString(b, message)
	ps.buf = b
	ps.encs = append(ps.encs, pubEncoding{proto: proto, pattern: pattern, start: start, end: len(b)})
	return b[start:]
}

// reset empties ps and returns it to the pool unless it grew large (many
// subscribers or patterns: left to the collector).
func (ps *pubScratch) reset() {
	clear(ps.targets) // no client kept alive by the pool
	clear(ps.encs)
	ps.targets, ps.encs, ps.buf = ps.targets[:0], ps.encs[:0], ps.buf[:0]
	if cap(ps.targets) > 1024 || cap(ps.encs) > 64 || cap(ps.buf) > 64<<10 {
		return
	}
	pubScratchPool.Put(ps)
}

// subscribeReply renders "subscribe"/"psubscribe"/"unsubscribe"... replies.
func subscribeReply(proto int, kind string, name *string, count int) []byte {
	b := resp.AppendPushLen(nil, 3, proto)
	b = resp.AppendBulkString(b, kind)
	if name == nil {
		b = resp.AppendNullBulk(b, proto)
	} else {
		b = resp.AppendBulkString(b, *name)
	}
	return resp.AppendInt(b, int64(count))
}

// cmdSubscribe handles SUBSCRIBE and PSUBSCRIBE.
func cmdSubscribe(c *client, args [][]byte, pattern bool) {
	kind := "subscribe"
	if pattern {
		kind = "psubscribe"
	}
	proto := c.protocol()
	for _, a := range args[1:] {
		name := string(a)
		c.s.ps.mu.Lock()
		idx := c.s.ps.channels
		if pattern {
			idx = c.s.ps.patterns
		}
		added := c.s.ps.add(idx, name, c)
		c.s.ps.mu.Unlock()
		c.mu.Lock()
		if added {
			if pattern {
				c.patterns = append(c.patterns, name)
			} else {
				c.channels = append(c.channels, name)
			}
		}
		count := len(c.channels) + len(c.patterns)
		c.mu.Unlock()
		c.addReply(subscribeReply(proto, kind, &name, count))
	}
}

// cmdUnsubscribe handles UNSUBSCRIBE and PUNSUBSCRIBE; with no argument
// it drops every subscription of that kind (or replies with a null name
// when there is none, like Redis).
func cmdUnsubscribe(c *client, args [][]byte, pattern bool) {
	kind := "unsubscribe"
	if pattern {
		kind = "punsubscribe"
	}
	proto := c.protocol()
	var names []string
	if len(args) > 1 {
		for _, a := range args[1:] {
			names = append(names, string(a))
		}
	} else {
		c.mu.Lock()
		if pattern {
			names = slices.Clone(c.patterns)
		} else {
			names = slices.Clone(c.channels)
		}
		c.mu.Unlock()
		if len(names) == 0 {
			c.mu.Lock()
			count := len(c.channels) + len(c.patterns)
			c.mu.Unlock()
			c.addReply(subscribeReply(proto, kind, nil, count))
			return
		}
	}
	for _, name := range names {
		c.s.ps.mu.Lock()
		idx := c.s.ps.channels
		if pattern {
			idx = c.s.ps.patterns
		}
		c.s.ps.remove(idx, name, c)
		c.s.ps.mu.Unlock()
		c.mu.Lock()
		if pattern {
			c.patterns = slices.DeleteFunc(c.patterns, func(x string) bool { return x == name })
		} else {
			c.channels = slices.DeleteFunc(c.channels, func(x string) bool { return x == name })
		}
		count := len(c.channels) + len(c.patterns)
		c.mu.Unlock()
		c.addReply(subscribeReply(proto, kind, &name, count))
	}
}
