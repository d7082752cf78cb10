package resp

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
)

// genValue returns a random value; depth bounds nesting.
func genValue(rng *rand.Rand, depth int) Value {
	kinds := []Kind{KindSimpleString, KindError, KindInteger, KindBulkString, KindNullBulk,
		KindNullArray, KindNull, KindDouble, KindBoolean, KindBigNumber, KindVerbatim}
	if depth > 0 {
		kinds = append(kinds, KindArray, KindMap, KindSet, KindPush)
	}
	v := Value{Kind: kinds[rng.IntN(len(kinds))]}
	switch v.Kind {
	case KindSimpleString:
		v.Str = genText(rng, false)
	case KindError:
		v.Str = "ERR " + genText(rng, false)
		if rng.IntN(4) == 0 {
			v.Str += "\r\n" + genText(rng, false) // blob error in RESP3
		}
	case KindInteger:
		v.Int = rng.Int64() - rng.Int64()
	case KindBulkString:
		v.Str = genText(rng, true)
	case KindDouble:
		switch rng.IntN(4) {
		case 0:
			v.Float = math.Inf(1 - 2*rng.IntN(2))
		case 1:
			v.Float = float64(rng.IntN(1000))
		default:
			v.Float = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
		}
	case KindBoolean:
		v.Bool = rng.IntN(2) == 1
	case KindBigNumber:
		v.Str = strconv.FormatInt(rng.Int64(), 10) + strconv.FormatUint(rng.Uint64(), 10)
	case KindVerbatim:
		v.Format = []string{"txt", "mkd"}[rng.IntN(2)]
		v.Str = genText(rng, true)
	case KindArray, KindSet, KindPush, KindMap:
		n := rng.IntN(5)
		if v.Kind == KindMap {
			n *= 2
		}
		for range n {
			v.Elems = append(v.Elems, genValue(rng, depth-1))
		}
	}
	if depth > 0 && rng.IntN(10) == 0 {
		v.Attrs = []Value{Bulk("key"), genValue(rng, depth-1)}
	}
	return v
}

func genText(rng *rand.Rand, binary bool) string {
	n := rng.IntN(20)
	if binary && rng.IntN(20) == 0 {
		n = rng.IntN(70000) // longer than the read buffer and the line limit
	}
	b := make([]byte, n)
	for i := range b {
		if binary {
			b[i] = byte(rng.IntN(256))
		} else {
			b[i] = byte(' ' + rng.IntN(95))
		}
	}
	return string(b)
}

// normalize3 maps v to what a RESP3 round trip yields.
func normalize3(v Value) Value {
	switch v.Kind {
	case KindNullBulk, KindNullArray:
		v.Kind = KindNull
	}
	v.Elems = normalizeAll(v.Elems, normalize3)
	v.Attrs = normalizeAll(v.Attrs, normalize3)
	return v
}

// normalize2 maps v to what a RESP2 round trip yields.
func normalize2(v Value) Value {
	v.Attrs = nil
	switch v.Kind {
	case KindNull:
		v.Kind = KindNullBulk
	case KindMap, KindSet, KindPush:
		v.Kind = KindArray
	case KindDouble:
		v = Bulk(string(AppendDouble(nil, v.Float, RESP3)[1:]))
		v.Str = v.Str[:len(v.Str)-2]
	case KindBoolean:
		v = Integer(map[bool]int64{false: 0, true: 1}[v.Bool])
	case KindBigNumber:
		v = Bulk(v.Str)
	case KindVerbatim:
		v = Bulk(v.Str)
	case KindError:
		b := []byte(v.Str)
		for i, c := range b {
			if c == '\r' || c == '\n' {
				b[i] = ' '
			}
		}
		v.Str = string(b)
	}
	v.Elems = normalizeAll(v.Elems, normalize2)
	return v
}

func normalizeAll(vs []Value, f func(Value) Value) []Value {
	if len(vs) == 0 {
		return nil
	}
	out := make([]Value, len(vs))
	for i, e := range vs {
		out[i] = f(e)
	}
	return out
}

func TestRoundTripRandomValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		v := genValue(rng, 3)
		for _, proto := range []int{RESP2, RESP3} {
			wire := AppendValue(nil, v, proto)
			got, err := NewReader(bytes.NewReader(wire)).ReadValue()
			if err != nil {
				t.Fatalf("value %d proto %d: read %d bytes: %v", i, proto, len(wire), err)
			}
			want := normalize3(v)
			if proto == RESP2 {
				want = normalize2(v)
			}
			got = normalizeEmpty(got)
			want = normalizeEmpty(want)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("value %d proto %d: %s", i, proto, diffValues("", got, want))
			}
		}
	}
}

// encodeCommand renders args as a multibulk request.
func encodeCommand(args [][]byte) []byte {
	out := AppendArrayLen(nil, len(args))
	for _, a := range args {
		out = AppendBulk(out, a)
	}
	return out
}

func TestRoundTripRandomCommands(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var wire []byte
	var cmds [][][]byte
	for range 2000 {
		args := make([][]byte, 1+rng.IntN(6))
		for j := range args {
			args[j] = []byte(genText(rng, true))
		}
		cmds = append(cmds, args)
		wire = append(wire, encodeCommand(args)...)
	}
	r := NewReader(bytes.NewReader(wire))
	for i, want := range cmds {
		got, err := r.ReadCommand()
		if err != nil {
			t.Fatalf("command %d: %v", i, err)
		}
		if len(got) != len(want) {
			t.Fatalf("command %d: %d args, want %d", i, len(got), len(want))
		}
		for j := range got {
			if !bytes.Equal(got[j], want[j]) {
				t.Fatalf("command %d arg %d differs", i, j)
			}
		}
	}
}

// diffValues describes the first difference between two values.
func diffValues(path string, got, want Value) string {
	if got.Kind != want.Kind || got.Str != want.Str || got.Int != want.Int ||
		got.Bool != want.Bool || got.Format != want.Format || got.Float != want.Float {
		short := func(v Value) Value {
			if len(v.Str) > 40 {
				v.Str = v.Str[:40] + "..."
			}
			v.Elems, v.Attrs = nil, nil
			return v
		}
		return fmt.Sprintf("at %q: got %+v, want %+v", path, short(got), short(want))
	}
	if len(got.Elems) != len(want.Elems) || len(got.Attrs) != len(want.Attrs) {
		return fmt.Sprintf("at %q: got %d elems %d attrs, want %d elems %d attrs", path,
			len(got.Elems), len(got.Attrs), len(want.Elems), len(want.Attrs))
	}
	for i := range got.Elems {
		if d := diffValues(fmt.Sprintf("%s/%d", path, i), got.Elems[i], want.Elems[i]); d != "" {
			return d
		}
	}
	for i := range got.Attrs {
		if d := diffValues(fmt.Sprintf("%s/attr%d", path, i), got.Attrs[i], want.Attrs[i]); d != "" {
			return d
		}
	}
	return ""
}

// normalizeEmpty turns empty element slices into nil.
func normalizeEmpty(v Value) Value {
	v.Elems = normalizeAll(v.Elems, normalizeEmpty)
	v.Attrs = normalizeAll(v.Attrs, normalizeEmpty)
	return v
}
