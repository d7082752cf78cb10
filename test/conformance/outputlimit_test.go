package conformance

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// TestOutputLimitFromConfig: "client-output-buffer-limit normal 16kb 0 0"
// in sentinel.conf, side by side with redis-sentinel 7.0.15 (issue 15
// item 3). A pipeline whose replies reach 16 KiB (COMMAND DOCS is ~60 KiB)
// closes the connection before any reply is sent, on both; a small reply
// on another connection is answered, and subscribing lifts a client into
// the pubsub class (default 32mb 8mb 60), where the same reply passes.
func TestOutputLimitFromConfig(t *testing.T) {
	t.Parallel()
	ps := startPair(t, spec{replicas: 0, quorum: 1, extra: "client-output-buffer-limit normal 16kb 0 0\n"})
	for _, s := range ps {
		other := dialSide(t, s)
		if v := other.do("PING"); v.Str != "PONG" {
			t.Fatalf("%s: PING = %v", s.name, v)
		}
		c := dialSide(t, s)
		if err := c.send("PING\r\nCOMMAND DOCS\r\nPING\r\n"); err != nil {
			t.Fatal(err)
		}
		_ = c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, err := io.ReadAll(c.conn)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("%s: connection over the normal limit still open", s.name)
		}
		if len(b) != 0 {
			t.Errorf("%s: %d bytes sent before closing, want 0", s.name, len(b))
		}
		if v := other.do("PING"); v.Str != "PONG" {
			t.Fatalf("%s: other client's PING = %v", s.name, v)
		}
		sub := dialSide(t, s)
		sub.do("HELLO", "3")
		if v := sub.do("SUBSCRIBE", "x"); v.Kind != resp.KindPush {
			t.Fatalf("%s: SUBSCRIBE = %v", s.name, v)
		}
		if v := sub.do("COMMAND", "DOCS"); v.Kind != resp.KindMap || len(v.Elems) == 0 {
			t.Fatalf("%s: COMMAND DOCS of a subscribed RESP3 client = %v", s.name, v.Kind)
		}
	}
}
