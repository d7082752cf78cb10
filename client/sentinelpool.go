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
// kept open. Reconciliation (every 10 s by default) keeps the connections
// to the first SentinelQuorum sentinels warm, so a failover or an outage
// opens no new sentinel connection (go-redis keeps its sentinel
// connection too); a client whose reconciliation is off closes them after
// a minute without queries.
const sentinelIdleTimeout = time.Minute

// pooledConn is an authenticated sentinel query connection.
type pooledConn struct {
	*respConn
	lastUsed time.Time
}

// sentinelPool keeps one query connection per sentinel, so that sentinel
// queries reuse a connection (one TCP and TLS handshake, one AUTH) instead
// of dialling each time. Queries to the same sentinel take turns on it
// (each bounded by SentinelTimeout) rather than opening a second one: a
// client never holds more than one query connection per sentinel.
type sentinelPool struct {
	mu      sync.Mutex
	entries map[string]*poolEntry
	epoch   uint64 // bumped by closeAll: a connection of an older epoch is closed on release
	// ctx ends with the epoch (closeAll cancels it): exchanges in
	// progress (a dial, a read drained in the background) are cut at
	// once instead of lingering up to drainTimeout after the client went
	// idle or was closed.
	ctx    context.Context
	cancel context.CancelFunc
}

// poolEntry is the connection to one sentinel; mu is held for a whole
// exchange.
type poolEntry struct {
	mu    sync.Mutex
	conn  *pooledConn
	p     *sentinelPool
	epoch uint64          // pool epoch when acquired
	ctx   context.Context // the pool's ctx when acquired
}

// acquire returns the entry of addr, locked for one exchange.
func (p *sentinelPool) acquire(addr string) *poolEntry {
	p.mu.Lock()
	if p.entries == nil {
		p.entries = map[string]*poolEntry{}
	}
	e := p.entries[addr]
	if e == nil {
		e = &poolEntry{p: p}
		p.entries[addr] = e
	}
	p.mu.Unlock()
	e.mu.Lock()
	p.mu.Lock()
	e.epoch = p.epoch
	if p.ctx == nil {
		p.ctx, p.cancel = context.WithCancel(context.Background())
	}
	e.ctx = p.ctx
	p.mu.Unlock()
	return e
}

// release ends an exchange: c (nil when it failed) stays as the
// connection for the next one.
func (e *poolEntry) release(c *pooledConn) {
	e.p.mu.Lock()
	stale := e.epoch != e.p.epoch
	e.p.mu.Unlock()
	if c != nil && stale {
		c.Close() // closeAll ran during the exchange
		c = nil
	}
	if c != nil {
		c.lastUsed = time.Now()
	}
	e.conn = c
	e.mu.Unlock()
}

func (p *sentinelPool) snapshot() []*poolEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*poolEntry, 0, len(p.entries))
	for _, e := range p.entries {
		out = append(out, e)
	}
	return out
}

// reap closes connections unused for sentinelIdleTimeout (entries in use
// are skipped).
func (p *sentinelPool) reap(now time.Time) {
	for _, e := range p.snapshot() {
		if !e.mu.TryLock() {
			continue
		}
		if e.conn != nil && now.Sub(e.conn.lastUsed) > sentinelIdleTimeout {
			e.conn.Close()
			e.conn = nil
		}
		e.mu.Unlock()
	}
}

// closeAll closes every idle connection and cuts the exchanges in
// progress (their connection is closed, a dial is cancelled); it does not
// wait for them.
func (p *sentinelPool) closeAll() {
	p.mu.Lock()
	p.epoch++
	if p.cancel != nil {
		p.cancel() // cuts the exchanges in progress
		p.ctx, p.cancel = nil, nil
	}
	p.mu.Unlock()
	for _, e := range p.snapshot() {
		if !e.mu.TryLock() {
			continue // in use: release closes it
		}
		if e.conn != nil {
			e.conn.Close()
			e.conn = nil
		}
		e.mu.Unlock()
	}
}

