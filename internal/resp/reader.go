package resp

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// defaultBufSize is the initial read buffer of NewReader and
// NewReaderLimits; it grows (up to the inline limit) only when a single
// header or inline line does not fit.
const defaultBufSize = 16 << 10

// minBufSize is the smallest buffer NewReaderSize accepts: room for any
// RESP header of a 64-bit length ("$-9223372036854775808\r\n") and more.
const minBufSize = 64

// bulkChunk is the first step when a bulk larger than the read buffer is
// read straight from the connection; later steps double with what arrived.
const bulkChunk = 64 << 10

// Reader reads RESP commands (server side) or replies (client side) from an
// io.Reader with its own buffer. It is not safe for concurrent use.
type Reader struct {
	rd  io.Reader
	buf []byte // nil until the first read and after Release until the next
	// bufHandle is the pool handle of buf when it came from a pool
	// (Release), kept so that giving it back allocates nothing.
	bufHandle *[]byte
	pool      *sync.Pool // the pool of buffers of size, once released
	size      int        // initial buffer size; a grown buffer shrinks back to it
	r, w      int
	err       error // sticky read error from rd

	lim    Limits
	unauth bool
	pooled bool     // in ReadValuePooled
	known  []string // ReadValuePooled's strings returned without allocation

	args    [][]byte
	argOffs []int
	argbuf  []byte
}

// NewReader returns a Reader with default limits.
func NewReader(rd io.Reader) *Reader {
	return NewReaderLimits(rd, Limits{})
}

// NewReaderLimits returns a Reader with the given limits; zero fields take
// their defaults.
func NewReaderLimits(rd io.Reader, lim Limits) *Reader {
	return NewReaderSize(rd, lim, defaultBufSize)
}

// NewReaderSize returns a Reader with the given limits and an initial read
// buffer of size bytes (at least 64). The buffer grows only while a header
// or inline line longer than it arrives, and shrinks back to size once that
// line has been consumed; bulk payloads larger than the buffer are read
// straight into their own allocation. A small size suits the many
// long-lived connections of a sentinel that mostly see short replies.
//
// The buffer is taken (from a pool shared by all Readers of that size,
// see Release) only when the first read needs it: a connection accepted
// and never read from, or read only between Releases, holds none.
func NewReaderSize(rd io.Reader, lim Limits, size int) *Reader {
	size = max(size, minBufSize)
	return &Reader{rd: rd, size: size, lim: lim.withDefaults()}
}

// SetUnauthenticated switches the command limits to UnauthMaxArgs and
// UnauthMaxBulkLen (true) or back to MaxArgs and MaxBulkLen (false), like
// Redis does for clients that still have to AUTH.
func (r *Reader) SetUnauthenticated(unauth bool) { r.unauth = unauth }

// Limits returns the effective limits.
func (r *Reader) Limits() Limits { return r.lim }

// Buffered returns the number of bytes already read from the connection and
// not yet consumed; a server flushes its replies when it reaches 0.
func (r *Reader) Buffered() int { return r.w - r.r }

// fill reads more bytes into the buffer, compacting it first. It returns an
// error only when nothing could be read.
func (r *Reader) fill() error {
	if r.err != nil {
		return r.err
	}
	if err := r.compact(); err != nil {
		return err
	}
	for range 100 {
		n, err := r.rd.Read(r.buf[r.w:])
		if n < 0 {
			n = 0
		}
		r.w += n
		if err != nil {
			r.err = err
			if n > 0 {
				return nil
			}
			return err
		}
		if n > 0 {
			return nil
		}
	}
	r.err = io.ErrNoProgress
	return r.err
}

// compact moves the unread bytes to the front of the buffer (shrinking a
// grown buffer when they fit the initial size again); it fails when the
// buffer is full.
func (r *Reader) compact() error {
	if r.buf == nil {
		r.acquire()
	}
	if r.r > 0 {
		n := copy(r.buf, r.buf[r.r:r.w])
		r.w = n
		r.r = 0
	}
	if r.w < r.size && len(r.buf) > r.size {
		// A long line made the buffer grow; what is left fits the
		// initial size again, so drop the large array.
		small := make([]byte, r.size)
		r.w = copy(small, r.buf[:r.w])
		r.buf = small
	}
	if r.w == len(r.buf) {
		return fmt.Errorf("resp: read buffer full")
	}
	return nil
}

// readLine returns the next line without its "\n" and without one "\r"
// before it. The slice is valid until the next read. If no newline shows up
// within max bytes, tooBig is returned. The buffer grows up to max+2 bytes
// only while a long line is actually arriving.
func (r *Reader) readLine(max int, tooBig error) ([]byte, error) {
	scanned := 0 // bytes after r.r already known to hold no '\n'
	for {
		if i := bytes.IndexByte(r.buf[r.r+scanned:r.w], '\n'); i >= 0 {
			end := r.r + scanned + i
			line := r.buf[r.r:end]
			r.r = end + 1
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			if len(line) > max {
				return nil, tooBig
			}
			return line, nil
		}
		scanned = r.w - r.r
		if scanned > max+1 {
			return nil, tooBig
		}
		if scanned == len(r.buf) && r.buf != nil { // nil: released, fill acquires one
			grown := make([]byte, min(2*len(r.buf), max+2))
			copy(grown, r.buf[r.r:r.w])
			r.buf, r.r, r.w = grown, 0, scanned
		}
		if err := r.fill(); err != nil {
			if scanned > 0 {
				return nil, unexpectedEOF(err)
			}
			return nil, err
		}
	}
}

// readPayload appends n bytes from the connection to dst, growing dst only
// as bytes arrive (never more than twice what was received plus bulkChunk).
func (r *Reader) readPayload(dst []byte, n int64) ([]byte, error) {
	for n > 0 {
		if r.r == r.w {
			if n >= int64(len(r.buf)) && r.err == nil {
				// Large remainder: read straight into dst.
				step := max(int64(bulkChunk), int64(len(dst)))
				step = min(step, n)
				start := len(dst)
				dst = grow(dst, int(step))
				got, err := io.ReadFull(r.rd, dst[start:start+int(step)])
				dst = dst[:start+got]
				n -= int64(got)
				if err != nil {
					r.err = err
					return dst, unexpectedEOF(err)
				}
				continue
			}
			if err := r.fill(); err != nil {
				return dst, unexpectedEOF(err)
			}
		}
		k := min(int64(r.w-r.r), n)
		dst = append(dst, r.buf[r.r:r.r+int(k)]...)
		r.r += int(k)
		n -= k
	}
	return dst, nil
}

// skip discards n bytes.
func (r *Reader) skip(n int) error {
	for n > 0 {
		if r.r == r.w {
			if err := r.fill(); err != nil {
				return unexpectedEOF(err)
			}
		}
		k := min(r.w-r.r, n)
		r.r += k
		n -= k
	}
	return nil
}

// grow extends len(b) by n, reallocating (with doubling) when needed.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), max(2*cap(b), len(b)+n))
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// parseInt parses a decimal int64 strictly like Redis' string2ll: optional
// '-', no '+', no leading zeros (except "0"), no spaces.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	neg := false
	i := 0
	if b[0] == '-' {
		neg = true
		i = 1
		if len(b) == 1 {
			return 0, false
		}
	}
	if b[i] < '1' || b[i] > '9' {
		return 0, false
	}
	var v uint64
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if v > (1<<64-1)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
		if v < uint64(c-'0') {
			return 0, false
		}
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}
