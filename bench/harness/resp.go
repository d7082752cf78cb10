package harness

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// replyLimits bound replies read from a sentinel: the harness never trusts
// a length prefix beyond these.
var replyLimits = resp.Limits{
	MaxBulkLen:  1 << 20,
	MaxArrayLen: 1 << 20,
	MaxDepth:    8,
}

// ErrProtocol is returned when a reply is not valid RESP2 or exceeds the
// harness's limits. The error also matches resp.ErrProtocol when the codec
// refused the bytes.
var ErrProtocol = errors.New("resp protocol error")

// RedisError is an error reply (-ERR ...) from the server.
type RedisError string

// Error returns the error text as the server sent it.
func (e RedisError) Error() string { return string(e) }

// Conn is a minimal RESP2 connection. The harness uses its own client, not
// go-redis, so that what is measured is the sentinel and not a client's
// handshake (HELLO, CLIENT SETINFO) or retry policy. Replies are decoded by
// internal/resp, the codec the server itself uses.
type Conn struct {
	c net.Conn
	r *resp.Reader
}

// Dial connects to addr within timeout.
func Dial(addr string, timeout time.Duration) (*Conn, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return &Conn{c: c, r: resp.NewReaderLimits(c, replyLimits)}, nil
}

// connFrom reads replies from r (tests and benchmarks, no network).
func connFrom(r io.Reader) *Conn { return &Conn{r: resp.NewReaderLimits(r, replyLimits)} }

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
// (returned as the value, not as the error). RESP3-only types are refused
// with ErrProtocol: the harness never sends HELLO 3.
func (c *Conn) Read() (any, error) {
	v, err := c.r.ReadValue()
	if err != nil {
		if errors.Is(err, resp.ErrProtocol) {
			return nil, fmt.Errorf("%w: %w", ErrProtocol, err)
		}
		return nil, err
	}
	return fromValue(v)
}

// EncodeCommand encodes args as a RESP array of bulk strings.
func EncodeCommand(args ...string) []byte {
	b := resp.AppendArrayLen(nil, len(args))
	for _, a := range args {
		b = resp.AppendBulkString(b, a)
	}
	return b
}

// fromValue turns a RESP2 value into the harness's plain Go values.
func fromValue(v resp.Value) (any, error) {
	switch v.Kind {
	case resp.KindSimpleString, resp.KindBulkString:
		return v.Str, nil
	case resp.KindError:
		return RedisError(v.Str), nil
	case resp.KindInteger:
		return v.Int, nil
	case resp.KindNullBulk, resp.KindNullArray:
		return nil, nil
	case resp.KindArray:
		out := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			x, err := fromValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: unexpected RESP3 %s reply", ErrProtocol, v.Kind)
}
