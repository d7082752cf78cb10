package server

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// replyMode is the CLIENT REPLY state.
type replyMode uint8

const (
	replyOn replyMode = iota
	replyOff
	replySkipNext
	replySkipThis
)

// client is one connection. The reader goroutine executes commands and
// renders replies into pending; flush writes them itself when nothing is
// queued, or moves them to the output queue q. Publish appends to q
// directly, never blocking. Whoever holds the write token (writing) is the
// only one writing to conn: the reader for its own replies, or a writer
// goroutine that runs only while output is queued (an idle connection has
// one goroutine, like Redis has no per-client thread).
type client struct {
	s       *Server
	id      int64
	conn    net.Conn
	rc      syscall.RawConn // plain TCP/Unix socket: the raw read path (rawread.go); nil otherwise
	rw      rawWriter       // writeConn's callback and its arguments (rawwrite.go)
	fd      int
	addr    string
	laddr   string
	created time.Time
	rd      *resp.Reader
	ctx     context.Context
	cancel  context.CancelFunc

	// Owned by the reader goroutine.
	pending []byte
	lower   []byte
	reply   replyMode
	// futures are the replies of pipelined forwarded commands not
	// written yet, in request order (pipeline.go).
	futures   []replyFuture
	closeNext bool // close after the replies of this command are flushed
	served    int  // commands executed (park.go: parkAfter)
	tracking  bool // CLIENT TRACKING on (accepted, nothing to track)
	// Read deadlines and parking (rawread.go, park_linux.go).
	parkable     bool        // on the raw read path: parks after parkDelay idle
	registered   bool        // the socket is in the server's park epoll set
	deadline     time.Time   // the read deadline set on conn (zero: none)
	parkDeadline bool        // deadline is the park deadline, not the idle timeout
	idleDeadline time.Time   // when the idle timeout closes the client (zero: never)
	parkTimer    *time.Timer // while parked with an idle timeout (under s.parker.mu)

	mu            sync.Mutex
	cond          *sync.Cond
	q             outQueue
	closing       bool // no more output is accepted; queued output is drained, then conn closed
	writing       bool // the write token: a goroutine is writing to conn
	killed        bool
	released      bool      // conn closed and client unregistered
	softSince     time.Time // when the output first reached the soft limit
	proto         int
	name          string
	libName       string // CLIENT SETINFO lib-name (Redis 7.2)
	libVer        string // CLIENT SETINFO lib-ver
	user          string
	authenticated bool
	lastCmd       string
	lastActive    time.Time
	channels      []string // subscription order
	patterns      []string
}

func newClient(s *Server, conn net.Conn) *client {
	now := time.Now()
	c := &client{
		s:          s,
		id:         s.nextID.Add(1),
		conn:       conn,
		rc:         rawConnOf(conn),
		fd:         connFD(conn),
		addr:       conn.RemoteAddr().String(),
		laddr:      conn.LocalAddr().String(),
		created:    now,
		lastActive: now,
		proto:      resp.RESP2,
		user:       "default",
		lastCmd:    "NULL",
	}
	c.cond = sync.NewCond(&c.mu)
	c.parkable = parkSupported && c.rc != nil
	c.ctx, c.cancel = context.WithCancel(s.ctx)
	c.authenticated = s.acl.defaultOpen()
	c.rd = resp.NewReaderSize(&deadlineReader{c: c}, s.cfg.Limits, readBufSize)
	c.rd.SetUnauthenticated(c.authRequired())
	return c
}

// connFD returns the socket's file descriptor for CLIENT LIST (-1 if
// unknown).
func connFD(conn net.Conn) int {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return -1
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	_ = rc.Control(func(f uintptr) { fd = int(f) })
	return fd
}

// deadlineReader applies the idle timeout to every read, except for
// subscribed clients, and counts input bytes.
type deadlineReader struct{ c *client }

// Read reads from the connection with the idle deadline applied.
//
// Before it may block on the socket it flushes the replies still pending:
// the read loop only flushes when the reader's buffer is empty, and bytes
// that do not complete a command (the stray "\n" of a `PING\r\n\n`
// readiness probe, half of a pipelined command) would otherwise hold the
// replies back until more input arrives. Redis writes replies before
// every sleep whatever is left in the query buffer.
func (d *deadlineReader) Read(p []byte) (int, error) {
	c := d.c
	if c.hasOutput() && !c.flush() {
		return 0, net.ErrClosed
	}
	c.armReadDeadline(false)
	n, err := c.conn.Read(p)
	if n > 0 {
		c.noteRead(n)
	}
	return n, err
}

// authRequired mirrors Redis' authRequired(): the default user is not
// "on nopass" and this connection has not authenticated.
func (c *client) authRequired() bool {
	c.mu.Lock()
	authed := c.authenticated
	c.mu.Unlock()
	return !authed && !c.s.acl.defaultOpen()
}

