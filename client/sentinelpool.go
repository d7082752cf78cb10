package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// sentinelIdleTimeout is how long an unused sentinel query connection is
// kept open. Queries in bursts (an outage, polling while the event path is
// down) reuse one connection per sentinel; an idle client with live
// subscriptions keeps only those open (one connection per sentinel).
const sentinelIdleTimeout = 3 * time.Second

// pooledConn is an authenticated sentinel query connection.
type pooledConn struct {
	*respConn
	lastUsed time.Time
}

// sentinelPool keeps at most one idle query connection per sentinel, so
// that sentinel queries reuse a connection (one TCP and TLS handshake, one
// AUTH) instead of dialling each time.
type sentinelPool struct {
	mu   sync.Mutex
	idle map[string]*pooledConn
}

// get takes the idle connection to addr, if any.
func (p *sentinelPool) get(addr string) *pooledConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.idle[addr]
	delete(p.idle, addr)
	return c
}

// put keeps c as the idle connection to addr (closing it when there is
// one already).
func (p *sentinelPool) put(addr string, c *pooledConn) {
	c.lastUsed = time.Now()
	p.mu.Lock()
	if p.idle == nil {
		p.idle = map[string]*pooledConn{}
	}
	old := p.idle[addr]
	if old == nil {
		p.idle[addr] = c
	}
	p.mu.Unlock()
	if old != nil {
		c.Close()
	}
}

// reap closes connections unused for sentinelIdleTimeout.
func (p *sentinelPool) reap(now time.Time) {
	p.mu.Lock()
	var drop []*pooledConn
	for a, c := range p.idle {
		if now.Sub(c.lastUsed) > sentinelIdleTimeout {
			drop = append(drop, c)
			delete(p.idle, a)
		}
	}
	p.mu.Unlock()
	for _, c := range drop {
		c.Close()
	}
}

// closeAll closes every idle connection.
func (p *sentinelPool) closeAll() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, c := range idle {
		c.Close()
	}
}

// count returns the number of idle connections (tests).
func (p *sentinelPool) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

// sentinelTLS is the TLS configuration for sentinel connections:
// SentinelTLSConfig, else TLSConfig (as go-redis, which uses one for
// both) unless SentinelNoTLS.
func (r *resolver) sentinelTLS() *tls.Config {
	switch {
	case r.opt.SentinelTLSConfig != nil:
		return r.opt.SentinelTLSConfig
	case r.opt.SentinelNoTLS:
		return nil
	}
	return r.opt.TLSConfig
}

// sentinelDialer is SentinelDialer, else Dialer (as go-redis).
func (r *resolver) sentinelDialer() DialFunc {
	if r.opt.SentinelDialer != nil {
		return r.opt.SentinelDialer
	}
	return r.opt.Dialer
}

// sentinelHandshake is what a fresh sentinel connection sends before its
// first command: AUTH with the sentinel credentials, CLIENT SETNAME with
// ClientName.
func (r *resolver) sentinelHandshake() [][]string {
	var hs [][]string
	if auth := authCmd(r.opt.SentinelUsername, r.opt.SentinelPassword); auth != nil {
		hs = append(hs, auth)
	}
	if r.opt.ClientName != "" {
		hs = append(hs, []string{"CLIENT", "SETNAME", r.opt.ClientName})
	}
	return hs
}

// checkHandshake interprets the replies to sentinelHandshake: a refused
// AUTH is ErrAuth; a refused CLIENT SETNAME is ignored (as go-redis does
// not fail a sentinel connection on it either).
func (r *resolver) checkHandshake(rs []reply) error {
	if authCmd(r.opt.SentinelUsername, r.opt.SentinelPassword) != nil && len(rs) > 0 {
		if err := rs[0].err(); err != nil {
			return fmt.Errorf("%w: %w", ErrAuth, err)
		}
	}
	return nil
}

// sentinelDo runs cmds in one round trip on a pooled connection to
// sentinel addr (dialled and authenticated in the same round trip when
// there is none), within SentinelTimeout. A pooled connection that turns
// out to be closed by the sentinel is replaced once by a fresh one.
func (r *resolver) sentinelDo(ctx context.Context, addr string, cmds ...[]string) ([]reply, error) {
	deadline := deadlineFor(ctx, r.opt.SentinelTimeout)
	for try := 0; ; try++ {
		pc := r.spool.get(addr)
		reused := pc != nil
		send := cmds
		var hs [][]string
		if pc == nil {
			c, err := dialWith(ctx, r.sentinelDialer(), r.sentinelTLS(), addr, deadline)
			r.stats.sentinelDials.Add(1)
			if err != nil {
				return nil, fmt.Errorf("dial: %w", err)
			}
			pc = &pooledConn{respConn: newRespConn(c)}
			hs = r.sentinelHandshake()
			send = append(append([][]string(nil), hs...), cmds...)
		}
		stop := context.AfterFunc(ctx, func() { pc.Close() })
		rs, err := pc.do(deadline, send...)
		r.stats.sentinelCommands.Add(uint64(len(send)))
		if !stop() {
			pc.Close()
			if err == nil {
				err = ctx.Err()
			}
			return nil, err
		}
		if err != nil {
			pc.Close()
			if reused && try == 0 && ctx.Err() == nil && !isTimeout(err) {
				continue // closed by the sentinel while idle
			}
			return nil, err
		}
		if herr := r.checkHandshake(rs); herr != nil {
			pc.Close()
			return nil, herr
		}
		rs = rs[len(hs):]
		r.spool.put(addr, pc)
		return rs, nil
	}
}

// ErrNotSentinel is returned (inside a DiscoveryError, with Kind
// ErrNoSentinelReachable when no real sentinel answered) for an address
// that answers but is not a Redis Sentinel, e.g. a plain redis-server given
// in SentinelAddrs by mistake.
var ErrNotSentinel = errors.New("client: address is not a sentinel")

// notSentinelReply reports whether an error reply says that the server
// does not know the SENTINEL command (a plain redis-server or another
// RESP server).
func notSentinelReply(rp reply) bool {
	if rp.typ != '-' {
		return false
	}
	s := strings.ToLower(rp.str)
	return strings.Contains(s, "unknown command") && strings.Contains(s, "sentinel")
}
