package client

import "bytes"

// Connections that sit in a read for a long time — go-redis PubSub
// subscribers, MONITOR, blocking commands — would keep reading from the old
// master after a switch, since they never write again. Their Write is
// inspected (only the first command of a buffer, without allocating) so
// that markStale can close them at once; ordinary in-flight commands are
// left to read their reply.

// connMode says how a command leaves its connection.
type connMode int

const (
	modeNormal  connMode = iota
	modeBlocked          // the reply may take arbitrarily long (BLPOP, XREAD BLOCK, WAIT...)
	modeStream           // the connection only reads from now on (SUBSCRIBE, MONITOR)
)

// commandMode classifies the first command of a RESP-encoded buffer.
func commandMode(b []byte) connMode {
	args := respArgs{b: b}
	if !args.header() {
		return modeNormal
	}
	name, ok := args.next()
	if !ok || len(name) == 0 {
		return modeNormal
	}
	if len(name) < 4 || len(name) > len("xreadgroup") {
		return modeNormal // covers GET, SET and most of the hot path
	}
	var buf [10]byte
	lower := buf[:len(name)]
	for i, c := range name {
		lower[i] = c | 0x20 // ASCII letters only matter; others cannot match
	}
	switch string(lower) { // no allocation: the conversion is only compared
	case "subscribe", "psubscribe", "ssubscribe", "monitor":
		return modeStream
	case "blpop", "brpop", "brpoplpush", "blmove", "blmpop", "bzpopmin", "bzpopmax", "bzmpop", "wait", "waitaof":
		return modeBlocked
	case "xread", "xreadgroup":
		for {
			a, ok := args.next()
			if !ok {
				return modeNormal
			}
			if bytes.EqualFold(a, []byte("block")) {
				return modeBlocked
			}
		}
	}
	return modeNormal
}

// respArgs walks the bulk strings of one RESP array in a buffer.
type respArgs struct {
	b []byte
	n int // elements left
}

// header reads "*<n>\r\n".
func (a *respArgs) header() bool {
	if len(a.b) < 4 || a.b[0] != '*' {
		return false
	}
	n, rest, ok := respInt(a.b[1:])
	a.n, a.b = n, rest
	return ok && n > 0
}

// next returns the next bulk string ("$<len>\r\n<data>\r\n").
func (a *respArgs) next() ([]byte, bool) {
	if a.n <= 0 || len(a.b) < 4 || a.b[0] != '$' {
		return nil, false
	}
	l, rest, ok := respInt(a.b[1:])
	if !ok || l < 0 || len(rest) < l+2 {
		return nil, false
	}
	a.n--
	a.b = rest[l+2:]
	return rest[:l], true
}

// respInt parses "<digits>\r\n" (at most 9 digits).
func respInt(b []byte) (int, []byte, bool) {
	n, i := 0, 0
	for ; i < len(b) && i < 10 && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int(b[i]-'0')
	}
	if i == 0 || i >= 10 || len(b) < i+2 || b[i] != '\r' || b[i+1] != '\n' {
		return 0, nil, false
	}
	return n, b[i+2:], true
}
