package server

import (
	"net"
	"testing"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// cachingBackend is fakeBackend with the AddrCache fast path, as the
// runtime has it: "mym" is answered from a snapshot.
type cachingBackend struct {
	*fakeBackend
	v resp.Value
}

func (b *cachingBackend) CachedMasterAddr(name []byte) (resp.Value, bool) {
	if string(name) != "mym" {
		return resp.Value{}, false
	}
	return b.v, true
}

// TestExecCachedAddrAllocs checks that a cache hit of SENTINEL
// GET-MASTER-ADDR-BY-NAME, the query every client asks, allocates nothing
// between the parsed command and its rendered reply.
func TestExecCachedAddrAllocs(t *testing.T) {
	c := execClient(t)
	args := [][]byte{[]byte("SENTINEL"), []byte("get-master-addr-by-name"), []byte("mym")}
	allocs := testing.AllocsPerRun(1000, func() {
		c.exec(args)
		c.pending = c.pending[:0]
	})
	if allocs != 0 {
		t.Fatalf("cached GET-MASTER-ADDR-BY-NAME: %v allocations per command, want 0", allocs)
	}
}

// BenchmarkExecCachedAddr measures the dispatch of a cached SENTINEL
// GET-MASTER-ADDR-BY-NAME: lookup, ACL, cache, rendering (no socket).
func BenchmarkExecCachedAddr(b *testing.B) {
	c := execClient(b)
	args := [][]byte{[]byte("SENTINEL"), []byte("get-master-addr-by-name"), []byte("mym")}
	b.ReportAllocs()
	for b.Loop() {
		c.exec(args)
		c.pending = c.pending[:0]
	}
}

// execClient returns a client of a server whose backend has the address
// cache, not connected to anything: exec only renders into pending.
func execClient(t testing.TB) *client {
	s, err := New(Config{}, &cachingBackend{fakeBackend: newFakeBackend(), v: resp.BulkArray("127.0.0.1", "6379")})
	if err != nil {
		t.Fatal(err)
	}
	a, b := net.Pipe()
	t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
	c := newClient(s, a)
	t.Cleanup(c.cancel)
	return c
}
