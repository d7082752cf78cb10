package client

import (
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// trackedConn is a data connection handed to go-redis. It remembers the
// address generation it was opened for; once the client moves to a new
// master the connection becomes stale and refuses to write (before any byte
// leaves), so no command reaches the old node after the switch. Read errors
// invalidate the resolver's cache so the next connection re-resolves.
type trackedConn struct {
	net.Conn
	r    *resolver
	gen  uint64
	addr string

	stale   atomic.Bool
	reading atomic.Int32 // Reads in progress
	busy    atomic.Bool  // a command was written and its reply not yet read
	stream  atomic.Bool  // SUBSCRIBE/MONITOR was sent: the connection only reads now
	blocked atomic.Bool  // a blocking command (BLPOP...) awaits its reply
	cut     atomic.Bool  // closed by markStale while blocked in a read
	failed  atomic.Bool  // a read or write failed (EOF, reset, timeout)
	closeMu sync.Mutex
	closed  bool
	// staleBy is when a command in flight at the retirement must have
	// its reply (unix ns, 0: not retired while busy); see markStale.
	staleBy atomic.Int64
	// sentAt is when the last command was written (unix ns): the
	// retirement's grace counts from there (see boundInFlight).
	sentAt atomic.Int64
}

// staleReadGrace is how long after it was sent a command in flight when
// the master moved to another address may wait for its reply. A live old
// master (SENTINEL FAILOVER) answers within it, so the reply — possibly
// of a write — is not lost; a frozen one (SIGSTOP) does not, and the
// command fails then instead of at ReadTimeout, so the next one reaches
// the new master (go-redis closes such connections at the switch). A
// command sent more than staleReadGrace before the switch fails at once:
// the old master had already stopped answering (measured, SIGSTOP: the
// grace counted from the switch put our first write 100 ms after the new
// master was verified, behind go-redis's).
const staleReadGrace = 100 * time.Millisecond

// staleError is ErrStaleConnection as a net.Error, so that go-redis treats
// the connection as broken and drops it.
type staleError struct{}

func (staleError) Error() string   { return ErrStaleConnection.Error() }
func (staleError) Unwrap() error   { return ErrStaleConnection }
func (staleError) Timeout() bool   { return false }
func (staleError) Temporary() bool { return false }

var _ net.Error = staleError{}

// cutError is ErrMasterChanged as a net.Error: go-redis drops the
// connection (and a PubSub reconnects).
type cutError struct{}

func (cutError) Error() string   { return ErrMasterChanged.Error() }
func (cutError) Unwrap() error   { return ErrMasterChanged }
func (cutError) Timeout() bool   { return false }
func (cutError) Temporary() bool { return false }

// track registers c under generation gen and returns the connection to hand
// to go-redis.
func (r *resolver) track(c net.Conn, gen uint64, addr string) net.Conn {
	tc := &trackedConn{Conn: c, r: r, gen: gen, addr: addr}
	r.mu.Lock()
	r.conns[tc] = struct{}{}
	stale := gen < r.gen && r.want == roleMaster
	r.mu.Unlock()
	if stale {
		tc.markStale()
	}
	r.stats.dials.Add(1)
	if sc, ok := c.(syscall.Conn); ok {
		return trackedSysConn{trackedConn: tc, sc: sc}
	}
	return tc
}

// markStale makes the connection refuse further writes and closes the
// socket now when no command is in flight on it, or when it is blocked
// reading (PubSub, MONITOR, BLPOP...): those would otherwise keep reading
// from the old master. An ordinary in-flight command may still read its
// reply. It reports whether this call made the connection stale (false
// when it already was), so that a connection retired by two resolutions is
// counted once.
func (c *trackedConn) markStale() bool {
	first := !c.stale.Swap(true)
	switch {
	case c.stream.Load() || c.blocked.Load():
		if c.cut.CompareAndSwap(false, true) {
			c.r.stats.blockedCut.Add(1)
		}
		c.closeSocket()
	case c.reading.Load() == 0 && !c.busy.Load():
		c.closeSocket()
	}
	return first
}

// boundInFlight gives a command in flight on this retired connection
// until staleReadGrace after it was sent for its reply (called when the master moved to
// another address, not on a fence alone: a fence without a move keeps the
// node, and a long script on it must still get its reply).
func (c *trackedConn) boundInFlight() {
	if !c.stale.Load() || c.isClosed() {
		return
	}
	now := time.Now()
	by := now.Add(staleReadGrace)
	if sent := c.sentAt.Load(); sent != 0 {
		// Counted from the command's write: one that has waited
		// longer than the grace already fails now (a past
		// deadline ends the read at once).
		by = time.Unix(0, max(sent+int64(staleReadGrace), now.UnixNano()))
	}
	if c.staleBy.CompareAndSwap(0, by.UnixNano()) {
		_ = c.Conn.SetReadDeadline(by)
	}
}

func (c *trackedConn) isClosed() bool {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	return c.closed
}

// SetReadDeadline keeps the retirement's bound (see staleReadGrace):
// go-redis sets its ReadTimeout before each read.
func (c *trackedConn) SetReadDeadline(t time.Time) error {
	return c.Conn.SetReadDeadline(c.clampDeadline(t))
}

// SetDeadline is SetReadDeadline's counterpart for both directions.
func (c *trackedConn) SetDeadline(t time.Time) error {
	if by := c.staleBy.Load(); by != 0 {
		if err := c.Conn.SetWriteDeadline(t); err != nil {
			return err
		}
		return c.Conn.SetReadDeadline(c.clampDeadline(t))
	}
	return c.Conn.SetDeadline(t)
}

func (c *trackedConn) clampDeadline(t time.Time) time.Time {
	if by := c.staleBy.Load(); by != 0 && (t.IsZero() || t.After(time.Unix(0, by))) {
		return time.Unix(0, by)
	}
	return t
}

func (c *trackedConn) closeSocket() {
	c.closeMu.Lock()
	defer c.closeMu.Unlock()
	if !c.closed {
		c.closed = true
		_ = c.Conn.Close()
	}
}

// Write refuses to send anything on a stale connection. The flags are set
// before the stale check, so a concurrent markStale either makes this Write
// refuse, or sees the flags (and then cuts a blocked reader).
func (c *trackedConn) Write(b []byte) (int, error) {
	c.busy.Store(true)
	switch commandMode(b) {
	case modeStream:
		c.stream.Store(true)
	case modeBlocked:
		c.blocked.Store(true)
	}
	if c.stale.Load() {
		c.closeSocket()
		return 0, staleError{}
	}
	c.sentAt.Store(time.Now().UnixNano())
	n, err := c.Conn.Write(b)
	if err != nil {
		c.failed.Store(true)
		c.r.connFailed(c.gen, err)
	}
	return n, err
}

// Read reports connection failures to the resolver.
func (c *trackedConn) Read(b []byte) (int, error) {
	c.reading.Add(1)
	n, err := c.Conn.Read(b)
	c.reading.Add(-1)
	c.busy.Store(false)
	if n > 0 {
		c.blocked.Store(false) // the blocking command's reply arrived
	}
	if err != nil {
		c.failed.Store(true)
	}
	if err != nil && c.cut.Load() {
		return n, cutError{}
	}
	if err != nil {
		c.r.connFailed(c.gen, err)
	}
	if c.stale.Load() && err == nil {
		// A reply arrived on a stale connection: nothing else may be sent,
		// so the socket can go once this reply is consumed; Write closes it.
		return n, nil
	}
	return n, err
}

// Close closes the socket, unregisters the connection and lets the resolver
// notice a closed client (see resolver.connClosed).
func (c *trackedConn) Close() error {
	c.closeMu.Lock()
	already := c.closed
	c.closed = true
	var err error
	if !already {
		if !c.failed.Load() && !c.stale.Load() && peerClosed(c.Conn) {
			// go-redis's health check found the socket closed by
			// the server (a killed master) and discards it without
			// a read or write of ours: still a failed connection,
			// so the background work waits failGrace instead of
			// stopping (and restarting its subscriptions and
			// sentinel connections at the next dial).
			c.failed.Store(true)
		}
		err = c.Conn.Close()
	}
	c.closeMu.Unlock()
	c.r.connClosed(c)
	return err
}

// trackedSysConn is a trackedConn over a socket that exposes its file
// descriptor (plain TCP): go-redis's idle health check keeps working, and a
// socket closed by markStale fails the check so go-redis discards the
// connection before using it. TLS connections are returned as plain
// trackedConn, which go-redis does not health-check.
type trackedSysConn struct {
	*trackedConn
	sc syscall.Conn
}

// SyscallConn implements syscall.Conn. go-redis uses it only for the
// health check of a pooled connection before handing it out: a stale
// connection fails the check, so one that was busy when the master changed
// (and could not be closed then) is discarded before use instead of
// failing its next command with ErrStaleConnection.
func (c trackedSysConn) SyscallConn() (syscall.RawConn, error) {
	if c.stale.Load() {
		return nil, staleError{}
	}
	return c.sc.SyscallConn()
}

// connFailed invalidates the cache when a connection of generation gen
// breaks (not on deadline expiries, which go-redis uses for timeouts).
func (r *resolver) connFailed(gen uint64, err error) {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return
	}
	r.invalidate(gen)
}
