package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// tcpClient returns a client on one end of a loopback TCP connection and
// the other end.
func tcpClient(t *testing.T) (*client, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = peer.Close() })
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	c := &client{conn: conn, rc: rawConnOf(conn)}
	if c.rc == nil {
		t.Fatal("no RawConn for a TCP connection")
	}
	return c, peer
}

// TestWriteConnWaitsForRoom writes more than the socket buffers hold: the
// raw write must wait for writability (EAGAIN) and deliver every byte in
// order, as net.Conn.Write does.
func TestWriteConnWaitsForRoom(t *testing.T) {
	c, peer := tcpClient(t)
	payload := bytes.Repeat([]byte("0123456789abcdef"), 1<<20) // 16 MiB
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(peer, int64(len(payload))))
		got <- b
	}()
	n, err := c.writeConn(payload)
	if err != nil || n != len(payload) {
		t.Fatalf("writeConn: (%d, %v), want (%d, nil)", n, err, len(payload))
	}
	if b := <-got; !bytes.Equal(b, payload) {
		t.Fatalf("peer read %d bytes, not the %d written", len(b), len(payload))
	}
}

// TestWriteConnDeadline checks that the write deadline still bounds a
// write to a peer that does not read (client.setWriteDeadline).
func TestWriteConnDeadline(t *testing.T) {
	c, _ := tcpClient(t)
	if err := c.conn.SetWriteDeadline(time.Now().Add(100 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	n, err := c.writeConn(make([]byte, 64<<20))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("writeConn to a peer that does not read: (%d, %v), want a deadline error", n, err)
	}
}

// TestWriteConnClosed: a write on a closed connection fails.
func TestWriteConnClosed(t *testing.T) {
	c, _ := tcpClient(t)
	_ = c.conn.Close()
	if _, err := c.writeConn([]byte("+OK\r\n")); err == nil {
		t.Fatal("writeConn on a closed connection succeeded")
	}
}
