package server

import (
	"syscall"
	"unsafe"
)

// rawWriter is the state of client.writeConn's RawConn.Write callback.
// The callback is made once per connection (at its first write) and reads its
// arguments from here, so a write allocates nothing: a closure made per
// call, capturing the slice, the count and the error, escaped to the heap
// (three allocations per request, TestRawPathAllocs). Only the holder of
// the write token (client.writing) calls writeConn, so one state per
// client suffices.
type rawWriter struct {
	p   []byte
	n   int
	err error
	fn  func(fd uintptr) bool
}

// init makes the callback.
func (w *rawWriter) init() {
	w.fn = func(fd uintptr) bool {
		for w.n < len(w.p) {
			m, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&w.p[w.n])), uintptr(len(w.p)-w.n))
			switch e {
			case 0:
				w.n += int(m)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait for writability, then write the rest
			default:
				w.err = e
				return true
			}
		}
		return true
	}
}

// writeConn writes p to the connection like net.Conn.Write: all of it,
// waiting for writability as needed, honouring the write deadline. On a
// plain TCP or Unix socket (the raw read path's connections) it writes
// with RawSyscall inside RawConn.Write, for the reason rawRead does
// (rawread.go): a write to a non-blocking socket never blocks, and
// entersyscall is what wakes sysmon into its 20 µs polling after every
// idle moment. Errors are the bare errno (or the RawConn's error: closed,
// deadline exceeded); callers only test for non-nil. The caller holds
// the write token.
func (c *client) writeConn(p []byte) (int, error) {
	if c.rc == nil {
		return c.conn.Write(p)
	}
	w := &c.rw
	if w.fn == nil {
		w.init()
	}
	w.p, w.n, w.err = p, 0, nil
	err := c.rc.Write(w.fn)
	if err == nil {
		err = w.err
	}
	n := w.n
	w.p, w.err = nil, nil
	return n, err
}
