package client

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// This file is a deliberately small RESP2 client used only for sentinel
// queries and ROLE probes: a few commands per connection, explicit
// deadlines, hard limits on what a (possibly hostile) peer can make us
// allocate. Data commands go through go-redis.

const (
	maxBulkLen   = 1 << 20 // 1 MiB: sentinel replies and INFO are far smaller
	maxArrayLen  = 1 << 16
	maxReplyDeep = 8
	// A header or simple-string line must fit the 4 KiB read buffer of
	// newRespConn (readLine: "line too long").
	readBufSize = 4096
)

// errProtocol marks a malformed reply.
var errProtocol = errors.New("client: protocol error")

// replyError is an error reply ("-ERR ...") from a peer.
type replyError string

func (e replyError) Error() string { return string(e) }

// reply is one decoded RESP value.
type reply struct {
	str  string  // simple string, bulk string, error text or integer text
	arr  []reply // array elements
	null bool    // null bulk or null array
	typ  byte    // '+', '-', ':', '$', '*'
	push bool    // a RESP3 push ('>' frame, read as an array)
}

// respConn is a connection speaking RESP2 with per-call deadlines.
type respConn struct {
	net.Conn
	br *bufio.Reader
}

func newRespConn(c net.Conn) *respConn {
	return &respConn{Conn: c, br: bufio.NewReaderSize(c, readBufSize)}
}

// appendCommand encodes args as a RESP array of bulk strings with
// internal/resp's writer (the one the server replies with).
func appendCommand(b []byte, args ...string) []byte {
	b = resp.AppendArrayLen(b, len(args))
	for _, a := range args {
		b = resp.AppendBulkString(b, a)
	}
	return b
}

// do writes all commands in one write (a pipeline) and reads one reply per
// command. Error replies are returned in place (typ '-'), not as err; err is
// only for I/O and protocol failures.
func (c *respConn) do(deadline time.Time, cmds ...[]string) ([]reply, error) {
	if err := c.SetDeadline(deadline); err != nil {
		return nil, fmt.Errorf("set deadline: %w", err)
	}
	var buf []byte
	for _, cmd := range cmds {
		buf = appendCommand(buf, cmd...)
	}
	if _, err := c.Write(buf); err != nil {
		return nil, fmt.Errorf("write: %w", err)
	}
	out := make([]reply, 0, len(cmds))
	for range cmds {
		r, _, err := readReply(c.br, 0)
		if err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
		out = append(out, r)
	}
	return out, nil
}

// readLine reads a CRLF-terminated line without the terminator.
func readLine(br *bufio.Reader) (string, error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return "", fmt.Errorf("%w: line too long", errProtocol)
		}
		return "", err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return "", fmt.Errorf("%w: line without CRLF", errProtocol)
	}
	return string(line[:len(line)-2]), nil
}

// readReply decodes one value. started reports whether any byte of the
// value was consumed (so a timeout with started == false leaves the stream
// at a message boundary).
func readReply(br *bufio.Reader, depth int) (r reply, started bool, err error) {
	if depth > maxReplyDeep {
		return reply{}, true, fmt.Errorf("%w: nesting too deep", errProtocol)
	}
	t, err := br.ReadByte()
	if err != nil {
		return reply{}, false, err
	}
	line, err := readLine(br)
	if err != nil {
		return reply{}, true, err
	}
	switch t {
	case '+', '-', ':':
		return reply{typ: t, str: line}, true, nil
	case '_': // RESP3 null
		return reply{typ: '$', null: true}, true, nil
	case '$':
		n, err := strconv.Atoi(line)
		if err != nil || n < -1 || n > maxBulkLen {
			return reply{}, true, fmt.Errorf("%w: bad bulk length %q", errProtocol, line)
		}
		if n == -1 {
			return reply{typ: '$', null: true}, true, nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(br, b); err != nil {
			return reply{}, true, err
		}
		if b[n] != '\r' || b[n+1] != '\n' {
			return reply{}, true, fmt.Errorf("%w: bulk without CRLF", errProtocol)
		}
		return reply{typ: '$', str: string(b[:n])}, true, nil
	case '*', '%', '>': // RESP3 maps and pushes read as flat arrays
		n, err := strconv.Atoi(line)
		if err != nil || n < -1 || n > maxArrayLen {
			return reply{}, true, fmt.Errorf("%w: bad array length %q", errProtocol, line)
		}
		if n == -1 {
			return reply{typ: '*', null: true}, true, nil
		}
		if t == '%' {
			n *= 2
		}
		arr := make([]reply, 0, min(n, 64))
		for i := 0; i < n; i++ {
			e, _, err := readReply(br, depth+1)
			if err != nil {
				return reply{}, true, err
			}
			arr = append(arr, e)
		}
		return reply{typ: '*', arr: arr, push: t == '>'}, true, nil
	default:
		return reply{}, true, fmt.Errorf("%w: unexpected type byte %q", errProtocol, t)
	}
}

// err returns the reply as an error when it is an error reply.
func (r reply) err() error {
	if r.typ == '-' {
		return replyError(r.str)
	}
	return nil
}

// fieldMap turns a flat key/value array (SENTINEL MASTER, SENTINEL
// REPLICAS entries) into a map. Non-string elements are skipped.
func (r reply) fieldMap() map[string]string {
	m := make(map[string]string, len(r.arr)/2)
	for i := 0; i+1 < len(r.arr); i += 2 {
		m[r.arr[i].str] = r.arr[i+1].str
	}
	return m
}
