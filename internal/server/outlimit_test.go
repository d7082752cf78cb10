package server

import (
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is the soft-limit clock of a test server.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeClock) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) advance(d time.Duration) {
	f.mu.Lock()
	f.t = f.t.Add(d)
	f.mu.Unlock()
}

// subscriberNotReading subscribes to ev on a connection with a small
// receive buffer and never reads again.
func subscriberNotReading(t *testing.T, addr string) *testConn {
	t.Helper()
	c := dial(t, addr)
	if tc, ok := c.conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096)
	}
	c.send("SUBSCRIBE ev\r\n")
	c.expect("*3\r\n$9\r\nsubscribe\r\n$2\r\nev\r\n:1\r\n")
	return c
}

// queued returns the unsent output the server holds for the client
// subscribed to ev with the given CLIENT ID, -1 once it is gone.
func queued(s *Server, id int64) int {
	s.mu.Lock()
	c := s.clients[id]
	s.mu.Unlock()
	if c == nil {
		return -1
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return -1
	}
	return c.q.size
}

// TestSlowSubscriberOverHardLimit: a subscriber that never reads is
// disconnected once its unsent output reaches the pubsub hard limit;
// Publish never blocks, a subscriber that reads gets every message and a
// normal client keeps being answered.
func TestSlowSubscriberOverHardLimit(t *testing.T) {
	var logged []string
	var logMu sync.Mutex
	s, addr, _ := startServer(t, Config{
		OutputLimits: &OutputLimits{Pubsub: OutputLimit{Hard: 64 << 10}},
		Logf: func(f string, a ...any) {
			logMu.Lock()
			logged = append(logged, f)
			logMu.Unlock()
		},
	})
	slow := subscriberNotReading(t, addr)
	fast := dial(t, addr)
	fast.send("SUBSCRIBE ev\r\n")
	fast.expect("*3\r\n$9\r\nsubscribe\r\n$2\r\nev\r\n:1\r\n")
	normal := dial(t, addr)

	payload := strings.Repeat("x", MaxEventLen)
	msg := "*3\r\n$7\r\nmessage\r\n$2\r\nev\r\n$1023\r\n" + payload + "\r\n"
	const batch = 32 // 32 KiB: under the limit for a subscriber that reads
	slowGone := false
	for round := 0; round < 1000 && !slowGone; round++ {
		start := time.Now()
		for i := 0; i < batch; i++ {
			s.Publish("ev", payload)
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("Publish blocked: %d publishes took %v", batch, d)
		}
		fast.expect(strings.Repeat(msg, batch))
		normal.send("PING\r\n")
		normal.expect("+PONG\r\n")
		slowGone = s.numClients() == 2
	}
	if !slowGone {
		t.Fatal("slow subscriber still connected after 32 MB of messages")
	}
	slow.expectClosed()
	// The others are untouched.
	if n := s.Publish("ev", "after"); n != 1 {
		t.Fatalf("Publish after the disconnect delivered %d, want 1", n)
	}
	fast.expect("*3\r\n$7\r\nmessage\r\n$2\r\nev\r\n$5\r\nafter\r\n")
	normal.send("PING\r\n")
	normal.expect("+PONG\r\n")
	logMu.Lock()
	defer logMu.Unlock()
	if len(logged) != 1 || !strings.Contains(logged[0], "overcoming of output buffer limits") {
		t.Fatalf("log = %q, want one output-buffer-limit line", logged)
	}
}

