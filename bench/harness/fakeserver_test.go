package harness

import (
	"net"
	"testing"
)

// fakeServer listens on a kernel-chosen loopback port and hands every
// accepted connection to serve, one at a time, closing it afterwards. The
// listener is closed and the goroutine awaited in t.Cleanup.
func fakeServer(t *testing.T, serve func(c net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { l.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			serve(c)
			c.Close()
		}
	}()
	return l.Addr().String()
}
