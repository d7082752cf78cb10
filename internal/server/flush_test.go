package server

import (
	"testing"
)

// TestRepliesFlushedBeforeIncompleteInput: bytes that do not complete a
// command must not hold back the replies of the commands before them (the
// readiness probe `PING\r\n\n` of test harnesses, a pipelined command cut
// in half by the network).
func TestRepliesFlushedBeforeIncompleteInput(t *testing.T) {
	_, addr, _ := startServer(t, Config{})
	cases := []struct{ name, raw, want string }{
		{"probe with stray LF", "PING\r\n\n", "+PONG\r\n"},
		{"probe with stray CRLF", "PING\r\n\r\n", "+PONG\r\n"},
		{"inline LF only", "PING\n\n", "+PONG\r\n"},
		{"two pings then half a multibulk", "PING\r\nPING a\r\n*1\r\n$4\r\nPI", "+PONG\r\n$1\r\na\r\n"},
		{"half an inline command", "PING\r\nPI", "+PONG\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, addr)
			c.send(tc.raw)
			c.expect(tc.want) // fails after the 5 s read deadline if held back
		})
	}
}
