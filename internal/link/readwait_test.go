package link

import (
	"bufio"
	"bytes"
	"net"
	"strconv"
	"strings"
	"testing"
)

// TestReadWaitBursts: replies arrive whether they come one per write
// (the reader parks between them) or many per write, more than the read
// buffer holds (bytes left in the socket after a full read must be read
// without a new readiness edge).
func TestReadWaitBursts(t *testing.T) {
	const n = 300
	tests := []struct {
		name      string
		oneByOne  bool // the test waits for each reply before the next send
		replySize int
	}{
		{"one reply per write", true, 10},
		{"burst of small replies", false, 10},
		{"burst of replies larger than the buffer", false, 3 * readBufSize},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addr := fakePeer(t, func(c net.Conn) {
				br := bufio.NewReader(c)
				var out bytes.Buffer
				for i := range n {
					// Each command is "*1\r\n$4\r\nPING\r\n": three lines.
					for range 3 {
						if _, err := br.ReadString('\n'); err != nil {
							return
						}
					}
					out.WriteString("+" + strconv.Itoa(i) + strings.Repeat("x", tc.replySize) + "\r\n")
					if tc.oneByOne || i == n-1 {
						if _, err := c.Write(out.Bytes()); err != nil {
							return
						}
						out.Reset()
					}
				}
			})
			m := newManager(t, Config{})
			mustConnect(t, m, 1, addr, Cmd)
			check := func(i int) {
				t.Helper()
				want := strconv.Itoa(i) + strings.Repeat("x", tc.replySize)
				if v := mustReply(t, m, 1, Tag(i)); v.Str != want {
					t.Fatalf("reply %d = %.20q..., want %.20q...", i, v.Str, want)
				}
			}
			for i := range n {
				if !m.Send(1, Tag(i), []string{"PING"}, 0) {
					t.Fatalf("Send %d refused", i)
				}
				if tc.oneByOne {
					check(i)
				}
			}
			if !tc.oneByOne {
				for i := range n {
					check(i)
				}
			}
		})
	}
}
