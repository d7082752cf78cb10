package link

import (
	"net"
	"syscall"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// replyReader is the read side of a link: the RESP reader, the byte budget
// under it, and a way to wait for the socket to become readable without
// reading.
//
// Waiting outside the parser has two gains for a sentinel with thousands
// of mostly idle links. The goroutine parks in a shallow frame (readLoop →
// wait), so the GC shrinks its stack to 4 KiB instead of 8 KiB; and a
// read is only issued when bytes are there, which saves the read that
// returns EAGAIN after every reply (one syscall per message instead of
// two).
type replyReader struct {
	lr  *limitedReader
	rd  *resp.Reader
	raw syscall.RawConn    // nil: no readiness wait (TLS)
	fn  func(uintptr) bool // r.ready, bound once (no allocation per wait)

	asked bool // ready was called once in this wait
}

func newReplyReader(nc net.Conn, cfg *Config) *replyReader {
	lr := &limitedReader{r: nc, max: cfg.MaxReplyBytes}
	r := &replyReader{lr: lr, rd: resp.NewReaderSize(lr, resp.Limits{
		MaxBulkLen:  cfg.MaxBulkLen,
		MaxArrayLen: cfg.MaxArrayLen,
		MaxDepth:    cfg.MaxDepth,
	}, readBufSize)}
	if sc, ok := nc.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			r.raw = raw
			r.fn = r.ready
		}
	}
	return r
}

// idleWait parks until the socket is readable when nothing is buffered
// and the last read found the socket empty. Only then: Go's poller is
// edge-triggered and forgets readiness at every read, so bytes left in
// the socket by a read that filled its buffer would never wake a wait.
// Errors are left for the next read to report.
func (r *replyReader) idleWait() {
	if r.raw == nil || !r.lr.drained || r.rd.Buffered() > 0 {
		return
	}
	r.asked = false
	_ = r.raw.Read(r.fn)
}

// ready is the RawConn.Read callback: "not done" on the first call (so
// the poller waits for readability), done on the next.
func (r *replyReader) ready(uintptr) bool {
	if r.asked {
		return true
	}
	r.asked = true
	return false
}
