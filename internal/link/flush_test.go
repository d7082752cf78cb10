package link

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// TestDeferredFlush: Deferred commands stay queued (no writer) until
// Flush or a plain Send, then leave together and get their replies in
// order.
func TestDeferredFlush(t *testing.T) {
	cmds := [][]string{{"PING"}, {"INFO"}, {"PUBLISH", "__sentinel__:hello", "x"}}
	var wire []byte
	for _, a := range cmds {
		wire = appendCommand(wire, a)
	}
	tests := []struct {
		name      string
		lastPlain bool // the last command is sent without Deferred
	}{
		{"all deferred, written by Flush", false},
		{"a plain send writes the held ones", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan []byte, 1)
			addr := fakePeer(t, func(c net.Conn) {
				buf := make([]byte, len(wire))
				if _, err := io.ReadFull(c, buf); err != nil {
					got <- nil
					return
				}
				got <- buf
				_, _ = c.Write([]byte("+A\r\n+B\r\n+C\r\n"))
			})
			m := newManager(t, Config{})
			mustConnect(t, m, 1, addr, Cmd)
			for i, a := range cmds {
				flags := Deferred
				if tc.lastPlain && i == len(cmds)-1 {
					flags = 0
				}
				if !m.Send(1, Tag(i), a, flags) {
					t.Fatalf("Send %d refused", i)
				}
			}
			if !tc.lastPlain {
				m.mu.Lock()
				c := m.conns[1]
				m.mu.Unlock()
				c.mu.Lock()
				held, writing, queued := c.held, c.writing, len(c.out)
				c.mu.Unlock()
				if !held || writing || queued != len(wire) {
					t.Fatalf("before Flush: held=%v writing=%v queued=%d bytes, want true false %d", held, writing, queued, len(wire))
				}
				m.Flush()
			}
			if b := <-got; !bytes.Equal(b, wire) {
				t.Fatalf("peer read %q, want %q", b, wire)
			}
			for i, want := range []string{"A", "B", "C"} {
				if v := mustReply(t, m, 1, Tag(i)); v.Str != want {
					t.Fatalf("reply %d = %#v, want %s", i, v, want)
				}
			}
			m.Flush() // nothing held any more: a no-op
			m.mu.Lock()
			n := len(m.held)
			m.mu.Unlock()
			if n != 0 {
				t.Fatalf("%d connections still held after Flush", n)
			}
		})
	}
}

// TestFlushSocketFull: Flush never blocks; output the socket does not
// take at once (a peer that is not reading yet) is written later by a
// writer goroutine, in order, followed by what was sent meanwhile.
func TestFlushSocketFull(t *testing.T) {
	tests := []struct {
		name  string
		cmds  int // deferred PUBLISH commands of 64 KiB before Flush
		after int // plain commands sent after Flush
	}{
		{"fits in the socket", 2, 1},
		{"socket full: writer takes the tail", 512, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			payload := string(bytes.Repeat([]byte("p"), 64<<10))
			var wire []byte
			for range tc.cmds {
				wire = appendCommand(wire, []string{"PUBLISH", "ch", payload})
			}
			for i := range tc.after {
				wire = appendCommand(wire, []string{"PING", string(rune('a' + i))})
			}
			start := make(chan struct{})
			got := make(chan []byte, 1)
			addr := fakePeer(t, func(c net.Conn) {
				<-start
				_ = c.SetReadDeadline(time.Now().Add(waitFor))
				buf := make([]byte, len(wire))
				_, err := io.ReadFull(c, buf)
				if err != nil {
					buf = nil
				}
				got <- buf
			})
			m := newManager(t, Config{})
			mustConnect(t, m, 1, addr, Cmd)
			for i := range tc.cmds {
				m.Send(1, Tag(i), []string{"PUBLISH", "ch", payload}, Deferred)
			}
			m.Flush() // must return although the peer does not read
			for i := range tc.after {
				m.Send(1, Tag(tc.cmds+i), []string{"PING", string(rune('a' + i))}, 0)
			}
			close(start)
			if b := <-got; !bytes.Equal(b, wire) {
				t.Fatalf("peer read %d bytes, want %d (equal: %v)", len(b), len(wire), bytes.Equal(b, wire))
			}
		})
	}
}