// dropIdle closes the query connection to addr unless it is in use (a
// RESP3 subscription to addr now carries the queries).
func (p *sentinelPool) dropIdle(addr string) {
	p.mu.Lock()
	e := p.entries[addr]
	p.mu.Unlock()
	if e == nil || !e.mu.TryLock() {
		return
	}
	if e.conn != nil {
		e.conn.Close()
		e.conn = nil
	}
	e.mu.Unlock()
}

// take removes the idle query connection to addr from the pool and
// returns it (nil when there is none, or it is in use): a subscription to
// addr is then made on it instead of a new connection. The first
// resolution opens query connections to the first sentinels, and the
// subscriptions that follow reuse them, so a client starts with one
// connection per sentinel.
func (p *sentinelPool) take(addr string) *respConn {
	p.mu.Lock()
	e := p.entries[addr]
	p.mu.Unlock()
	if e == nil || !e.mu.TryLock() {
		return nil
	}
	defer e.mu.Unlock()
	c := e.conn
	e.conn = nil
	if c == nil {
		return nil
	}
	return c.respConn
}

// has reports whether a query connection to addr is open or in use.
func (p *sentinelPool) has(addr string) bool {
	p.mu.Lock()
	e := p.entries[addr]
	p.mu.Unlock()
	if e == nil {
		return false
	}
	if !e.mu.TryLock() {
		return true // in use
	}
	defer e.mu.Unlock()
	return e.conn != nil
}

