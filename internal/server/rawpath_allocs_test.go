package server

import (
	"bytes"
	"io"
	"net"
	"runtime"
	"testing"
	"time"
)

// TestRawPathAllocs checks that a request served on the raw read path
// (rawread.go, rawwrite.go) allocates nothing per request once the
// connection is set up: reading, executing a PING, writing the reply and
// giving the read buffer back while waiting. The client side of the
// measurement (net.Conn Write and a read into a fixed buffer) allocates
// nothing either, so the process-wide malloc count is the server's.
func TestRawPathAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("measures allocations over many round trips")
	}
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	_, addr, _ := startServer(t, Config{})
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	req := []byte("*1\r\n$4\r\nPING\r\n")
	reply := []byte("+PONG\r\n")
	buf := make([]byte, len(reply))
	roundTrip := func() {
		if _, err := conn.Write(req); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(conn, buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf, reply) {
			t.Fatalf("reply %q, want %q", buf, reply)
		}
	}
	for range 100 { // connection set-up, pools, first buffer
		roundTrip()
	}
	const n = 2000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		roundTrip()
	}
	runtime.ReadMemStats(&after)
	// A few allocations of the runtime itself (timers, the poller) may
	// fall into the window; one per request or more is the server's.
	if per := float64(after.Mallocs-before.Mallocs) / n; per > 0.1 {
		t.Fatalf("%.2f allocations per request on the raw path, want 0", per)
	}
}
