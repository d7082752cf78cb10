package core

import "strconv"

// Kind is the type of a [Value].
type Kind uint8

// Value kinds. Map holds alternating keys and values in Elems; the server
// renders it as a RESP3 map, or as a flat array in RESP2.
const (
	KindStatus Kind = iota + 1
	KindError
	KindInt
	KindBulk
	KindNil      // null bulk string
	KindNilArray // null array
	KindArray
	KindMap
)

// Value is the core's own small reply type: replies received from
// instances ([Reply]) and replies sent to clients ([Respond]).
type Value struct {
	Kind  Kind
	Str   string // Status, Error and Bulk payload
	Int   int64  // Int payload
	Elems []Value
}

// Status returns a status reply (+s).
func Status(s string) Value { return Value{Kind: KindStatus, Str: s} }

// ErrorValue returns an error reply (-s); s includes the error code, e.g.
// "ERR No such master with that name".
func ErrorValue(s string) Value { return Value{Kind: KindError, Str: s} }

// Int returns an integer reply.
func Int(n int64) Value { return Value{Kind: KindInt, Int: n} }

// Bulk returns a bulk string reply.
func Bulk(s string) Value { return Value{Kind: KindBulk, Str: s} }

// BulkInt returns a bulk string holding the decimal form of n, the way
// Sentinel renders numbers in instance maps (addReplyBulkLongLong).
func BulkInt(n int64) Value { return Bulk(strconv.FormatInt(n, 10)) }

// Nil returns a null bulk string.
func Nil() Value { return Value{Kind: KindNil} }

// NilArray returns a null array.
func NilArray() Value { return Value{Kind: KindNilArray} }

// Array returns an array reply.
func Array(elems ...Value) Value {
	if elems == nil {
		elems = []Value{}
	}
	return Value{Kind: KindArray, Elems: elems}
}

// Map returns a map reply from alternating keys and values.
func Map(kv ...Value) Value {
	if kv == nil {
		kv = []Value{}
	}
	return Value{Kind: KindMap, Elems: kv}
}

// IsError reports whether v is an error reply.
func (v Value) IsError() bool { return v.Kind == KindError }

// Text returns the string payload of a status, error or bulk reply, and ""
// for other kinds.
func (v Value) Text() string {
	switch v.Kind {
	case KindStatus, KindError, KindBulk:
		return v.Str
	}
	return ""
}
