package harness

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// Limits on replies read from a sentinel: the harness never trusts a length
// prefix beyond these.
const (
	maxBulkLen  = 1 << 20
	maxArrayLen = 1 << 20
	maxDepth    = 8
)

// ErrProtocol is returned when a reply is not valid RESP2 or exceeds the
// harness's limits.
var ErrProtocol = errors.New("resp protocol error")

// RedisError is an error reply (-ERR ...) from the server.
type RedisError string

// Error returns the error text as the server sent it.
func (e RedisError) Error() string { return string(e) }

// Conn is a minimal RESP2 connection. The harness uses its own client, not
// go-redis, so that what is measured is the sentinel and not a client's
// handshake (HELLO, CLIENT SETINFO) or retry policy.
type Conn struct {
	c net.Conn
	r *bufio.Reader
}

// Dial connects to addr within timeout.
func Dial(addr string, timeout time.Duration) (*Conn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return &Conn{c: c, r: bufio.NewReader(c)}, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.c.Close() }

// SetDeadline sets the read and write deadline of the connection.
func (c *Conn) SetDeadline(t time.Time) error { return c.c.SetDeadline(t) }

// Send writes one command as a RESP array of bulk strings.
func (c *Conn) Send(args ...string) error {
	_, err := c.c.Write(EncodeCommand(args...))
	if err != nil {
		return fmt.Errorf("send %s: %w", strings.Join(args, " "), err)
	}
	return nil
}

// Do sends a command and reads its reply, within timeout.
func (c *Conn) Do(timeout time.Duration, args ...string) (any, error) {
	if err := c.c.SetDeadline(time.Now().Add(timeout)); err != nil {
		return nil, fmt.Errorf("set deadline: %w", err)
	}
	if err := c.Send(args...); err != nil {
		return nil, err
	}
	v, err := c.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(args, " "), err)
	}
	return v, nil
}

// Read reads one reply. Strings and bulk strings become string, integers
// int64, arrays []any, nil replies nil, and error replies a RedisError value
// (returned as the value, not as the error).
func (c *Conn) Read() (any, error) { return readValue(c.r, 0) }

// EncodeCommand encodes args as a RESP array of bulk strings.
func EncodeCommand(args ...string) []byte {
	var b []byte
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, '\r', '\n')
	for _, a := range args {
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(a)), 10)
		b = append(b, '\r', '\n')
		b = append(b, a...)
		b = append(b, '\r', '\n')
	}
	return b
}

func readLine(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return "", fmt.Errorf("%w: line without CRLF", ErrProtocol)
	}
	return line[:len(line)-2], nil
}

func readValue(r *bufio.Reader, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: nesting deeper than %d", ErrProtocol, maxDepth)
	}
	line, err := readLine(r)
	if err != nil {
		return nil, err
	}
	if line == "" {
		return nil, fmt.Errorf("%w: empty line", ErrProtocol)
	}
	body := line[1:]
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return RedisError(body), nil
	case ':':
		n, err := strconv.ParseInt(body, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: bad integer %q", ErrProtocol, body)
		}
		return n, nil
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 || n > maxBulkLen {
			return nil, fmt.Errorf("%w: bad bulk length %q", ErrProtocol, body)
		}
		if n == -1 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		if buf[n] != '\r' || buf[n+1] != '\n' {
			return nil, fmt.Errorf("%w: bulk without CRLF", ErrProtocol)
		}
		return string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 || n > maxArrayLen {
			return nil, fmt.Errorf("%w: bad array length %q", ErrProtocol, body)
		}
		if n == -1 {
			return nil, nil
		}
		out := make([]any, 0, min(n, 1024))
		for i := 0; i < n; i++ {
			v, err := readValue(r, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%w: unexpected type byte %q", ErrProtocol, line[0])
	}
}
