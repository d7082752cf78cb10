package resp

import (
	"math"
	"strconv"
	"unsafe"
)

// ReadValue reads one complete RESP2 or RESP3 value (a reply from
// redis-server or a sentinel). RESP3 attributes ("|n") are attached to the
// value that follows them in Value.Attrs. Streamed RESP3 strings and
// aggregates ("$?", "*?") are refused with a protocol error. Limits:
// MaxBulkLen, MaxArrayLen, MaxDepth and MaxInlineLen (per header line).
func (r *Reader) ReadValue() (Value, error) {
	return r.readValue(0)
}

func (r *Reader) readValue(depth int) (Value, error) {
	line, err := r.readLine(r.lim.MaxInlineLen, errTooBigLine)
	if err != nil {
		return Value{}, err
	}
	if len(line) == 0 {
		return Value{}, errEmptyLine
	}
	typ, body := line[0], line[1:]
	switch typ {
	case '+':
		return Value{Kind: KindSimpleString, Str: string(body)}, nil
	case '-':
		return Value{Kind: KindError, Str: string(body)}, nil
	case ':':
		n, ok := parseInt(body)
		if !ok {
			return Value{}, errInvalidInteger
		}
		return Value{Kind: KindInteger, Int: n}, nil
	case '_':
		if len(body) != 0 {
			return Value{}, protoErr("invalid null")
		}
		return Value{Kind: KindNull}, nil
	case '#':
		if len(body) != 1 || (body[0] != 't' && body[0] != 'f') {
			return Value{}, errInvalidBoolean
		}
		return Value{Kind: KindBoolean, Bool: body[0] == 't'}, nil
	case ',':
		f, ok := parseDouble(body)
		if !ok {
			return Value{}, errInvalidDouble
		}
		return Value{Kind: KindDouble, Float: f}, nil
	case '(':
		if !validBigNumber(body) {
			return Value{}, errInvalidBigNumber
		}
		return Value{Kind: KindBigNumber, Str: string(body)}, nil
	case '$', '!', '=':
		return r.readBlob(typ, body)
	case '*', '%', '~', '>', '|':
		return r.readAggregate(typ, body, depth)
	}
	return Value{}, errUnknownType(typ)
}

// readBlob reads the payload of a bulk string, blob error or verbatim.
func (r *Reader) readBlob(typ byte, body []byte) (Value, error) {
	if len(body) == 1 && body[0] == '?' {
		return Value{}, errStreamedNotSupported
	}
	n, ok := parseInt(body)
	if !ok || n < -1 {
		return Value{}, errInvalidBulkLen
	}
	if n == -1 {
		if typ != '$' {
			return Value{}, errInvalidBulkLen
		}
		return Value{Kind: KindNullBulk}, nil
	}
	if n > r.lim.MaxBulkLen {
		return Value{}, errInvalidBulkLen
	}
	if typ == '$' {
		if s, ok, err := r.knownBulk(n); ok {
			if err != nil {
				return Value{}, err
			}
			return Value{Kind: KindBulkString, Str: s}, nil
		}
	}
	// Sized up front only up to bulkChunk: the announced length is not
	// trusted for the allocation (readPayload grows with what arrives).
	data, err := r.readPayload(make([]byte, 0, min(n, bulkChunk)), n)
	if err != nil {
		return Value{}, err
	}
	if err := r.expectCRLF(); err != nil {
		return Value{}, err
	}
	s := ownedString(data)
	switch typ {
	case '!':
		return Value{Kind: KindError, Str: s}, nil
	case '=':
		if len(s) < 4 || s[3] != ':' {
			return Value{}, errInvalidVerbatim
		}
		return Value{Kind: KindVerbatim, Format: s[:3], Str: s[4:]}, nil
	}
	return Value{Kind: KindBulkString, Str: s}, nil
}

// ownedString returns b as a string without copying. b must be a fresh
// allocation that nothing else references or modifies afterwards (the
// payload readBlob just read): one allocation per bulk instead of two.
func ownedString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// expectCRLF consumes the "\r\n" that ends a blob.
func (r *Reader) expectCRLF() error {
	for r.w-r.r < 2 {
		if err := r.fill(); err != nil {
			return unexpectedEOF(err)
		}
	}
	if r.buf[r.r] != '\r' || r.buf[r.r+1] != '\n' {
		return errBadCRLF
	}
	r.r += 2
	return nil
}

// readAggregate reads arrays, maps, sets, pushes and attributes.
func (r *Reader) readAggregate(typ byte, body []byte, depth int) (Value, error) {
	if len(body) == 1 && body[0] == '?' {
		return Value{}, errStreamedNotSupported
	}
	n, ok := parseInt(body)
	if !ok || n < -1 {
		return Value{}, errInvalidArrayLen
	}
	if n == -1 {
		if typ != '*' {
			return Value{}, errInvalidArrayLen
		}
		return Value{Kind: KindNullArray}, nil
	}
	if depth+1 > r.lim.MaxDepth {
		return Value{}, errTooDeep
	}
	count := n
	if typ == '%' || typ == '|' {
		if n > r.lim.MaxArrayLen/2 {
			return Value{}, errInvalidArrayLen
		}
		count = 2 * n
	}
	if count > r.lim.MaxArrayLen {
		return Value{}, errInvalidArrayLen
	}
	var elems []Value
	if depth == 0 && r.pooled && typ != '|' {
		elems = pooledElems(count)
	}
	if elems == nil {
		// Never trust the announced count for the allocation.
		elems = make([]Value, 0, min(count, 64))
	}
	for i := int64(0); i < count; i++ {
		e, err := r.readValue(depth + 1)
		if err != nil {
			return Value{}, unexpectedEOF(err)
		}
		elems = append(elems, e)
	}
	switch typ {
	case '|':
		// The attributed value counts one level deeper so that a chain of
		// attributes cannot recurse without bound.
		v, err := r.readValue(depth + 1)
		if err != nil {
			return Value{}, unexpectedEOF(err)
		}
		v.Attrs = append(elems, v.Attrs...)
		return v, nil
	case '%':
		return Value{Kind: KindMap, Elems: elems}, nil
	case '~':
		return Value{Kind: KindSet, Elems: elems}, nil
	case '>':
		return Value{Kind: KindPush, Elems: elems}, nil
	}
	return Value{Kind: KindArray, Elems: elems}, nil
}

// parseDouble parses a RESP3 double: inf, -inf, nan or a decimal/exponent
// number; Go's extras (hex floats, underscores, "Infinity") are refused.
func parseDouble(b []byte) (float64, bool) {
	switch string(b) {
	case "inf", "+inf":
		return math.Inf(1), true
	case "-inf":
		return math.Inf(-1), true
	case "nan", "-nan":
		return math.NaN(), true
	}
	if len(b) == 0 || len(b) > 400 {
		return 0, false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9') && c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+' {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// validBigNumber reports whether b is an optional '-' then decimal digits.
func validBigNumber(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
