package link

import (
	"net"
	"sync/atomic"
	"syscall"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// replyReader is the read side of a link: the RESP reader, the byte budget
// under it, and a way to wait for the socket to become readable without
// reading.
//
// Waiting outside the parser lets the goroutine of a mostly idle link park
// in a shallow frame (readLoop → idleWait → the poller) instead of at the
// bottom of the parser, so the GC shrinks its stack to 4 KiB instead of
// 8 KiB: with thousands of links, stacks are a large part of the memory.
// The wait costs one MSG_PEEK recv per idle period, which replaces the
// read that returns EAGAIN in a plain blocking Read; a command link
// with no command waiting for a reply skips it (see ready).
type replyReader struct {
	lr  *limitedReader
	rd  *resp.Reader
	raw syscall.RawConn    // nil: no readiness wait (TLS, non-unix)
	fn  func(uintptr) bool // r.ready, bound once (no allocation per wait)
	cmd *conn              // a command link's conn (its pending replies); nil for pub/sub

	asked  bool // ready ran once in this wait
	waited bool // a wait has ended on this connection (see ready)
}

// peeks counts the MSG_PEEK recvs of ready, skippedPeeks the waits of
// answered command links that made none (for tests: the syscalls an idle
// period costs).
var peeks, skippedPeeks atomic.Int64

func newReplyReader(nc net.Conn, cfg *Config) *replyReader {
	lr := &limitedReader{r: nc, max: cfg.MaxReplyBytes}
	r := &replyReader{lr: lr, rd: resp.NewReaderSize(lr, resp.Limits{
		MaxBulkLen:  cfg.MaxBulkLen,
		MaxArrayLen: cfg.MaxArrayLen,
		MaxDepth:    cfg.MaxDepth,
	}, readBufSize)}
	if sc, ok := nc.(syscall.Conn); ok && canPeek {
		if raw, err := sc.SyscallConn(); err == nil {
			r.raw = raw
			r.fn = r.ready
		}
	}
	return r
}

// idleWait parks until the socket is readable when nothing is buffered,
// without the read buffer: it goes back to the pool shared by all Readers
// and the next read takes one again, so an idle link holds none (the
// client port does the same; at 500 masters that is 2 MiB of 2000 1 KiB
// buffers out of a 15 MiB live heap). Errors are left for the next read
// to report.
func (r *replyReader) idleWait() {
	if r.raw == nil || r.rd.Buffered() > 0 {
		return
	}
	r.rd.Release()
	r.asked = false
	_ = r.raw.Read(r.fn)
	r.waited = true
}

// ready is the RawConn.Read callback. RawConn.Read forgets any readiness
// the poller saw before the call (it is edge-triggered), so the first
// call looks at the socket itself: done if a byte (or an error) is there,
// else "not done" and the poller waits for the next edge. The call after
// a wake-up is done: a spurious wake-up only costs the reader one
// EAGAIN, which net.Conn.Read handles.
//
// A command link whose every command has been answered skips the look:
// a reply can only follow a command, and a command sent from now on is
// sent after RawConn.Read reset the readiness, so its reply raises a new
// edge. At steady state most wake-ups of a sentinel's command links end
// that way (PING, PUBLISH and INFO are answered one at a time), so this
// saves one recv syscall per reply. The first wait of a connection
// always looks: what a server sends unasked comes right after the
// connect ("-ERR max number of clients reached"), before the reader's
// first wait. Later, what is not a reply (the server closing the
// connection, a broken peer's unsolicited bytes) raises an edge while
// the reader waits; only bytes that came in the few microseconds between
// the last read and this call are seen late: with the next command's
// reply (a close: when that command's write draws a reset; unsolicited
// bytes: taken as its reply, as they are whenever a command is pending).
func (r *replyReader) ready(fd uintptr) bool {
	if r.asked {
		return true
	}
	r.asked = true
	if r.cmd != nil && r.waited && r.cmd.answered() {
		skippedPeeks.Add(1)
		return false
	}
	peeks.Add(1)
	return !peekEmpty(fd)
}
