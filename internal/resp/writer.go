package resp

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Protocol versions.
const (
	// RESP2 is the default protocol of a new connection.
	RESP2 = 2
	// RESP3 is selected with HELLO 3.
	RESP3 = 3
)

// AppendValue appends v rendered for protocol proto (RESP2 or RESP3; any
// value other than 3 means RESP2). RESP2 downgrades RESP3 types the way
// Redis does: map → flat array, set and push → array, double, big number
// and verbatim → bulk string, boolean → integer 1/0, every null → $-1
// except the null array (*-1); attributes are dropped.
func AppendValue(dst []byte, v Value, proto int) []byte {
	return appendValue(dst, &v, proto)
}

// appendValue works on a pointer: Value is large, and replies such as
// SENTINEL MASTER hold dozens of elements.
func appendValue(dst []byte, v *Value, proto int) []byte {
	if proto == RESP3 && len(v.Attrs) > 0 {
		dst = appendHeader(dst, '|', int64(len(v.Attrs)/2))
		dst = appendElems(dst, v.Attrs[:len(v.Attrs)/2*2], proto)
	}
	switch v.Kind {
	case KindSimpleString:
		return AppendSimple(dst, v.Str)
	case KindError:
		if proto == RESP3 && strings.ContainsAny(v.Str, "\r\n") {
			dst = appendHeader(dst, '!', int64(len(v.Str)))
			dst = append(dst, v.Str...)
			return append(dst, '\r', '\n')
		}
		return AppendError(dst, v.Str)
	case KindInteger:
		return AppendInt(dst, v.Int)
	case KindBulkString:
		return AppendBulkString(dst, v.Str)
	case KindNullBulk, KindNull:
		return AppendNullBulk(dst, proto)
	case KindNullArray:
		return AppendNullArray(dst, proto)
	case KindArray:
		dst = appendHeader(dst, '*', int64(len(v.Elems)))
		return appendElems(dst, v.Elems, proto)
	case KindMap:
		pairs := v.Elems[:len(v.Elems)/2*2]
		dst = AppendMapLen(dst, len(pairs)/2, proto)
		return appendElems(dst, pairs, proto)
	case KindSet:
		dst = AppendSetLen(dst, len(v.Elems), proto)
		return appendElems(dst, v.Elems, proto)
	case KindPush:
		dst = AppendPushLen(dst, len(v.Elems), proto)
		return appendElems(dst, v.Elems, proto)
	case KindDouble:
		return AppendDouble(dst, v.Float, proto)
	case KindBoolean:
		if proto == RESP3 {
			if v.Bool {
				return append(dst, "#t\r\n"...)
			}
			return append(dst, "#f\r\n"...)
		}
		if v.Bool {
			return AppendInt(dst, 1)
		}
		return AppendInt(dst, 0)
	case KindBigNumber:
		if proto == RESP3 {
			dst = append(dst, '(')
			dst = append(dst, v.Str...)
			return append(dst, '\r', '\n')
		}
		return AppendBulkString(dst, v.Str)
	case KindVerbatim:
		if proto == RESP3 {
			format := "txt"
			if len(v.Format) == 3 {
				format = v.Format
			}
			dst = appendHeader(dst, '=', int64(len(v.Str)+4))
			dst = append(dst, format...)
			dst = append(dst, ':')
			dst = append(dst, v.Str...)
			return append(dst, '\r', '\n')
		}
		return AppendBulkString(dst, v.Str)
	}
	return AppendError(dst, fmt.Sprintf("ERR invalid reply kind %d", v.Kind))
}

func appendElems(dst []byte, elems []Value, proto int) []byte {
	for i := range elems {
		dst = appendValue(dst, &elems[i], proto)
	}
	return dst
}

func appendHeader(dst []byte, typ byte, n int64) []byte {
	dst = append(dst, typ)
	dst = strconv.AppendInt(dst, n, 10)
	return append(dst, '\r', '\n')
}

// appendLine appends s with CR and LF replaced by spaces, so that a status
// or error line can never break the framing (Redis does the same for errors).
func appendLine(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		dst = append(dst, c)
	}
	return append(dst, '\r', '\n')
}

// AppendSimple appends a status reply "+s\r\n".
func AppendSimple(dst []byte, s string) []byte {
	return appendLine(append(dst, '+'), s)
}

// AppendError appends an error reply "-msg\r\n".
func AppendError(dst []byte, msg string) []byte {
	return appendLine(append(dst, '-'), msg)
}

// AppendInt appends an integer reply ":n\r\n".
func AppendInt(dst []byte, n int64) []byte { return appendHeader(dst, ':', n) }

// AppendBulk appends a bulk string reply.
func AppendBulk(dst, b []byte) []byte {
	dst = appendHeader(dst, '$', int64(len(b)))
	dst = append(dst, b...)
	return append(dst, '\r', '\n')
}