// readLoop reads and executes commands until the connection ends or
// parks (park_linux.go).
func (c *client) readLoop() {
	defer c.s.wg.Done()
	c.s.readers.Add(1)
	parked := c.serve()
	c.s.readers.Add(-1)
	if parked {
		return // parked: another goroutine takes over when input comes
	}
	c.finish()
}

// resume is a parked client's new goroutine.
func (c *client) resume() {
	// The park deadline has passed; only the idle timeout stays (an
	// expired one ends the connection at the first wait).
	c.deadline, c.parkDeadline = c.idleDeadline, false
	_ = c.conn.SetReadDeadline(c.deadline)
	c.readLoop()
}

// serve reads and executes commands until the connection ends (false) or
// parks (true).
func (c *client) serve() (parked bool) {
	for {
		if c.rc != nil {
			switch c.serveRaw(c.rc) { // rawread.go
			case rawDone:
				return false
			case rawParked:
				return true
			case rawAgain:
				continue
			}
		}
		args, err := c.rd.ReadCommand()
		if err != nil {
			if errors.Is(err, resp.ErrProtocol) {
				c.addReply(resp.AppendError(nil, "ERR "+err.Error()))
				c.flush()
			}
			return
		}
		c.s.stats.commands.Add(1)
		c.exec(args)
		if c.closeNext {
			c.flush()
			return
		}
		if c.rd.Buffered() == 0 || len(c.pending) >= 64<<10 || len(c.futures) >= maxFutures {
			if !c.flush() {
				return
			}
		}
	}
}

// finish stops deliveries and lets queued output drain before the
// connection is closed. The client stays registered until the last write
// ends, so that Server.Close can still kill a connection whose peer
// stopped reading.
func (c *client) finish() {
	c.s.ps.unsubscribeAll(c)
	c.cancel()
	c.mu.Lock()
	c.closing = true
	c.cond.Broadcast()
	rel := c.settleLocked()
	c.mu.Unlock()
	if rel {
		c.release()
	}
}

// settleLocked starts a writer for queued output when nobody holds the
// write token. It reports whether a closing connection has nothing left
// to write: the caller then calls release after unlocking c.mu.
func (c *client) settleLocked() (release bool) {
	if c.writing {
		return false
	}
	if c.q.size > 0 && !c.killed {
		c.writing = true
		c.s.wg.Add(1)
		go c.writeLoop()
		return false
	}
	if c.closing && !c.released {
		c.released = true
		c.q.reset()
		return true
	}
	return false
}

// release closes the connection and unregisters the client (once, after
// settleLocked said so). Its subscriptions go first: the writer can
// release a killed client before its reader has run finish, and a client
// gone from CLIENT LIST must not be counted by PUBLISH any more.
func (c *client) release() {
	c.closeConn()
	c.s.ps.unsubscribeAll(c)
	c.s.removeClient(c)
}

// addReply buffers encoded reply bytes, honouring CLIENT REPLY.
func (c *client) addReply(b []byte) {
	c.drainFutures()
	if c.reply == replyOff || c.reply == replySkipThis {
		return
	}
	if len(b) > 0 && b[0] == '-' {
		c.s.stats.errorReplies.Add(1)
	}
	c.pending = append(c.pending, b...)
}

// addValue buffers v rendered in the client's protocol.
func (c *client) addValue(v resp.Value) {
	c.drainFutures()
	if c.reply == replyOff || c.reply == replySkipThis {
		return
	}
	if v.Kind == resp.KindError {
		c.s.stats.errorReplies.Add(1)
	}
	c.pending = resp.AppendValue(c.pending, v, c.protocol())
}

// addError buffers an error reply; msg includes its code ("ERR ...").
func (c *client) addError(msg string) {
	c.addReply(resp.AppendError(nil, msg))
}

// protocol returns the RESP version of the connection.
func (c *client) protocol() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.proto
}

// flush sends pending replies. Fast path: when nothing is queued and no
// write is in progress, the reader writes them itself (one syscall, no
// goroutine hand-off); the socket write may block only this connection.
// Otherwise they are queued behind the pending output for a writer, and
// the reader waits while too much output is unsent (a client that
// pipelines without reading). Output over the client's
// client-output-buffer-limit closes the connection. It returns false when
// the connection is closing.
func (c *client) flush() bool {
	c.drainFutures()
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		c.pending = c.pending[:0]
		return false
	}
	if len(c.pending) > 0 && c.overLimit(c.q.used()+len(c.pending)) {
		c.mu.Unlock()
		c.resetPending()
		c.limitKill()
		return false
	}
	if len(c.pending) > 0 && c.q.size == 0 && !c.writing && !c.closeNext {
		c.writing = true
		c.mu.Unlock()
		c.setWriteDeadline()
		n, err := c.writeConn(c.pending) // rawwrite.go
		c.s.stats.netOut.Add(int64(n))
		c.resetPending()
		c.mu.Lock()
		c.writing = false
		c.cond.Broadcast()
		rel := false
		if err == nil {
			rel = c.settleLocked() // output queued by Publish meanwhile
		}
		c.mu.Unlock()
		if rel {
			c.release()
		}
		if err != nil {
			c.kill()
			return false
		}
		return true
	}
	if len(c.pending) > 0 {
		c.q.append(c.pending)
	}
	c.resetPending()
	if c.closeNext {
		c.closing = true
		c.cond.Broadcast()
	}
	rel := c.settleLocked()
	for !rel && c.q.size > maxPendingReplies && !c.closing {
		c.cond.Wait()
	}
	ok := !c.closing
	c.mu.Unlock()
	if rel {
		c.release()
	}
	return ok
}

