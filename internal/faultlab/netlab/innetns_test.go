package netlab

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// TestInNetnsDialsFromHost: connections dialled inside InNetns leave from
// the host (the peer sees its address, a cut of the host cuts them) and
// many dials share one call.
func TestInNetnsDialsFromHost(t *testing.T) {
	l, hs := newLab(t, "a", "b")
	a, b := hs[0], hs[1]
	ln, err := b.Listen("tcp", "0.0.0.0:7100")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peers := make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			peers <- c.RemoteAddr().(*net.TCPAddr).IP.String()
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					_, _ = c.Write([]byte(line))
				}
			}()
		}
	}()
	var conns []net.Conn
	err = a.InNetns(func() error {
		d := net.Dialer{Timeout: 2 * time.Second}
		for i := 0; i < 10; i++ {
			c, err := d.Dial("tcp", b.Addr(7100))
			if err != nil {
				return err
			}
			conns = append(conns, c)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("dial in a's namespace: %v", err)
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < 10; i++ {
		if ip := <-peers; ip != a.IP() {
			t.Fatalf("connection %d came from %s, want a (%s)", i, ip, a.IP())
		}
	}
	if err := roundTrip(conns[0], bufio.NewReader(conns[0]), 2*time.Second); err != nil {
		t.Fatalf("round trip: %v", err)
	}
	heal, err := l.CutBoth(a, b, Drop)
	if err != nil {
		t.Fatal(err)
	}
	defer heal()
	if err := roundTrip(conns[1], bufio.NewReader(conns[1]), 300*time.Millisecond); !isTimeout(err) {
		t.Fatalf("round trip across a cut: %v, want a timeout", err)
	}
}
