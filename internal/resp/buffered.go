package resp

import (
	"bytes"
	"io"
)

// FillFrom compacts the buffer and appends one read of read (typically a
// non-blocking read(2) on the socket) to it. It returns the bytes read and
// the room there was for them: n < room means the read did not fill the
// buffer, so a stream socket had no more bytes queued at that moment. A
// read error is returned as is and, unlike the errors of the io.Reader
// given to the constructor, is not sticky: the caller decides (EAGAIN is
// not an end). A read of 0 bytes with no error is reported as io.EOF and
// made sticky.
func (r *Reader) FillFrom(read func([]byte) (int, error)) (n, room int, err error) {
	if r.err != nil {
		return 0, 0, r.err
	}
	if err := r.compact(); err != nil {
		return 0, 0, err
	}
	room = len(r.buf) - r.w
	n, err = read(r.buf[r.w:])
	if n < 0 {
		n = 0
	}
	r.w += n
	if n == 0 && err == nil {
		r.err = io.EOF
		return 0, room, io.EOF
	}
	return n, room, err
}

// Buffer states of ReadBufferedCommand.
const (
	// BufferedNeedMore: the next command is not complete yet and fits the
	// buffer: read more bytes and try again.
	BufferedNeedMore = iota
	// BufferedSlow: the next command does not fit the buffer (a long line
	// or a large bulk): read it with ReadCommand, which reads from the
	// io.Reader given to the constructor as it needs.
	BufferedSlow
)

// ReadBufferedCommand returns the next command when its bytes are all
// buffered already, without reading: ok is false when they are not, and
// state then says whether more bytes will make it complete
// (BufferedNeedMore) or the command needs ReadCommand (BufferedSlow). It
// parses with ReadCommand's own code and limits; input that ReadCommand
// would reject as soon as it is buffered (a malformed or over-limit
// header) is returned as that error. Empty commands are skipped.
func (r *Reader) ReadBufferedCommand() (args [][]byte, ok bool, state int, err error) {
	for {
		need, state := r.bufferedUnit()
		if need < 0 {
			return nil, false, state, nil
		}
		// The unit's bytes are all in r.buf[r.r:r.r+need] (or it is
		// malformed within them): ReadCommand's parsers will not read.
		var n int
		if r.buf[r.r] == '*' {
			n, err = r.readMultibulk()
		} else {
			n, err = r.readInline()
		}
		if err != nil {
			return nil, false, 0, err
		}
		if n > 0 {
			return r.args[:n], true, 0, nil
		}
	}
}

// bufferedUnit reports whether the next command (or the malformed header
// that ends parsing) is entirely buffered: need >= 0 is its length; need
// -1 means it is not, with the state for ReadBufferedCommand. It mirrors
// readMultibulk and readInline step by step.
func (r *Reader) bufferedUnit() (need, state int) {
	b := r.buf[r.r:r.w]
	if len(b) == 0 {
		return -1, BufferedNeedMore
	}
	max := r.lim.MaxInlineLen
	incomplete := func(end int) (int, int) {
		// end: the unit needs end bytes from r.r (-1: a line not yet
		// terminated). It fits when the buffer can hold it.
		if end < 0 {
			if len(b) >= len(r.buf) || len(b) > max+1 {
				return -1, BufferedSlow
			}
			return -1, BufferedNeedMore
		}
		if end > len(r.buf) {
			return -1, BufferedSlow
		}
		return -1, BufferedNeedMore
	}
	// line returns the end of the line starting at off (index after '\n')
	// and the line without "\r\n", or -1.
	line := func(off int) (int, []byte) {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			return -1, nil
		}
		l := b[off : off+i]
		if k := len(l); k > 0 && l[k-1] == '\r' {
			l = l[:k-1]
		}
		return off + i + 1, l
	}
	end, l := line(0)
	if end < 0 {
		return incomplete(-1)
	}
	if b[0] != '*' {
		return end, 0 // inline: one line
	}
	if len(l) > max {
		return end, 0 // readLine rejects it
	}
	count, ok := parseInt(l[1:])
	if !ok || count > 1<<31-1 || count <= 0 {
		return end, 0
	}
	if limit, _ := r.maxArgs(); count > limit {
		return end, 0
	}
	bulkLimit, _ := r.maxBulk()
	off := end
	for i := int64(0); i < count; i++ {
		end, l := line(off)
		if end < 0 {
			if len(b)-off > max+1 {
				return len(b), 0 // readLine rejects the header
			}
			return incomplete(-1)
		}
		if len(l) > max || len(l) == 0 || l[0] != '$' {
			return end, 0
		}
		size, ok := parseInt(l[1:])
		if !ok || size < 0 || size > r.lim.MaxBulkLen || size > bulkLimit {
			return end, 0
		}
		if size > int64(len(r.buf)) {
			return -1, BufferedSlow
		}
		off = end + int(size) + 2
		if off > len(b) {
			return incomplete(off)
		}
	}
	return off, 0
}
