package netlab

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestPortMapAndSYNCounter: a connection through the mapping reaches the
// destination from the mapping host's address (not counted); a direct one
// is counted with its source; a closed mapping refuses.
func TestPortMapAndSYNCounter(t *testing.T) {
	l, hs := newLab(t, "a", "b", "nat")
	a, b, nat := hs[0], hs[1], hs[2]
	echoServer(t, b, 7000)
	cnt, err := l.CountSYN(b, []int{7000}, []string{nat.IP()})
	if err != nil {
		t.Fatal(err)
	}
	pm, err := l.PortMap(nat, 17000, b, 7000)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	echo := func(addr string) error {
		c, err := a.DialContext(ctx, "tcp", addr)
		if err != nil {
			return err
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Write([]byte("ping")); err != nil {
			return err
		}
		buf := make([]byte, 4)
		_, err = io.ReadFull(c, buf)
		return err
	}
	if err := echo(pm.Addr()); err != nil {
		t.Fatalf("through the mapping: %v", err)
	}
	if n, err := cnt.Packets(ctx); err != nil || n != 0 {
		t.Fatalf("after a mapped connection: counter %d (%v), want 0", n, err)
	}
	if pm.Conns() != 1 {
		t.Fatalf("mapping accepted %d connections, want 1", pm.Conns())
	}
	if err := echo(b.Addr(7000)); err != nil {
		t.Fatalf("direct: %v", err)
	}
	if n, err := cnt.Packets(ctx); err != nil || n != 1 {
		t.Fatalf("after a direct connection: counter %d (%v), want 1", n, err)
	}
	srcs, err := cnt.Sources(ctx)
	if err != nil || len(srcs) != 1 || !strings.HasPrefix(srcs[0], a.IP()+" . ") {
		t.Fatalf("sources %q (%v), want %s", srcs, err, a.IP())
	}
	pm.Close()
	if err := echo(pm.Addr()); err == nil {
		t.Fatal("a closed mapping still forwards")
	}
}
