package link

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// readBufSize is the initial read buffer of a link. Replies to PING, ROLE
// and hello messages are a few hundred bytes; the reader reads a larger
// bulk (INFO) straight into its own allocation and grows the buffer only
// for a longer header line, so 1 KiB per link is enough (16 KiB per link
// was 64 % of the heap at 500 masters; FINDINGS P2).
const readBufSize = 1 << 10

// pendingCmd is a command written (or queued) and waiting for its reply.
type pendingCmd struct {
	tag   Tag
	flags SendFlag
}

// conn is one outbound connection: a goroutine that dials and then reads,
// plus a writer goroutine started when output is queued and gone once the
// queue is drained (an idle link has one goroutine, not two: at hundreds
// of masters, stacks are a good part of the memory).
type conn struct {
	m    *Manager
	id   ConnID
	addr string
	kind Kind

	killed   chan struct{} // closed by kill: the caller closed us
	killOnce sync.Once
	writers  sync.WaitGroup // the writer goroutine, while one runs

	mu      sync.Mutex
	nc      net.Conn
	out     []byte
	spare   []byte          // the writer's previous buffer, reused for out
	writing bool            // a writer goroutine is running
	held    bool            // Deferred output waits for Manager.Flush; c is in m.held
	raw     syscall.RawConn // for the inline write of release; nil: TLS, non-unix

	cancelDial context.CancelFunc // while dial runs: aborts it

	// The inline write's state, used only by the holder of writing.
	wbuf    []byte
	wn      int
	werr    error
	wfunc   func(uintptr) bool // c.rawWrite, bound once
	pending []pendingCmd
	dead    bool  // no more sends accepted
	err     error // first failure
}

func newConn(m *Manager, id ConnID, addr string, kind Kind) *conn {
	return &conn{
		m:      m,
		id:     id,
		addr:   addr,
		kind:   kind,
		killed: make(chan struct{}),
	}
}

// send queues one command; it never blocks on the network. ok is false
// when the connection no longer accepts commands; hold is true when the
// caller must list c for Manager.Flush (a Deferred command is queued and
// c was not listed yet).
func (c *conn) send(tag Tag, args []string, flags SendFlag) (ok, hold bool) {
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		return false, false
	}
	if len(c.pending) >= c.m.cfg.MaxPending {
		// The tag is reported as pending in Closed, like the others.
		c.pending = append(c.pending, pendingCmd{tag: tag, flags: flags})
		c.mu.Unlock()
		c.fail(fmt.Errorf("%w: %d commands waiting on %s", ErrQueueFull, c.m.cfg.MaxPending, c.addr))
		return true, false
	}
	c.out = appendCommand(c.out, args)
	c.pending = append(c.pending, pendingCmd{tag: tag, flags: flags})
	if flags&Deferred != 0 {
		hold = !c.held
		c.held = true
		c.mu.Unlock()
		return true, hold
	}
	nc, start := c.startWriterLocked()
	c.mu.Unlock()
	if start {
		go c.writeOut(nc)
	}
	return true, false
}

// release writes the output held for Manager.Flush: inline when the
// socket takes it all without waiting (no goroutine), else with a writer.
func (c *conn) release() {
	c.mu.Lock()
	c.held = false
	nc, start := c.startWriterLocked()
	if !start || c.raw == nil {
		c.mu.Unlock()
		if start {
			go c.writeOut(nc)
		}
		return
	}
	buf := c.out
	c.out = c.spare[:0]
	c.spare = nil
	c.mu.Unlock()
	c.writeInline(nc, buf)
}

// reuseLocked takes back buf, the buffer just written (c.mu held). When
// nothing was queued meanwhile it becomes the output buffer again and the
// other one is dropped, so an idle link keeps one output buffer, not two
// (both grew to its largest burst: a PING, an INFO and a hello PUBLISH);
// the runtime's sends and flushes then reuse that one buffer without
// allocating. Else it is the spare for the next swap.
func (c *conn) reuseLocked(buf []byte) {
	if len(c.out) == 0 {
		c.out, c.spare = buf[:0], nil
		return
	}
	c.spare = buf
}