// count returns the number of open connections (tests).
func (p *sentinelPool) count() int {
	n := 0
	for _, e := range p.snapshot() {
		e.mu.Lock()
		if e.conn != nil {
			n++
		}
		e.mu.Unlock()
	}
	return n
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

// handshakeOnConnect sends the handshake hs alone on a fresh query
// connection and then runs OnConnect on it (see sentinelOnConnect).
func (r *resolver) handshakeOnConnect(ctx context.Context, rc *respConn, hs [][]string, deadline time.Time) error {
	cut := context.AfterFunc(ctx, func() { rc.Close() }) // closeAll, as for the exchange
	defer cut()
	if len(hs) > 0 {
		rs, err := rc.do(deadline, hs...)
		r.stats.sentinelCommands.Add(uint64(len(hs)))
		if err != nil {
			return err
		}
		if err := r.checkHandshake(rs); err != nil {
			return err
		}
	}
	return r.sentinelOnConnect(ctx, rc.Conn, false, deadline)
}

// drainTimeout bounds an exchange with a sentinel once the caller has
// given up (after SentinelTimeout): the reply is still read, so that the
// connection stays usable, instead of closing it and dialling again, which
// under load (a fleet starting or failing over at once) turns a slow
// sentinel into a connection storm.
const drainTimeout = 5 * time.Second

// exchange is the outcome of one sentinelDo round trip.
type exchange struct {
	rs  []reply
	err error
}

// sentinelDo runs cmds in one round trip over the RESP3 subscription to
// sentinel addr when there is a usable one (see subConn; one being made
// is waited for), else on the
// pooled connection to sentinel addr (dialled and authenticated in the same round trip when
// there is none). The caller waits at most SentinelTimeout (or its
// context's deadline); the exchange itself may go on for drainTimeout in
// the background and keeps the connection when it completes. A pooled
// connection that turns out to be closed by the sentinel is replaced once
// by a fresh one.
func (r *resolver) sentinelDo(ctx context.Context, addr string, cmds ...[]string) ([]reply, error) {
	if rs, ok, err := r.subDo(ctx, addr, cmds); ok {
		return rs, err
	}
	wait := time.NewTimer(time.Until(r.queryDeadline(ctx)))
	defer wait.Stop()
	r.mu.Lock()
	pending := r.subWait[addr]
	r.mu.Unlock()
	if pending != nil && !r.spool.has(addr) {
		// A subscription to addr is being made (on the query
		// connection it took, or a fresh one): wait for it rather
		// than dial a query connection that it would close once up
		// (measured: 1000 clients starting at one core and 12 busy
		// loops dialled 1.5 such connections each, while their
		// verifications, resolutions and reconciliations met
		// subscriptions still in their handshake). Bounded as the
		// query; a patient query (no usable master: first
		// resolution, fence, outage) waits SentinelTimeout at most
		// and then dials, so that a subscription stuck in its
		// handshake cannot hold a failover's resolution for the
		// whole DialTimeout. A subscription that fails or is not
		// RESP3 leaves the query to the pooled connection.
		var patience <-chan time.Time
		if ctx.Value(patientKey{}) != nil {
			pt := time.NewTimer(r.opt.SentinelTimeout)
			defer pt.Stop()
			patience = pt.C
		}
		select {
		case <-pending:
		case <-patience:
		case <-wait.C:
			return nil, errSentinelTimeout
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if rs, ok, err := r.subDo(ctx, addr, cmds); ok {
			return rs, err
		}
	}
	done := make(chan exchange, 1)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		rs, err := r.sentinelExchange(addr, cmds)
		done <- exchange{rs, err}
	}()
	start := time.Now()
	select {
	case x := <-done:
		if x.err == nil {
			r.noteReply(time.Since(start))
		}
		return x.rs, x.err
	case <-wait.C:
		return nil, errSentinelTimeout
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// errSentinelTimeout is a sentinel that did not answer within
// SentinelTimeout (it is a net.Error timeout for isTimeout).
var errSentinelTimeout error = timeoutError{}

type timeoutError struct{}

func (timeoutError) Error() string   { return "no answer within SentinelTimeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// sentinelExchange is the round trip of sentinelDo, bounded by
// drainTimeout (whoever waits for it).
func (r *resolver) sentinelExchange(addr string, cmds [][]string) ([]reply, error) {
	e := r.spool.acquire(addr)
	deadline := time.Now().Add(max(drainTimeout, r.opt.SentinelTimeout))
	for try := 0; ; try++ {
		pc := e.conn
		reused := pc != nil
		send := cmds
		var hs [][]string
		if pc == nil {
			c, err := dialWith(e.ctx, r.sentinelDialer(), r.sentinelTLS(), addr, deadline)
			r.stats.sentinelDials.Add(1)
			if err != nil {
				e.release(nil)
				return nil, fmt.Errorf("dial: %w", err)
			}
			pc = &pooledConn{respConn: newRespConn(c)}
			hs = r.sentinelHandshake()
			send = append(append([][]string(nil), hs...), cmds...)
			if r.opt.OnConnect != nil {
				// OnConnect runs between the handshake and the first
				// query (go-redis's order): one more round trip.
				if err := r.handshakeOnConnect(e.ctx, pc.respConn, hs, deadline); err != nil {
					pc.Close()
					e.release(nil)
					return nil, err
				}
				hs, send = nil, cmds
			}
		}
		// closeAll (idle stop, Close) cuts the exchange by closing its
		// connection (closing cannot race with the deadline do sets).
		cut := context.AfterFunc(e.ctx, func() { pc.Close() })
		rs, err := pc.do(deadline, send...)
		cut()
		r.stats.sentinelCommands.Add(uint64(len(send)))
		if err != nil {
			pc.Close()
			e.conn = nil
			if reused && try == 0 && !isTimeout(err) {
				continue // closed by the sentinel while idle
			}
			e.release(nil)
			return nil, err
		}
		if herr := r.checkHandshake(rs); herr != nil {
			pc.Close()
			e.release(nil)
			return nil, herr
		}
		if r.resp3Sub(addr) {
			// A RESP3 subscription to addr came up meanwhile: it
			// carries the next queries, keep one connection per
			// sentinel.
			pc.Close()
			pc = nil
		}
		e.release(pc)
		return rs[len(hs):], nil
	}
}

// ErrNotSentinel is recorded (a DiscoveryError attempt) for an address
// that answers but is not a Redis Sentinel, e.g. a plain redis-server given
// in SentinelAddrs by mistake. It is the DiscoveryError's Kind when no
// sentinel named a master and every address that failed is not a sentinel;
// when other addresses failed otherwise the Kind is ErrNoSentinelReachable
// (errors.Is finds ErrNotSentinel among the attempts either way).
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

// notSentinelErr is ErrNotSentinel with the server's reply, cut before the
// arguments it echoes (the master name is in the DiscoveryError).
func notSentinelErr(rp reply) error {
	msg, _, _ := strings.Cut(rp.str, ",")
	return fmt.Errorf("%w (%s)", ErrNotSentinel, msg)
}
