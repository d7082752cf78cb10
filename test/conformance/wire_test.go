package conformance

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// client is a raw RESP connection to a sentinel.
type client struct {
	t    *testing.T
	conn net.Conn
	r    *resp.Reader
	w    *bufio.Writer
}

// dialSide connects to s; the connection is closed in t.Cleanup.
func dialSide(t *testing.T, s *side) *client {
	t.Helper()
	c, err := dialQuiet(s.addr())
	if err != nil {
		t.Fatalf("%s: dial: %v", s.name, err)
	}
	c.t = t
	t.Cleanup(c.close)
	return c
}

// dialQuiet connects without a test (for polling).
func dialQuiet(addr string) (*client, error) {
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return &client{conn: conn, r: resp.NewReader(conn), w: bufio.NewWriter(conn)}, nil
}

func (c *client) close() { _ = c.conn.Close() }

// multibulk encodes args as a RESP2 command.
func multibulk(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

// try sends one command and reads one reply.
func (c *client) try(args ...string) (resp.Value, error) {
	if err := c.send(multibulk(args...)); err != nil {
		return resp.Value{}, err
	}
	return c.read(5 * time.Second)
}

// send writes raw bytes.
func (c *client) send(raw string) error {
	_ = c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.w.WriteString(raw); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if err := c.w.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// read reads one value within d.
func (c *client) read(d time.Duration) (resp.Value, error) {
	_ = c.conn.SetReadDeadline(time.Now().Add(d))
	v, err := c.r.ReadValue()
	if err != nil {
		return v, fmt.Errorf("read: %w", err)
	}
	return v, nil
}

// do is try that fails the test on I/O errors.
func (c *client) do(args ...string) resp.Value {
	c.t.Helper()
	v, err := c.try(args...)
	if err != nil {
		c.t.Fatalf("%q: %v", args, err)
	}
	return v
}

// pairs returns the string pairs of a flat RESP2 map or a RESP3 map.
func pairs(v resp.Value) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(v.Elems); i += 2 {
		k, _ := v.Elems[i].Text()
		val, _ := v.Elems[i+1].Text()
		m[k] = val
	}
	return m
}

// keys returns the keys of a flat RESP2 map or a RESP3 map, in order.
func keys(v resp.Value) []string {
	var out []string
	for i := 0; i+1 < len(v.Elems); i += 2 {
		k, _ := v.Elems[i].Text()
		out = append(out, k)
	}
	return out
}