// startWriterLocked reports whether the caller must start a writer for
// the queued output (connected, output queued, none running); it then
// counts it as running. c.mu is held.
func (c *conn) startWriterLocked() (net.Conn, bool) {
	if c.nc == nil || c.dead || c.writing || len(c.out) == 0 {
		return nil, false
	}
	c.writing = true
	c.writers.Add(1)
	return c.nc, true
}

// kill is the caller's Close: silent from now on.
func (c *conn) kill() {
	c.killOnce.Do(func() { close(c.killed) })
	c.fail(errClosedByCaller)
}

var errClosedByCaller = errors.New("link: closed by caller")

// fail records the first error, refuses further sends and closes the
// socket, which unblocks the reader and the writer.
func (c *conn) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.dead = true
	nc := c.nc
	if c.cancelDial != nil {
		c.cancelDial() // a dial or TLS handshake under way
	}
	c.mu.Unlock()
	if nc != nil {
		_ = nc.Close() // unblocks the reader and a writer in Write
	}
}

// run dials, then serves the connection (the goroutine dial path, see
// connector_linux.go for the other).
//
// The goroutine of a link spends its life under run or runConnected,
// serve and readLoop, so these frames are kept small: the set-up and the
// teardown are functions of their own (not inlined) that return before
// the read loop starts or run after it ends. The read path then fits a
// 4 KiB stack more often (docs/bench.md, "Scale at 500 masters").
func (c *conn) run() {
	defer c.m.wg.Done()
	nc, err := c.dial()
	if err != nil {
		c.dialFailed(err)
		return
	}
	c.serve(nc)
}

// runConnected serves a socket the connector saw connect: it sets the
// socket options, makes the TLS handshake (by deadline, the dial's) and
// serves the connection.
func (c *conn) runConnected(nc net.Conn, deadline time.Time) {
	defer c.m.wg.Done()
	nc, err := c.setupBy(nc, deadline)
	if err != nil {
		c.dialFailed(err)
		return
	}
	c.serve(nc)
}

// setupBy is setup bounded by the dial's deadline. The context ends with
// the set-up (the TLS handshake is its only user), not with the
// connection: it and its timer are not kept for the link's life.
//
//go:noinline
func (c *conn) setupBy(nc net.Conn, deadline time.Time) (net.Conn, error) {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	return c.setup(ctx, cancel, nc)
}

// dialFailed reports a failed dial or set-up.
//
//go:noinline
func (c *conn) dialFailed(err error) {
	c.fail(fmt.Errorf("%w: %s: %w", ErrDial, c.addr, err))
	c.finish()
}

// serve reports Connected, starts the writer and reads until the
// connection ends; then it reports Closed with every pending tag.
func (c *conn) serve(nc net.Conn) {
	if !c.start(nc) {
		return
	}
	c.readLoop(nc)
	c.stop()
}

// start records the socket, reports Connected and starts the writer for
// the commands sent before the connection was up; false when the
// connection was closed meanwhile.
//
//go:noinline
func (c *conn) start(nc net.Conn) bool {
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		_ = nc.Close()
		c.finish()
		return false
	}
	c.nc = nc
	c.raw = rawConn(nc)
	c.mu.Unlock()

	c.m.emit(c, Connected{Conn: c.id, LocalIP: localIP(nc)})

	c.mu.Lock()
	wnc, start := c.startWriterLocked() // commands sent before the connection was up
	c.mu.Unlock()
	if start {
		go c.writeOut(wnc)
	}
	return true
}

// stop ends a connection whose read loop ended: no new writer, wait for
// the running one, report Closed.
//
//go:noinline
func (c *conn) stop() {
	c.mu.Lock()
	c.dead = true // no new writer from now on
	c.mu.Unlock()
	c.writers.Wait()
	c.finish()
}

// finish reports Closed (unless the caller closed the connection).
func (c *conn) finish() {
	c.mu.Lock()
	err := c.err
	tags := make([]Tag, len(c.pending))
	for i, p := range c.pending {
		tags[i] = p.tag
	}
	c.pending = nil
	c.dead = true
	c.mu.Unlock()
	if !c.m.forget(c) {
		return // closed by the caller or by Shutdown: silent
	}
	if err == nil {
		err = fmt.Errorf("%w: %s", ErrConnLost, c.addr)
	}
	c.m.emit(c, Closed{Conn: c.id, Err: err, Pending: tags})
}

