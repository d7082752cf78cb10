package link

import (
	"testing"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// BenchmarkPipelinedPing measures tagged, pipelined PINGs through one
// connection to a real redis-server (send all, then collect all replies in
// batches of 100, the way the runtime drives a link).
func BenchmarkPipelinedPing(b *testing.B) {
	srv := testutil.StartRedis(b)
	m := NewManager(Config{})
	defer m.Shutdown()
	if err := m.Dial(1, srv.Addr(), Cmd); err != nil {
		b.Fatal(err)
	}
	if _, ok := (<-m.Events()).(Connected); !ok {
		b.Fatal("no Connected")
	}
	args := []string{"PING"}
	b.ResetTimer()
	for i := 0; i < b.N; i += 100 {
		n := min(100, b.N-i)
		for j := range n {
			m.Send(1, Tag(i+j), args, 0)
		}
		for range n {
			if _, ok := (<-m.Events()).(Reply); !ok {
				b.Fatal("not a Reply")
			}
		}
	}
}
