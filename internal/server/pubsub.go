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
	type target struct {
		c       *client
		pattern string
	}
	var targets []target
	s.ps.mu.RLock()
	for c := range s.ps.channels[channel] {
		targets = append(targets, target{c: c})
	}
	for pat, set := range s.ps.patterns {
		if glob.Match(pat, channel, false) {
			for c := range set {
				targets = append(targets, target{c: c, pattern: pat})
			}
		}
	}
	s.ps.mu.RUnlock()
	var enc2, enc3, penc2, penc3 map[string][]byte
	for _, t := range targets {
		proto := t.c.protocol()
		var msg []byte
		if t.pattern == "" {
			msg = encodeMessage(&enc2, &enc3, proto, "", channel, message)
		} else {
			msg = encodeMessage(&penc2, &penc3, proto, t.pattern, channel, message)
		}
		t.c.deliver(msg)
	}
	return len(targets)
}

// encodeMessage renders (and caches per protocol and pattern) a message or
// pmessage push.
func encodeMessage(cache2, cache3 *map[string][]byte, proto int, pattern, channel, message string) []byte {
	cache := cache2
	if proto == resp.RESP3 {
		cache = cache3
	}
	if *cache == nil {
		*cache = map[string][]byte{}
	}
	if b, ok := (*cache)[pattern]; ok {
		return b
	}
	var b []byte
	if pattern == "" {
		b = resp.AppendPushLen(nil, 3, proto)
		b = resp.AppendBulkString(b, "message")
	} else {
		b = resp.AppendPushLen(nil, 4, proto)
		b = resp.AppendBulkString(b, "pmessage")
		b = resp.AppendBulkString(b, pattern)
	}
	b = resp.AppendBulkString(b, channel)
	b = resp.AppendBulkString(b, message)
	(*cache)[pattern] = b
	return b
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