func (c *conn) dial() (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.m.cfg.DialTimeout)
	defer cancel()
	// fail (the caller's Close, Shutdown) aborts the dial through
	// cancelDial: no goroutine per dial waits for it (a SENTINEL RESET *
	// of hundreds of masters redials every link at once).
	if err := c.setCancel(cancel); err != nil {
		return nil, err
	}
	defer c.setCancel(nil)
	var d net.Dialer
	if ip := net.ParseIP(c.m.cfg.SourceIP); ip != nil {
		d.LocalAddr = &net.TCPAddr{IP: ip}
	}
	nc, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		return nil, err
	}
	return c.setup(ctx, nil, nc)
}

// setCancel sets (or, with nil, clears) the function fail calls to abort
// a dial or handshake under way; it returns the connection's error
// instead when it already failed.
func (c *conn) setCancel(cancel context.CancelFunc) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cancel != nil && c.dead {
		return c.err
	}
	c.cancelDial = cancel
	return nil
}

// keepAlive is what net.Dialer sets on a dialled connection by default.
var keepAlive = net.KeepAliveConfig{Enable: true, Idle: 15 * time.Second, Interval: 15 * time.Second, Count: 9}

// setup sets the socket options of a new connection and makes the TLS
// handshake when configured. cancel, when set, is registered as the
// connection's cancelDial during the handshake (the goroutine dial path
// registered its own around the whole dial).
func (c *conn) setup(ctx context.Context, cancel context.CancelFunc, nc net.Conn) (net.Conn, error) {
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetKeepAliveConfig(keepAlive)
		_ = tc.SetNoDelay(true)
	}
	if c.m.cfg.TLS == nil {
		return nc, nil
	}
	if cancel != nil {
		if err := c.setCancel(cancel); err != nil {
			_ = nc.Close()
			return nil, err
		}
		defer c.setCancel(nil)
	}
	cfg := c.m.cfg.TLS.Clone()
	if cfg.ServerName == "" {
		if host, _, err := net.SplitHostPort(c.addr); err == nil {
			cfg.ServerName = host
		}
	}
	tc := tls.Client(nc, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = nc.Close()
		return nil, fmt.Errorf("tls handshake: %w", err)
	}
	return tc, nil
}

// writeOut writes the queued output until the queue is empty (then the
// goroutine ends; the next send starts a new one) or the connection dies.
func (c *conn) writeOut(nc net.Conn) {
	defer c.writers.Done()
	for {
		c.mu.Lock()
		if c.dead || len(c.out) == 0 {
			c.writing = false
			c.mu.Unlock()
			return
		}
		// Swap buffers: senders append to the spare one while buf is
		// written (out is non-empty here, so the two never share an
		// array).
		buf := c.out
		c.out = c.spare[:0]
		c.spare = nil
		c.mu.Unlock()
		_ = nc.SetWriteDeadline(time.Now().Add(c.m.cfg.WriteTimeout))
		_, err := nc.Write(buf)
		c.mu.Lock()
		c.reuseLocked(buf)
		c.mu.Unlock()
		if err != nil {
			c.fail(fmt.Errorf("%w: write to %s: %w", ErrConnLost, c.addr, err))
			c.mu.Lock()
			c.writing = false
			c.mu.Unlock()
			return
		}
	}
}

// readLoop reads replies until the connection fails. Its goroutine spends
// most of its life parked, so the frames on that path are kept small
// (reading and handling a value is in readOne; see replyReader): the GC
// then shrinks an idle link's stack, and stacks are most of the memory of
// a sentinel with thousands of links.
func (c *conn) readLoop(nc net.Conn) {
	r := newReplyReader(nc, &c.m.cfg)
	if c.kind == Cmd {
		r.cmd = c
	}
	for {
		r.idleWait()
		if !c.readOne(r) {
			return
		}
	}
}

