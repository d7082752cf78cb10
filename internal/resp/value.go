package resp

import "strconv"

// Kind identifies the RESP type of a [Value].
type Kind uint8

// The RESP2 and RESP3 value kinds.
const (
	// KindInvalid is the zero Kind; it is never produced by the reader.
	KindInvalid Kind = iota
	// KindSimpleString is a status reply: +OK.
	KindSimpleString
	// KindError is an error reply: -ERR ... (or a RESP3 blob error !n).
	KindError
	// KindInteger is :n.
	KindInteger
	// KindBulkString is $n followed by n bytes.
	KindBulkString
	// KindNullBulk is the RESP2 null bulk string $-1 (RESP3 renders _).
	KindNullBulk
	// KindNullArray is the RESP2 null array *-1 (RESP3 renders _).
	KindNullArray
	// KindNull is the RESP3 null _ (RESP2 renders $-1).
	KindNull
	// KindArray is *n followed by n values.
	KindArray
	// KindMap is %n followed by n key/value pairs (RESP2 renders a flat array).
	KindMap
	// KindSet is ~n followed by n values (RESP2 renders an array).
	KindSet
	// KindPush is >n followed by n values (RESP2 renders an array).
	KindPush
	// KindDouble is ,<float> (RESP2 renders a bulk string).
	KindDouble
	// KindBoolean is #t or #f (RESP2 renders :1 or :0).
	KindBoolean
	// KindBigNumber is (<digits> (RESP2 renders a bulk string).
	KindBigNumber
	// KindVerbatim is =n followed by "fmt:text" (RESP2 renders a bulk string).
	KindVerbatim
)

var kindNames = [...]string{
	KindInvalid:      "invalid",
	KindSimpleString: "simple-string",
	KindError:        "error",
	KindInteger:      "integer",
	KindBulkString:   "bulk-string",
	KindNullBulk:     "null-bulk",
	KindNullArray:    "null-array",
	KindNull:         "null",
	KindArray:        "array",
	KindMap:          "map",
	KindSet:          "set",
	KindPush:         "push",
	KindDouble:       "double",
	KindBoolean:      "boolean",
	KindBigNumber:    "big-number",
	KindVerbatim:     "verbatim",
}

// String returns a readable name of the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one RESP value. Which fields are meaningful depends on Kind:
//
//   - Str: simple string, error, bulk string, big number (the digits),
//     verbatim (the text, without the format prefix);
//   - Int: integer;
//   - Float: double;
//   - Bool: boolean;
//   - Format: verbatim format, three bytes such as "txt" or "mkd";
//   - Elems: array, set and push elements; for a map, keys and values
//     alternate (k0, v0, k1, v1, ...);
//   - Attrs: RESP3 attribute pairs (alternating keys and values) that
//     preceded this value on the wire; written only in RESP3.
type Value struct {
	Kind   Kind
	Str    string
	Int    int64
	Float  float64
	Bool   bool
	Format string
	Elems  []Value
	Attrs  []Value
}

// SimpleString returns a status reply such as +OK.
func SimpleString(s string) Value { return Value{Kind: KindSimpleString, Str: s} }

// OK is the +OK status reply.
func OK() Value { return SimpleString("OK") }

// Error returns an error reply; msg should start with an error code such as
// "ERR " or "NOAUTH ".
func Error(msg string) Value { return Value{Kind: KindError, Str: msg} }

// Integer returns an integer reply.
func Integer(n int64) Value { return Value{Kind: KindInteger, Int: n} }

// Bulk returns a bulk string reply.
func Bulk(s string) Value { return Value{Kind: KindBulkString, Str: s} }

// BulkBytes returns a bulk string reply holding a copy of b.
func BulkBytes(b []byte) Value { return Value{Kind: KindBulkString, Str: string(b)} }

// BulkInt returns a bulk string holding the decimal form of n, the way Redis'
// addReplyBulkLongLong does (Sentinel instance maps use it for numbers).
func BulkInt(n int64) Value { return Value{Kind: KindBulkString, Str: strconv.FormatInt(n, 10)} }

// NullBulk returns the null bulk string ($-1 in RESP2, _ in RESP3).
func NullBulk() Value { return Value{Kind: KindNullBulk} }

// NullArray returns the null array (*-1 in RESP2, _ in RESP3).
func NullArray() Value { return Value{Kind: KindNullArray} }

// Null returns the RESP3 null (_ in RESP3, $-1 in RESP2).
func Null() Value { return Value{Kind: KindNull} }

// Array returns an array of the given elements.
func Array(elems ...Value) Value { return Value{Kind: KindArray, Elems: elems} }

// BulkArray returns an array of bulk strings.
func BulkArray(strs ...string) Value {
	elems := make([]Value, len(strs))
	for i, s := range strs {
		elems[i] = Bulk(s)
	}
	return Value{Kind: KindArray, Elems: elems}
}

// Map returns a map from alternating keys and values; an odd trailing
// element is dropped.
func Map(kvs ...Value) Value {
	if len(kvs)%2 == 1 {
		kvs = kvs[:len(kvs)-1]
	}
	return Value{Kind: KindMap, Elems: kvs}
}

// Set returns a set of the given elements.
func Set(elems ...Value) Value { return Value{Kind: KindSet, Elems: elems} }

// Push returns a push message (pub/sub messages in RESP3).
func Push(elems ...Value) Value { return Value{Kind: KindPush, Elems: elems} }

// Double returns a double reply.
func Double(f float64) Value { return Value{Kind: KindDouble, Float: f} }

// Boolean returns a boolean reply.
func Boolean(b bool) Value { return Value{Kind: KindBoolean, Bool: b} }

// BigNumber returns a big number reply; digits is an optional '-' followed
// by decimal digits.
func BigNumber(digits string) Value { return Value{Kind: KindBigNumber, Str: digits} }

// Verbatim returns a verbatim string with a three-byte format such as "txt".
func Verbatim(format, text string) Value {
	return Value{Kind: KindVerbatim, Format: format, Str: text}
}

// IsNull reports whether v is any of the three null kinds.
func (v Value) IsNull() bool {
	return v.Kind == KindNull || v.Kind == KindNullBulk || v.Kind == KindNullArray
}

// IsError reports whether v is an error reply.
func (v Value) IsError() bool { return v.Kind == KindError }

// IsAggregate reports whether v holds elements (array, map, set, push).
func (v Value) IsAggregate() bool {
	switch v.Kind {
	case KindArray, KindMap, KindSet, KindPush:
		return true
	}
	return false
}

// Len returns the number of entries of an aggregate: elements for arrays,
// sets and pushes, pairs for maps; 0 otherwise.
func (v Value) Len() int {
	if v.Kind == KindMap {
		return len(v.Elems) / 2
	}
	if v.IsAggregate() {
		return len(v.Elems)
	}
	return 0
}

// Text returns the textual content of a string-like value (simple, bulk,
// error, verbatim, big number) and whether v is one.
func (v Value) Text() (string, bool) {
	switch v.Kind {
	case KindSimpleString, KindBulkString, KindError, KindVerbatim, KindBigNumber:
		return v.Str, true
	}
	return "", false
}