// setWriteDeadline bounds a write to a client that stopped reading by the
// idle timeout, when one is configured (Redis closes such clients when
// their lastinteraction is older than the timeout).
func (c *client) setWriteDeadline() {
	if t := c.s.cfg.Timeout; t > 0 {
		_ = c.conn.SetWriteDeadline(time.Now().Add(t))
	}
}

// resetPending empties the reply buffer, dropping it if it grew large.
func (c *client) resetPending() {
	if cap(c.pending) > 1<<20 {
		c.pending = nil
	} else {
		c.pending = c.pending[:0]
	}
}

// deliver appends a pub/sub message without blocking; a client whose
// output goes over its client-output-buffer-limit is disconnected.
func (c *client) deliver(msg []byte) {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	c.q.append(msg)
	over := c.overLimit(c.q.used())
	rel := false
	if !over {
		rel = c.settleLocked()
	}
	c.mu.Unlock()
	if rel {
		c.release()
	}
	if over {
		c.limitKill()
	}
}

// limitKill closes a client that went over its output limit, with Redis'
// log line. The connection is reset rather than closed: the bytes still
// in the kernel's send buffer would only reach a peer that is not reading
// anyway, and an orphaned socket would hold them (up to tcp_wmem) until
// the kernel gives up on it.
func (c *client) limitKill() {
	c.s.cfg.Logf("Client %s scheduled to be closed ASAP for overcoming of output buffer limits.", c.describe())
	conn := c.conn
	if tc, ok := conn.(*tls.Conn); ok {
		conn = tc.NetConn()
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	c.kill()
}

// kill closes the connection now, dropping unsent output.
func (c *client) kill() {
	c.mu.Lock()
	c.closing = true
	c.killed = true
	c.q.reset()
	c.cond.Broadcast()
	c.mu.Unlock()
	c.closeConn()
	c.s.unpark(c) // a parked client's new goroutine finishes it
}

// closeConn closes the socket. On the raw read path (rawread.go) the
// reader goroutine runs commands inside RawConn.Read's callback, and
// net.Conn.Close waits until no call is using the socket, that callback
// included; the callback can itself be the caller (flush → release) or
// wait for the caller (Server.Close holds s.mu, the backend's loop
// delivering pub/sub). So there the wait is left to a goroutine of its
// own: the socket is marked closed and evicted from the poller as usual
// (pending and later reads and writes fail at once), and the descriptor
// is released when the callback returns.
func (c *client) closeConn() {
	if c.rc == nil {
		_ = c.conn.Close()
		return
	}
	go func() { _ = c.conn.Close() }()
}

// writeLoop holds the write token and sends the queued output until the
// queue is empty, then gives the token back (and closes the connection if
// it is closing).
func (c *client) writeLoop() {
	defer c.s.wg.Done()
	held := 0 // bytes of the last batch, in flight until written
	for {
		c.mu.Lock()
		c.q.done(held)
		if c.q.size == 0 || c.killed {
			c.writing = false
			c.cond.Broadcast()
			rel := c.settleLocked()
			c.mu.Unlock()
			if rel {
				c.release()
			}
			return
		}
		var bs []*outBlock
		bs, held = c.q.takeBatch()
		c.cond.Broadcast() // a reader waiting for room may go on
		c.mu.Unlock()

		c.setWriteDeadline()
		n, err := writeBlocks(c.conn, bs)
		c.s.stats.netOut.Add(n)
		releaseBlocks(bs)
		if err != nil {
			c.kill()
		}
	}
}

// info returns the ClientInfo given to the backend.
func (c *client) info() *ClientInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &ClientInfo{ID: c.id, Addr: c.addr, LocalAddr: c.laddr, Name: c.name, User: c.user, Proto: c.proto}
}

// subscribed reports whether the client has any subscription.
func (c *client) subscribed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.channels)+len(c.patterns) > 0
}

func sortClients(cs []*client) {
	slices.SortFunc(cs, func(a, b *client) int { return int(a.id - b.id) })
}