// readOne reads and delivers one value; false ends the connection.
func (c *conn) readOne(r *replyReader) bool {
	var v resp.Value
	var err error
	if c.kind == PubSub {
		v, err = r.rd.ReadValuePooled(pubsubWords...) // deliver recycles a message's array
	} else {
		v, err = r.rd.ReadValue()
	}
	if err != nil {
		c.fail(c.readError(err))
		return false
	}
	r.lr.reset()
	return c.deliver(&v)
}

// deliver hands one value read from the connection to the caller: a
// pub/sub message or the reply to the oldest pending command. It returns
// false when the connection must stop reading.
func (c *conn) deliver(v *resp.Value) bool {
	if c.kind == PubSub {
		if ch, payload, ok := pubsubMessage(*v); ok {
			resp.Recycle(*v) // the strings are the message's own
			return c.m.emit(c, Message{ID: c.id, Conn: ch, Payload: payload})
		}
	}
	c.mu.Lock()
	if len(c.pending) == 0 {
		c.mu.Unlock()
		c.fail(fmt.Errorf("%w: %s sent a %s", ErrUnexpectedReply, c.addr, v.Kind))
		return false
	}
	p := c.pending[0]
	c.pending = c.pending[1:]
	c.mu.Unlock()
	if !c.m.emit(c, Reply{ID: c.id, Conn: p.tag, Value: *v}) {
		return false
	}
	if p.flags&CloseOnError != 0 && v.IsError() {
		c.fail(fmt.Errorf("%w: %s: %s", ErrSubscribeFailed, c.addr, v.Str))
		return false
	}
	return true
}

// answered reports whether no command is waiting for its reply.
func (c *conn) answered() bool {
	c.mu.Lock()
	n := len(c.pending)
	c.mu.Unlock()
	return n == 0
}

// readError classifies a read failure.
func (c *conn) readError(err error) error {
	c.mu.Lock()
	first := c.err
	c.mu.Unlock()
	switch {
	case first != nil:
		return first // we closed the socket ourselves; keep the real cause
	case errors.Is(err, ErrReplyTooLarge):
		return fmt.Errorf("%w: %s sent more than %d bytes in one reply", ErrReplyTooLarge, c.addr, c.m.cfg.MaxReplyBytes)
	case errors.Is(err, resp.ErrProtocol):
		return fmt.Errorf("%w: %s: %w", ErrProtocol, c.addr, err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: %s closed the connection", ErrConnLost, c.addr)
	default:
		return fmt.Errorf("%w: read from %s: %w", ErrConnLost, c.addr, err)
	}
}

// pubsubMessage recognises ["message", channel, payload].
// pubsubWords are the strings every message on a sentinel's pub/sub link
// repeats: the reader returns them without allocating copies.
var pubsubWords = []string{"message", "__sentinel__:hello"}

func pubsubMessage(v resp.Value) (channel, payload string, ok bool) {
	if (v.Kind != resp.KindArray && v.Kind != resp.KindPush) || len(v.Elems) != 3 {
		return "", "", false
	}
	kind, ok1 := v.Elems[0].Text()
	ch, ok2 := v.Elems[1].Text()
	msg, ok3 := v.Elems[2].Text()
	if !ok1 || !ok2 || !ok3 || !strings.EqualFold(kind, "message") {
		return "", "", false
	}
	return ch, msg, true
}

// localIP returns the local IP of a connection, without zone or port.
func localIP(nc net.Conn) string {
	if a, ok := nc.LocalAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	host, _, err := net.SplitHostPort(nc.LocalAddr().String())
	if err != nil {
		return ""
	}
	return host
}

// limitedReader fails once more than max bytes were read since the last
// reset; the reader resets it after every complete reply, so memory held
// for one reply stays below max plus one read buffer.
type limitedReader struct {
	r   io.Reader
	n   int64
	max int64
}

// Read reads at most the bytes left in the current reply's budget.
func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n >= l.max {
		return 0, ErrReplyTooLarge
	}
	if rem := l.max - l.n; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

func (l *limitedReader) reset() { l.n = 0 }