// TestSoftLimitTiming: over the soft limit for SoftTime is tolerated,
// longer is not; dropping below the soft limit restarts the timer.
func TestSoftLimitTiming(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1e9, 0)}
	const soft, softTime = 32 << 10, 10 * time.Second
	cfg := Config{OutputLimits: &OutputLimits{Pubsub: OutputLimit{Soft: soft, SoftTime: softTime}}}
	cfg.now = clock.now
	s, addr, _ := startServer(t, cfg)
	payload := strings.Repeat("x", MaxEventLen)
	msgLen := len("*3\r\n$7\r\nmessage\r\n$2\r\nev\r\n$1023\r\n") + MaxEventLen + 2

	// Slow subscriber: fill until the server itself holds ≥ soft bytes.
	slow := dial(t, addr)
	if tc, ok := slow.conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096)
	}
	slowID := clientID(t, slow)
	slow.send("SUBSCRIBE ev\r\n")
	slow.expect("*3\r\n$9\r\nsubscribe\r\n$2\r\nev\r\n:1\r\n")
	// Fill to twice the soft limit: the writer goroutine takes a 16 KiB
	// block off the queue before its write blocks, so a queue just at the
	// limit can dip below it (restarting the timer) while the kernel's
	// buffers are already full.
	published := 0
	for queued(s, slowID) < 2*soft {
		if published > 100000 {
			t.Fatal("the server never queued 64 KiB for a subscriber that does not read")
		}
		s.Publish("ev", payload)
		published++
	}
	// Over the soft limit since now. Exactly SoftTime later: tolerated.
	clock.advance(softTime)
	s.Publish("ev", payload)
	if queued(s, slowID) < 0 {
		t.Fatal("disconnected after exactly soft_seconds over the soft limit; Redis waits longer")
	}
	// Past SoftTime: the next message disconnects it.
	clock.advance(time.Millisecond)
	s.Publish("ev", payload)
	if queued(s, slowID) >= 0 {
		t.Fatal("still connected after more than soft_seconds over the soft limit")
	}
	slow.expectClosed()

	// A subscriber that catches up restarts its timer.
	sub := dial(t, addr)
	if tc, ok := sub.conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096)
	}
	subID := clientID(t, sub)
	sub.send("SUBSCRIBE ev\r\n")
	sub.expect("*3\r\n$9\r\nsubscribe\r\n$2\r\nev\r\n:1\r\n")
	n := 0
	for queued(s, subID) < soft {
		s.Publish("ev", payload)
		n++
	}
	clock.advance(softTime / 2)
	sub.readN(n * msgLen) // catch up: the server's queue drains
	waitFor(t, "queue drained", func() bool { return queued(s, subID) == 0 })
	s.Publish("ev", payload) // checked below the soft limit: timer reset
	sub.readN(msgLen)
	for queued(s, subID) < 2*soft { // 2×: see the first fill above
		s.Publish("ev", payload)
	}
	clock.advance(softTime) // over again since this moment only
	s.Publish("ev", payload)
	if queued(s, subID) < 0 {
		t.Fatal("timer not restarted after the subscriber caught up")
	}
	clock.advance(time.Millisecond)
	s.Publish("ev", payload)
	sub.expectClosed()
}

// TestNormalClassLimit: with "normal 16kb 0 0" a client without
// subscriptions whose replies reach 16 KiB is disconnected before any of
// them is sent (redis-sentinel 7.0.15 sends nothing either, checked by
// hand with the same pipeline); the pubsub limit does not apply to it.
// A client that pipelines without reading is paused by the server at
// 4 MiB of unsent replies instead of buffering (docs/server.md), so the
// normal limit matters for large replies.
func TestNormalClassLimit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits OutputLimits
		closed bool
	}{
		{"normal hard 16kb", OutputLimits{Normal: OutputLimit{Hard: 16 << 10}}, true},
		{"pubsub hard 16kb only", OutputLimits{Pubsub: OutputLimit{Hard: 16 << 10}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.limits
			s, addr, _ := startServer(t, Config{OutputLimits: &l})
			small := dial(t, addr)
			small.send("PING\r\n")
			small.expect("+PONG\r\n")
			c := dial(t, addr)
			c.send("PING\r\nCOMMAND DOCS\r\nPING\r\n") // COMMAND DOCS is ~60 KiB
			if tc.closed {
				_ = c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
				b, err := io.ReadAll(c.conn)
				if len(b) != 0 {
					t.Fatalf("got %d bytes before the close, want none", len(b))
				}
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					t.Fatal("connection still open after 5s")
				}
			} else {
				c.expect("+PONG\r\n")
				if v := c.value(); len(v.Elems) == 0 {
					t.Fatalf("COMMAND DOCS = %v", v)
				}
			}
			small.send("PING\r\n")
			small.expect("+PONG\r\n")
			if tc.closed {
				// The reset reaches the client before the server's
				// connection goroutine has taken it off the table.
				waitFor(t, "only the small client left", func() bool { return s.numClients() == 1 })
			}
		})
	}
}

