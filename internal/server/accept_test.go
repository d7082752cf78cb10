package server

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// burstListener hands out n in-memory connections as fast as Accept is
// called, like a listen backlog full of connections that arrived at once
// (hostilelat's `idle` load), and records how far the accepts ran ahead
// of the connections' first reads.
type burstListener struct {
	mu       sync.Mutex
	left     int
	accepted int
	reads    atomic.Int64
	ahead    int // max accepted - first reads, seen at an Accept
	peers    []net.Conn
	closed   chan struct{}
	once     sync.Once
	allRead  chan struct{}
	n        int64
}

func newBurstListener(n int) *burstListener {
	return &burstListener{left: n, n: int64(n), closed: make(chan struct{}), allRead: make(chan struct{})}
}

func (l *burstListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if l.left == 0 {
		l.mu.Unlock()
		<-l.closed
		return nil, net.ErrClosed
	}
	l.left--
	l.accepted++
	if d := l.accepted - int(l.reads.Load()); d > l.ahead {
		l.ahead = d
	}
	srv, cli := net.Pipe()
	l.peers = append(l.peers, cli)
	l.mu.Unlock()
	return &firstReadConn{Conn: srv, l: l}, nil
}

func (l *burstListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *burstListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// firstReadConn counts its first Read in its listener.
type firstReadConn struct {
	net.Conn
	l    *burstListener
	read atomic.Bool
}

func (c *firstReadConn) Read(p []byte) (int, error) {
	if !c.read.Swap(true) && c.l.reads.Add(1) == c.l.n {
		close(c.l.allRead)
	}
	return c.Conn.Read(p)
}

// TestAcceptBurstBounded: when many connections are waiting to be
// accepted, the accept loop does not run more than maxStarting ahead of
// the new connections' goroutines, so an established client's request is
// not queued behind thousands of new goroutines. Without the bound the
// loop ran 365–652 of the 2000 connections ahead (4 runs); with it 18–47
// on a busy 2-core machine: goroutines that returned their token and
// were not yet at their first read count too, so the limit leaves room
// for them.
func TestAcceptBurstBounded(t *testing.T) {
	s, _, _ := startServer(t, Config{MaxClients: 10000})
	const n = 2000
	l := newBurstListener(n)
	if err := s.Serve(l); err != nil {
		t.Fatal(err)
	}
	<-l.allRead // every connection got its goroutine
	l.mu.Lock()
	ahead := l.ahead
	peers := l.peers
	l.mu.Unlock()
	for _, p := range peers {
		_ = p.Close()
	}
	if limit := 8 * maxStarting; ahead > limit {
		t.Fatalf("the accept loop ran %d connections ahead of their first read, want at most %d", ahead, limit)
	}
	t.Logf("accepts ahead of first reads: at most %d (maxStarting %d)", ahead, maxStarting)
}
