package server

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// batchBackend answers a forwarded command only once n commands have
// reached it, as the core answers a burst of vote requests only once the
// config save covering all of them is done.
type batchBackend struct {
	*fakeBackend
	n        int
	mu       sync.Mutex
	got      []string
	released chan struct{}
}

func (b *batchBackend) note(args [][]byte) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.got = append(b.got, string(args[3]))
	if len(b.got) == b.n {
		close(b.released)
	}
	return string(args[3])
}

func (b *batchBackend) Command(ctx context.Context, c *ClientInfo, args [][]byte) resp.Value {
	return b.CommandAsync(ctx, c, args)()
}

func (b *batchBackend) CommandAsync(ctx context.Context, _ *ClientInfo, args [][]byte) func() resp.Value {
	port := b.note(args)
	return func() resp.Value {
		select {
		case <-b.released:
			return resp.Value{Kind: resp.KindBulkString, Str: port}
		case <-ctx.Done():
			return resp.Error("ERR client gone")
		}
	}
}

// TestPipelinedVotesShareOneWait: a peer pipelines one
// IS-MASTER-DOWN-BY-ADDR per master on one connection (fault lab B9L);
// every one must reach the backend before the first reply is awaited,
// and the replies (and a PING behind them) come back in request order.
// Waiting for each reply before reading the next request deadlocks here
// (and took one config save per master in the lab).
func TestPipelinedVotesShareOneWait(t *testing.T) {
	const n = 50
	bb := &batchBackend{fakeBackend: newFakeBackend(), n: n, released: make(chan struct{})}
	s, err := New(Config{Bind: []string{"127.0.0.1"}}, bb)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	c := dial(t, s.Addrs()[0].String())
	var b []byte
	for i := range n {
		args := []string{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", strconv.Itoa(7000 + i), "5", "abcdef"}
		b = resp.AppendArrayLen(b, len(args))
		for _, a := range args {
			b = resp.AppendBulkString(b, a)
		}
	}
	b = resp.AppendArrayLen(b, 1)
	b = resp.AppendBulkString(b, "PING")
	c.send(string(b))
	for i := range n {
		v := c.value()
		if want := strconv.Itoa(7000 + i); v.Str != want {
			t.Fatalf("reply %d = %+v, want %s (request order)", i, v, want)
		}
	}
	if v := c.value(); v.Str != "PONG" {
		t.Fatalf("PING behind the pipeline = %+v, want PONG", v)
	}
	// A lone command afterwards still works (synchronous path).
	bb.mu.Lock()
	bb.n = -1
	bb.mu.Unlock()
	if v := c.do("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "7999", "5", "abcdef"); v.Str != "7999" {
		t.Fatalf("lone command = %+v", v)
	}
}