// TestInFlightOutputBounded: a writer takes at most maxWriteBatch blocks
// off the queue, so a subscriber that reads a little and stops holds at
// most its hard limit plus one batch. Before, the writer took the whole
// queue and the queue restarted from zero: the server could hold nearly
// twice the hard limit for one client before disconnecting it.
func TestInFlightOutputBounded(t *testing.T) {
	const hard = 1 << 20
	s, _, _ := startServer(t, Config{OutputLimits: &OutputLimits{Pubsub: OutputLimit{Hard: hard}}})
	// net.Pipe is synchronous: a write blocks until the test reads it, so
	// which bytes are in flight is exact.
	a, b := net.Pipe()
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	c := newClient(s, a)
	s.mu.Lock()
	s.clients[c.id] = c
	s.mu.Unlock()
	s.ps.mu.Lock()
	s.ps.add(s.ps.channels, "ev", c)
	s.ps.mu.Unlock()
	c.mu.Lock()
	c.channels = []string{"ev"}
	c.mu.Unlock()

	payload := strings.Repeat("x", MaxEventLen)
	msgLen := len("*3\r\n$7\r\nmessage\r\n$2\r\nev\r\n$1023\r\n") + MaxEventLen + 2
	read := func(n int) {
		t.Helper()
		if _, err := io.ReadFull(b, make([]byte, n)); err != nil {
			t.Fatalf("reading %d bytes: %v", n, err)
		}
	}
	s.Publish("ev", payload)
	read(1)                      // the writer is now writing the first message
	below := (hard - 1) / msgLen // just under the hard limit
	for range below {
		s.Publish("ev", payload)
	}
	read(msgLen - 1) // first write done: the writer takes the next batch
	read(1)          // and is writing it
	c.mu.Lock()
	inflight, used, killed := c.q.inflight, c.q.used(), c.killed
	c.mu.Unlock()
	if killed || used != below*msgLen {
		t.Fatalf("killed %v, used %d; want a live client holding %d", killed, used, below*msgLen)
	}
	if inflight > maxWriteBatch*outBlockSize {
		t.Fatalf("writer took %d bytes at once, want at most %d", inflight, maxWriteBatch*outBlockSize)
	}
	// As many again: the client must be cut before it holds its limit
	// plus one batch.
	for range below {
		s.Publish("ev", payload)
		c.mu.Lock()
		used, killed = c.q.used(), c.killed
		c.mu.Unlock()
		if killed {
			break
		}
		if used > hard+maxWriteBatch*outBlockSize {
			t.Fatalf("subscriber holds %d bytes, limit %d plus one %d-byte batch", used, hard, maxWriteBatch*outBlockSize)
		}
	}
	if !killed {
		t.Fatalf("subscriber not disconnected after %d bytes against a %d-byte hard limit", 2*below*msgLen, hard)
	}
}

// TestOutQueueBatches: a writer takes at most maxWriteBatch blocks at a
// time, and they count as used until the write is done.
func TestOutQueueBatches(t *testing.T) {
	var q outQueue
	defer q.reset()
	chunk := make([]byte, 1000)
	for q.size < (maxWriteBatch+10)*outBlockSize {
		q.append(chunk)
	}
	total := q.size
	bs, n := q.takeBatch()
	if len(bs) != maxWriteBatch || n != maxWriteBatch*outBlockSize {
		t.Fatalf("first batch: %d blocks, %d bytes; want %d, %d", len(bs), n, maxWriteBatch, maxWriteBatch*outBlockSize)
	}
	if q.used() != total || q.size != total-n {
		t.Fatalf("after taking: used %d, queued %d; want %d, %d", q.used(), q.size, total, total-n)
	}
	releaseBlocks(bs)
	q.done(n)
	bs2, n2 := q.takeBatch()
	if n2 != total-n || q.size != 0 || q.used() != n2 {
		t.Fatalf("second batch %d bytes, queued %d, used %d; want %d, 0, %d", n2, q.size, q.used(), total-n, n2)
	}
	releaseBlocks(bs2)
	q.done(n2)
	if q.used() != 0 {
		t.Fatalf("used %d after every batch was written", q.used())
	}
}