// AppendBulkString appends a bulk string reply.
func AppendBulkString(dst []byte, s string) []byte {
	dst = appendHeader(dst, '$', int64(len(s)))
	dst = append(dst, s...)
	return append(dst, '\r', '\n')
}

// AppendBulkInt appends n as a bulk string (Redis addReplyBulkLongLong).
func AppendBulkInt(dst []byte, n int64) []byte {
	var tmp [20]byte
	return AppendBulk(dst, strconv.AppendInt(tmp[:0], n, 10))
}

// AppendArrayLen appends an array header "*n\r\n".
func AppendArrayLen(dst []byte, n int) []byte { return appendHeader(dst, '*', int64(n)) }

// AppendMapLen appends a map header: "%n" in RESP3, "*2n" in RESP2.
func AppendMapLen(dst []byte, pairs int, proto int) []byte {
	if proto == RESP3 {
		return appendHeader(dst, '%', int64(pairs))
	}
	return appendHeader(dst, '*', 2*int64(pairs))
}

// AppendSetLen appends a set header: "~n" in RESP3, "*n" in RESP2.
func AppendSetLen(dst []byte, n int, proto int) []byte {
	if proto == RESP3 {
		return appendHeader(dst, '~', int64(n))
	}
	return appendHeader(dst, '*', int64(n))
}

// AppendPushLen appends a push header: ">n" in RESP3, "*n" in RESP2.
func AppendPushLen(dst []byte, n int, proto int) []byte {
	if proto == RESP3 {
		return appendHeader(dst, '>', int64(n))
	}
	return appendHeader(dst, '*', int64(n))
}

// AppendNullBulk appends the null bulk: "$-1" in RESP2, "_" in RESP3.
func AppendNullBulk(dst []byte, proto int) []byte {
	if proto == RESP3 {
		return append(dst, "_\r\n"...)
	}
	return append(dst, "$-1\r\n"...)
}

// AppendNullArray appends the null array: "*-1" in RESP2, "_" in RESP3.
func AppendNullArray(dst []byte, proto int) []byte {
	if proto == RESP3 {
		return append(dst, "_\r\n"...)
	}
	return append(dst, "*-1\r\n"...)
}

// AppendDouble appends a double: ",f" in RESP3, a bulk string in RESP2,
// formatted like Redis' "%.17g" with inf, -inf and nan spelled out.
func AppendDouble(dst []byte, f float64, proto int) []byte {
	var tmp [32]byte
	var s []byte
	switch {
	case math.IsInf(f, 1):
		s = append(tmp[:0], "inf"...)
	case math.IsInf(f, -1):
		s = append(tmp[:0], "-inf"...)
	case math.IsNaN(f):
		s = append(tmp[:0], "nan"...)
	default:
		s = strconv.AppendFloat(tmp[:0], f, 'g', 17, 64)
	}
	if proto == RESP3 {
		dst = append(dst, ',')
		dst = append(dst, s...)
		return append(dst, '\r', '\n')
	}
	return AppendBulk(dst, s)
}

// Writer buffers replies for one connection and renders values in the
// connection's protocol version. It is not safe for concurrent use.
type Writer struct {
	w     io.Writer
	buf   []byte
	proto int
}

// NewWriter returns a RESP2 Writer on w.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: w, buf: make([]byte, 0, 4096), proto: RESP2}
}

// SetProto selects RESP2 or RESP3 for the following values.
func (w *Writer) SetProto(proto int) {
	if proto == RESP3 {
		w.proto = RESP3
		return
	}
	w.proto = RESP2
}

// Proto returns the protocol version in use.
func (w *Writer) Proto() int { return w.proto }

// WriteValue buffers v.
func (w *Writer) WriteValue(v Value) { w.buf = appendValue(w.buf, &v, w.proto) }

// WriteRaw buffers already encoded bytes.
func (w *Writer) WriteRaw(b []byte) { w.buf = append(w.buf, b...) }

// Append lets a caller render with the Append* helpers directly:
// w.Append(func(b []byte, proto int) []byte { return resp.AppendMapLen(b, 2, proto) }).
func (w *Writer) Append(f func(dst []byte, proto int) []byte) { w.buf = f(w.buf, w.proto) }

// Buffered returns the number of bytes waiting for Flush.
func (w *Writer) Buffered() int { return len(w.buf) }

// Flush writes the buffered bytes to the underlying writer.
func (w *Writer) Flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.w.Write(w.buf)
	if cap(w.buf) > 1<<20 {
		w.buf = make([]byte, 0, 4096) // do not keep a huge buffer alive
	} else {
		w.buf = w.buf[:0]
	}
	if err != nil {
		return fmt.Errorf("resp: flush: %w", err)
	}
	return nil
}
