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

// TestRunScaleRealSentinel runs a tiny scale measurement against the real
// redis-sentinel: 4 masters on one redis-server pair, one sentinel started
// through testutil with the scale run's own readiness bound.
func TestRunScaleRealSentinel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	impl := RealSentinel("")
	if impl.Unavailable != "" {
		t.Skip(impl.Unavailable)
	}
	env := NewEnv(t.Logf)
	var r ScaleResult
	err := env.Run(func() error {
		var err error
		r, err = RunScale(env, impl, ScaleOpts{Masters: 4, NamesPerServer: 4, Window: 200 * time.Millisecond, Ready: 30 * time.Second})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.FirstPongMs <= 0 || r.HealthyMs < r.FirstPongMs {
		t.Fatalf("result %+v: want 0 < first PONG <= healthy", r)
	}
}
