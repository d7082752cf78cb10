package link

import (
	"runtime"
	"testing"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// liveHeap returns the live heap after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC() // the first one may finish a cycle begun before
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestIdleLinkHeap: an idle link (connected, its last reply read) holds no
// read buffer (the reader gives it back before it parks, as the client
// port does) and no context (the dial's ends with the set-up). A sentinel
// has two links per instance (2000 at 500 masters with one replica each),
// mostly idle; the 1 KiB buffer each was 2 MiB of a 15 MiB live heap, the
// context and its timer another 0.5 MiB, twice that in RSS under GOGC 100.
func TestIdleLinkHeap(t *testing.T) {
	if !canPeek {
		t.Skip("no readiness wait on this platform: the reader blocks in Read with its buffer")
	}
	srv := testutil.StartRedis(t)
	m := newManager(t, Config{})
	open := func(from, to ConnID) {
		t.Helper()
		for id := from; id < to; id++ {
			if err := m.Dial(id, srv.Addr(), Cmd); err != nil {
				t.Fatalf("Dial: %v", err)
			}
			if !m.Send(id, 1, []string{"PING"}, 0) {
				t.Fatalf("Send %d refused", id)
			}
		}
		for replies := from; replies < to; {
			switch ev := next(t, m).(type) {
			case Reply:
				if ev.Value.Str != "PONG" {
					t.Fatalf("reply %#v", ev.Value)
				}
				replies++
			case Closed:
				t.Fatalf("link closed: %v", ev.Err)
			}
		}
	}
	open(1, 201) // one-time costs (pools, the poller) outside the measure
	const n = 500
	base := liveHeap()
	open(201, 201+n)
	per := float64(liveHeap()-base) / n
	t.Logf("live heap per idle link: %.0f bytes", per)
	// What a link needs (conn, reader, socket, pending slice, output
	// buffer) is ~1.2 KiB (~1.7 KiB in the first test of a process); with
	// the buffer and the context it was ~2.5 KiB (~3 KiB).
	if per >= 2300 {
		t.Fatalf("an idle link holds %.0f bytes of live heap, want < 2300: is the read buffer (%d bytes) still held?", per, readBufSize)
	}
}

// TestIdleLinkOneOutputBuffer: after flushed bursts (the runtime's
// Deferred sends and Flush, written inline) and plain sends (written by a
// writer goroutine), an idle link keeps one output buffer, not the one
// written last and a spare.
func TestIdleLinkOneOutputBuffer(t *testing.T) {
	srv := testutil.StartRedis(t)
	m := newManager(t, Config{})
	mustConnect(t, m, 1, srv.Addr(), Cmd)
	tag := Tag(0)
	burst := func(flags SendFlag) {
		t.Helper()
		first := tag + 1
		for _, cmd := range [][]string{{"PING"}, {"INFO", "replication"}, {"PUBLISH", "__sentinel__:hello", "127.0.0.1,26379,aaaa,0"}} {
			tag++
			if !m.Send(1, tag, cmd, flags) {
				t.Fatalf("Send %v refused", cmd)
			}
		}
		m.Flush()
		for want := first; want <= tag; want++ {
			if v := mustReply(t, m, 1, want); v.IsError() {
				t.Fatalf("reply %d: %v", want, v)
			}
		}
	}
	check := func(when string) {
		t.Helper()
		m.mu.Lock()
		c := m.conns[1]
		m.mu.Unlock()
		c.writers.Wait() // a writer goroutine may still be after its write
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.spare != nil || cap(c.out) == 0 {
			t.Fatalf("%s: idle link keeps %d + %d bytes of output buffers, want one buffer", when, cap(c.out), cap(c.spare))
		}
	}
	for range 3 {
		burst(Deferred)
	}
	check("after flushed bursts")
	for range 3 {
		burst(0)
	}
	check("after plain sends")
}
