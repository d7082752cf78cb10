package harness

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeSentinel answers every command with the fixed RESP reply.
func fakeSentinel(t *testing.T, reply []byte) string {
	t.Helper()
	return fakeServer(t, func(c net.Conn) {
		if _, err := connFrom(c).Read(); err == nil {
			c.Write(reply)
		}
	})
}

func mastersReply(ms ...[]string) []byte {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(ms)) + "\r\n")
	for _, m := range ms {
		b.Write(EncodeCommand(m...))
	}
	return []byte(b.String())
}

func TestScaleHealthy(t *testing.T) {
	ok := []string{"name", "m0", "flags", "master", "num-slaves", "1", "num-other-sentinels", "2"}
	tests := []struct {
		name    string
		reply   []byte
		n       int
		wantErr string
	}{
		{"healthy", mastersReply(ok, ok), 2, ""},
		{"missing master", mastersReply(ok), 2, "1 masters, want 2"},
		{"sdown", mastersReply(ok, []string{"name", "m1", "flags", "s_down,master", "num-slaves", "1", "num-other-sentinels", "2"}), 2, "1 masters not healthy yet (first m1)"},
		{"no replica yet", mastersReply([]string{"name", "m1", "flags", "master", "num-slaves", "0", "num-other-sentinels", "2"}), 1, "not healthy"},
		{"sentinels not discovered", mastersReply([]string{"name", "m1", "flags", "master", "num-slaves", "1", "num-other-sentinels", "1"}), 1, "not healthy"},
		{"error reply", []byte("-ERR unknown command\r\n"), 1, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := fakeSentinel(t, tt.reply)
			err := scaleHealthy(addr, tt.n, 2, 2*time.Second)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("scaleHealthy: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("scaleHealthy err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}
