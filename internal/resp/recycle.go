package resp

import "sync"

// smallAggregate is the largest element count whose array ReadValuePooled
// takes from smallElems: a pub/sub message has 3 elements, a pattern
// message 4.
const smallAggregate = 4

// smallElems holds element arrays of small top-level aggregates given
// back with Recycle (pointers to arrays: a Put stores them in the
// interface without an allocation).
var smallElems = sync.Pool{New: func() any { return new([smallAggregate]Value) }}

// ReadValuePooled is ReadValue, except that a top-level array, push, set
// or map of up to 4 elements takes its element array from a pool shared
// by all Readers. A caller that is done with such a value (it has copied
// the strings it needs out of it, as a link does with a pub/sub message)
// passes it to Recycle; a value that is kept is simply not recycled and
// owns its array like any other. Nested aggregates and attributes are
// allocated as by ReadValue. A bulk string equal to one of known (and
// fully buffered) is returned as that string, without an allocation: a
// link passes "message" and its channel, which every message repeats.
//
// A sentinel reads a hello message on a pub/sub link every few seconds
// per monitored instance and peer: the 3-element array was the largest
// allocation per message (docs/bench.md, "500 masters: profile").
func (r *Reader) ReadValuePooled(known ...string) (Value, error) {
	r.pooled, r.known = true, known
	v, err := r.readValue(0)
	r.pooled, r.known = false, nil
	return v, err
}

// knownBulk returns the entry of r.known equal to the n-byte bulk payload
// at the read position when all of it and its CRLF are buffered, and
// consumes them; ok is false (nothing consumed) otherwise.
func (r *Reader) knownBulk(n int64) (s string, ok bool, err error) {
	if len(r.known) == 0 || int64(r.w-r.r) < n+2 {
		return "", false, nil
	}
	b := r.buf[r.r : r.r+int(n)]
	for _, k := range r.known {
		if len(k) == len(b) && string(b) == k {
			r.r += int(n)
			return k, true, r.expectCRLF()
		}
	}
	return "", false, nil
}

// pooledElems returns an empty slice over a pooled array for a top-level
// aggregate of count elements (its capacity is smallAggregate, which is
// how Recycle knows it), or nil when the count is too large.
func pooledElems(count int64) []Value {
	if count < 1 || count > smallAggregate {
		return nil
	}
	a := smallElems.Get().(*[smallAggregate]Value)
	return a[:0]
}

// Recycle gives the element array of v, a value from ReadValuePooled,
// back to the pool. Neither v nor its Elems may be used afterwards (the
// strings copied out of its elements stay valid). A value whose array
// cannot be one of the pool's (another capacity) is left alone.
func Recycle(v Value) {
	if cap(v.Elems) != smallAggregate {
		return
	}
	a := (*[smallAggregate]Value)(v.Elems[:smallAggregate:smallAggregate])
	clear(a[:]) // drop the strings, so the pool keeps nothing else alive
	smallElems.Put(a)
}
