package server

import (
	"errors"
	"syscall"
	"testing"
)

// TestRawRead checks rawRead against the three answers a non-blocking
// socket gives the raw read path: bytes, EAGAIN when nothing is queued,
// and (0, nil) once the peer has closed.
func TestRawRead(t *testing.T) {
	c, peer := tcpClient(t)
	rc := c.rc
	// read runs rawRead inside RawConn.Read, as serveRaw does, waiting
	// for readability first when wait is set.
	read := func(p []byte, wait bool) (n int, err error) {
		first := true
		if cerr := rc.Read(func(fd uintptr) bool {
			n, err = rawRead(fd, p)
			if wait && first && errors.Is(err, syscall.EAGAIN) {
				first = false
				return false
			}
			return true
		}); cerr != nil {
			t.Fatal(cerr)
		}
		return n, err
	}

	buf := make([]byte, 64)
	if n, err := read(buf, false); n != 0 || !errors.Is(err, syscall.EAGAIN) {
		t.Fatalf("nothing sent: got (%d, %v), want (0, EAGAIN)", n, err)
	}
	if _, err := peer.Write([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
	if n, err := read(buf, true); err != nil || string(buf[:n]) != "PING\r\n" {
		t.Fatalf("got (%q, %v), want (\"PING\\r\\n\", nil)", buf[:n], err)
	}
	if n, err := read(nil, false); n != 0 || err != nil {
		t.Fatalf("empty buffer: got (%d, %v), want (0, nil)", n, err)
	}
	_ = peer.Close()
	if n, err := read(buf, true); n != 0 || err != nil {
		t.Fatalf("after the peer closed: got (%d, %v), want (0, nil)", n, err)
	}
}
