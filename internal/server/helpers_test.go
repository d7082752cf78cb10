package server

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// fakeBackend answers like a sentinel monitoring one master "mym".
type fakeBackend struct {
	mu        sync.Mutex
	calls     [][]string
	shutdowns int
	shutdown  chan struct{}
}

func newFakeBackend() *fakeBackend { return &fakeBackend{shutdown: make(chan struct{}, 1)} }

func (f *fakeBackend) Command(_ context.Context, _ *ClientInfo, args [][]byte) resp.Value {
	call := make([]string, len(args))
	for i, a := range args {
		call[i] = string(a)
	}
	f.mu.Lock()
	f.calls = append(f.calls, call)
	f.mu.Unlock()
	switch strings.ToLower(call[0]) {
	case "role":
		return resp.Array(resp.Bulk("sentinel"), resp.BulkArray("mym"))
	case "publish":
		if call[1] != "__sentinel__:hello" {
			return resp.Error("ERR Only HELLO messages are accepted by Sentinel instances.")
		}
		return resp.Integer(1)
	}
	switch strings.ToLower(call[1]) {
	case "get-master-addr-by-name":
		if call[2] == "mym" {
			return resp.BulkArray("127.0.0.1", "6379")
		}
		return resp.NullArray()
	case "master":
		return resp.Map(resp.Bulk("name"), resp.Bulk("mym"), resp.Bulk("flags"), resp.Bulk("master"))
	}
	return resp.Error("ERR unknown subcommand '" + call[1] + "'. Try SENTINEL HELP.")
}

func (f *fakeBackend) InfoSentinel() string {
	return "sentinel_masters:1\r\nsentinel_tilt:0\r\nsentinel_tilt_since_seconds:-1\r\n"
}

func (f *fakeBackend) Shutdown() {
	f.mu.Lock()
	f.shutdowns++
	f.mu.Unlock()
	select {
	case f.shutdown <- struct{}{}:
	default:
	}
}

// startServer starts a server on 127.0.0.1 with a kernel-chosen port.
func startServer(t testing.TB, cfg Config) (*Server, string, *fakeBackend) {
	t.Helper()
	cfg.Bind = []string{"127.0.0.1"}
	cfg.Port = 0
	fb := newFakeBackend()
	s, err := New(cfg, fb)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, s.Addrs()[0].String(), fb
}

// testConn is a raw client connection. A test uses either expect/readN
// (raw bytes) or value/do (parsed) on one connection, never both, because
// the parser buffers ahead.
type testConn struct {
	t    testing.TB
	conn net.Conn
	rd   *resp.Reader
}

func dial(t testing.TB, addr string) *testConn {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return &testConn{t: t, conn: conn, rd: resp.NewReader(conn)}
}

func (c *testConn) send(raw string) {
	c.t.Helper()
	if _, err := c.conn.Write([]byte(raw)); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// cmd sends one multibulk command.
func (c *testConn) cmd(args ...string) {
	c.t.Helper()
	b := resp.AppendArrayLen(nil, len(args))
	for _, a := range args {
		b = resp.AppendBulkString(b, a)
	}
	c.send(string(b))
}

// expect reads exactly len(want) bytes and compares them.
func (c *testConn) expect(want string) {
	c.t.Helper()
	got := c.readN(len(want))
	if got != want {
		c.t.Fatalf("reply mismatch\n got: %q\nwant: %q", got, want)
	}
}

func (c *testConn) readN(n int) string {
	c.t.Helper()
	_ = c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, n)
	got, err := io.ReadFull(c.conn, buf)
	if err != nil {
		c.t.Fatalf("read %d bytes (got %q): %v", n, buf[:got], err)
	}
	return string(buf)
}

// value reads one reply value.
func (c *testConn) value() resp.Value {
	c.t.Helper()
	_ = c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	v, err := c.rd.ReadValue()
	if err != nil {
		c.t.Fatalf("read value: %v", err)
	}
	return v
}

// do sends a command and returns its reply.
func (c *testConn) do(args ...string) resp.Value {
	c.t.Helper()
	c.cmd(args...)
	return c.value()
}

// expectClosed waits until the server closes the connection.
func (c *testConn) expectClosed() {
	c.t.Helper()
	_ = c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	for {
		_, err := c.conn.Read(buf)
		if err == nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			c.t.Fatal("connection still open after 5s")
		}
		return
	}
}

// bulkStrings flattens an array of bulk strings.
func bulkStrings(v resp.Value) []string {
	out := make([]string, len(v.Elems))
	for i, e := range v.Elems {
		out[i] = e.Str
	}
	return out
}

// encode renders a value for comparisons.
func encode(v resp.Value, proto int) string { return string(resp.AppendValue(nil, v, proto)) }
