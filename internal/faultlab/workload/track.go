package workload

import (
	"bytes"
	"context"
	"net"
	"sync"
	"syscall"
)

// sendTracker counts, for every pending operation id, how many times it was
// written to a socket. It is how a writer tells "provably not sent" (0)
// from "maybe executed" without trusting a client library's error types:
// every connection a writer's client opens goes through track.
type sendTracker struct {
	prefix []byte // "<writer>-": every id starts with it
	mu     sync.Mutex
	sent   map[string]int // pending id → times written
}

func newSendTracker(writer string) *sendTracker {
	return &sendTracker{prefix: []byte(writer + "-"), sent: map[string]int{}}
}

// begin registers id before it is handed to the client.
func (t *sendTracker) begin(id string) {
	t.mu.Lock()
	t.sent[id] = 0
	t.mu.Unlock()
}

// end forgets id and returns how many times it was written.
func (t *sendTracker) end(id string) int {
	t.mu.Lock()
	n := t.sent[id]
	delete(t.sent, id)
	t.mu.Unlock()
	return n
}

// saw scans b (bytes about to be written) for pending ids. An id is
// terminated by the CRLF of its RESP bulk string.
func (t *sendTracker) saw(b []byte) {
	if !bytes.Contains(b, t.prefix) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for {
		i := bytes.Index(b, t.prefix)
		if i < 0 {
			return
		}
		rest := b[i:]
		end := bytes.IndexByte(rest, '\r')
		if end < 0 {
			end = len(rest)
		}
		id := string(rest[:end])
		if n, ok := t.sent[id]; ok {
			t.sent[id] = n + 1
		}
		b = rest[end:]
	}
}

// dialer wraps d so that every connection reports its writes to t.
func (t *sendTracker) dialer(d Dialer) Dialer {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tc := &trackConn{Conn: c, t: t}
		if sc, ok := c.(syscall.Conn); ok {
			// go-redis health-checks pooled connections through the raw fd;
			// keep that working so the clients behave as without us.
			return trackSysConn{trackConn: tc, sc: sc}, nil
		}
		return tc, nil
	}
}

// trackConn reports the bytes it writes to its tracker.
type trackConn struct {
	net.Conn
	t *sendTracker
}

// Write reports b to the tracker when at least one byte went out (or the
// write did not fail), then returns what the socket returned.
func (c *trackConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if n > 0 || err == nil {
		c.t.saw(b)
	}
	return n, err
}

// trackSysConn is a trackConn over a socket that exposes its descriptor.
type trackSysConn struct {
	*trackConn
	sc syscall.Conn
}

// SyscallConn implements syscall.Conn for go-redis's pool health check.
func (c trackSysConn) SyscallConn() (syscall.RawConn, error) { return c.sc.SyscallConn() }
