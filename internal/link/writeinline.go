package link

import (
	"fmt"
	"net"
	"syscall"
)

// rawConn returns the raw socket of nc for inline writes, or nil (TLS,
// platforms without the unix socket calls).
func rawConn(nc net.Conn) syscall.RawConn {
	sc, ok := nc.(syscall.Conn)
	if !ok || !canPeek {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// writeInline makes one non-blocking write of buf on the caller's
// goroutine (the runtime loop, at the end of a step). Most of the time the
// socket takes everything and no writer goroutine is started; what it
// does not take goes back in front of the queue for a writer goroutine,
// which waits with the write deadline. The caller counted itself as the
// writer (startWriterLocked) and took buf out of c.out.
func (c *conn) writeInline(nc net.Conn, buf []byte) {
	if c.wfunc == nil {
		c.wfunc = c.rawWrite
	}
	c.wbuf, c.wn, c.werr = buf, 0, nil
	if err := c.raw.Write(c.wfunc); err != nil && c.werr == nil {
		c.werr = err
	}
	n, err := c.wn, c.werr
	c.wbuf = nil
	if err != nil {
		c.fail(fmt.Errorf("%w: write to %s: %w", ErrConnLost, c.addr, err))
		c.mu.Lock()
		c.writing = false
		c.mu.Unlock()
		c.writers.Done()
		return
	}
	c.mu.Lock()
	if n < len(buf) {
		// Socket full: the unwritten tail goes before what was queued
		// meanwhile, and a writer goroutine takes over.
		rest := make([]byte, 0, len(buf)-n+len(c.out))
		rest = append(rest, buf[n:]...)
		c.out = append(rest, c.out...)
	} else {
		c.reuseLocked(buf)
	}
	more := len(c.out) > 0 && !c.dead
	if !more {
		c.writing = false
	}
	c.mu.Unlock()
	if more {
		go c.writeOut(nc) // still counted in c.writers
		return
	}
	c.writers.Done()
}

// rawWrite is the RawConn.Write callback: one write, never a wait.
func (c *conn) rawWrite(fd uintptr) bool {
	c.wn, c.werr = writeFD(fd, c.wbuf)
	return true
}
