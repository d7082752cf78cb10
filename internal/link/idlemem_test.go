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
