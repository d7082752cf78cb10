package server

import (
	"errors"
	"net"
	"os"
	"syscall"
	"time"
	"unsafe"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// The read path of a plain TCP or Unix connection (readLoop). Go's
// net.Conn.Read costs one more read(2) per request than Redis' event loop:
// after the reply is written the next Read tries the socket, gets EAGAIN,
// and only then parks the goroutine on the poller. Redis reads a client
// only when epoll says it is readable.
//
// serveRaw runs the connection inside one syscall.RawConn.Read call: the
// callback reads the socket itself, executes every complete command that
// is buffered, flushes the replies, and, when its last read did not fill
// the buffer (so the socket had nothing more queued at that moment),
// returns false so that RawConn.Read waits for readability without that
// extra read(2). Readiness is edge-triggered in Go's poller, and a
// readiness notification that arrives while the callback runs is kept for
// the next wait (it is only reset when a new Read call starts), so no
// input is missed: bytes that arrive after the short read raise a new
// notification. A command that does not fit the read buffer (a long
// inline line, a large bulk) is handed back to the blocking
// resp.Reader.ReadCommand path, which reads as much as it needs.

// rawConnOf returns the RawConn of a plain TCP or Unix socket, nil for
// anything else (TLS, pipes in tests), which uses the blocking path only.
func rawConnOf(conn net.Conn) syscall.RawConn {
	switch conn.(type) {
	case *net.TCPConn, *net.UnixConn:
	default:
		return nil
	}
	rc, err := conn.(syscall.Conn).SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// Results of runBuffered.
const (
	bufferedMore = iota // every complete command ran; read more
	bufferedSlow        // the next command needs ReadCommand
	bufferedStop        // the connection is done
)

// Results of serveRaw.
const (
	rawDone   = iota // the connection is done
	rawSlow          // the next command needs the blocking ReadCommand path
	rawParked        // idle: parked without a goroutine (park_linux.go)
	rawAgain         // serveRaw again (parking was not possible)
)

// serveRaw serves the connection until it ends, parks, or the next
// command needs the blocking ReadCommand path.
func (c *client) serveRaw(rc syscall.RawConn) int {
	slow, done, drained := false, false, false
	err := rc.Read(func(fd uintptr) bool {
		for {
			switch c.runBuffered() {
			case bufferedStop:
				done = true
				return true
			case bufferedSlow:
				slow = true
				return true
			}
			if drained {
				drained = false
				if !c.beforeWait() {
					done = true
					return true
				}
				return false // wait for readability: no read(2) that would only say EAGAIN
			}
			n, room, err := c.rd.FillFrom(func(p []byte) (int, error) {
				return rawRead(fd, p)
			})
			if n > 0 {
				c.noteRead(n)
			}
			if err == syscall.EAGAIN {
				if !c.beforeWait() {
					done = true
					return true
				}
				return false
			}
			if err != nil {
				done = true
				return true
			}
			drained = n < room
		}
	})
	if err != nil {
		// A deadline: the idle timeout (the end), or the park deadline
		// of a connection that had nothing to read for a while (park.go).
		if c.parkable && errors.Is(err, os.ErrDeadlineExceeded) &&
			(c.idleDeadline.IsZero() || time.Now().Before(c.idleDeadline)) {
			if c.inputPending() { // park_linux.go: a request came meanwhile
				c.armReadDeadline(true)
				return rawAgain
			}
			c.idle()
			if c.s.park(c) {
				return rawParked
			}
			// Parking is not possible (no epoll instance, epoll_ctl
			// refused: fs.epoll.max_user_watches, say): the connection
			// keeps its goroutine, as before parking existed. A closed
			// connection ends at the next read.
			c.parkable = false
			c.deadline, c.parkDeadline = c.idleDeadline, false
			_ = c.conn.SetReadDeadline(c.deadline)
			return rawAgain
		}
		return rawDone // deadline (idle timeout) or closed
	}
	if done || !slow {
		return rawDone
	}
	return rawSlow
}

// idle drops what a connection about to park holds beyond its client
// struct: the reply buffer and the reader's argument buffers (Redis frees
// an idle client's query buffer and shrinks its reply buffer in
// clientsCron). The read buffer was released before the wait.
func (c *client) idle() {
	c.pending = nil
	c.lower = nil
	c.rd.Shrink()
}

// runBuffered executes the commands whose bytes are all buffered.
func (c *client) runBuffered() int {
	for {
		args, ok, state, err := c.rd.ReadBufferedCommand()
		if err != nil {
			if errors.Is(err, resp.ErrProtocol) {
				c.addReply(resp.AppendError(nil, "ERR "+err.Error()))
				c.flush()
			}
			return bufferedStop
		}
		if !ok {
			if state == resp.BufferedSlow {
				return bufferedSlow
			}
			return bufferedMore
		}
		c.s.stats.commands.Add(1)
		c.exec(args)
		if c.closeNext {
			c.flush()
			return bufferedStop
		}
		if (len(c.pending) >= 64<<10 || len(c.futures) >= maxFutures) && !c.flush() {
			return bufferedStop
		}
	}
}

// beforeWait flushes the pending replies and arms the idle timeout before
// the goroutine waits for input, as deadlineReader.Read does before a
// blocking read. It returns false when the connection is closing.
func (c *client) beforeWait() bool {
	if c.hasOutput() && !c.flush() {
		return false
	}
	c.rd.Release() // an idle connection holds no read buffer
	c.armReadDeadline(c.parkable)
	return true
}

// armReadDeadline sets the read deadline for the next wait for input:
// the idle timeout, except for subscribed clients (Redis' timeout skips
// them), and with park, the time to park (Server.parkAfter from now) when
// that comes first. A park deadline still more than half that delay away
// is left as it is, so a busy connection does not reset it before every
// wait: a connection parks after being idle for half to all of the delay.
func (c *client) armReadDeadline(park bool) {
	t := c.s.cfg.Timeout
	var now time.Time
	if t > 0 || park {
		now = time.Now()
	}
	idle := time.Time{}
	if t > 0 && !c.subscribed() {
		idle = now.Add(t)
	}
	c.idleDeadline = idle
	d, isPark := idle, false
	if park {
		delay := c.s.parkAfter(c)
		if left := c.deadline.Sub(now); idle.IsZero() && c.parkDeadline && left > delay/2 && left <= delay {
			return
		}
		if p := now.Add(delay); d.IsZero() || p.Before(d) {
			d, isPark = p, true
		}
	}
	c.parkDeadline = isPark
	if d.Equal(c.deadline) {
		return
	}
	_ = c.conn.SetReadDeadline(d)
	c.deadline = d
}

// noteRead counts input bytes and refreshes lastActive (Redis'
// lastinteraction: per read, not per command).
func (c *client) noteRead(n int) {
	c.s.stats.netIn.Add(int64(n))
	now := time.Now()
	c.mu.Lock()
	c.lastActive = now
	c.mu.Unlock()
}

// rawRead is read(2) on the non-blocking socket fd, made with
// RawSyscall rather than syscall.Read: no entersyscall/exitsyscall around
// it. A read of a non-blocking socket never blocks, so the scheduler has
// nothing to hand off, and entersyscall costs more than its bookkeeping:
// when every P has gone idle (between two requests at -c 50), sysmon
// sleeps until the next entersyscall wakes it and then polls every 20 µs
// for a millisecond or more. Under redis-benchmark -c 50 sysmon was
// 11–14 % of gosentinel's CPU, each poll a context switch (docs/bench.md,
// "The client port, round three"). The reply's write (client.flush,
// net.Conn.Write) still takes the scheduler's syscall path. An empty p
// reads nothing and reports (0, nil), as syscall.Read does.
func rawRead(fd uintptr, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return 0, e
		}
		return int(n), nil
	}
}
