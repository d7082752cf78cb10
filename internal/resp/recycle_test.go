package resp

import (
	"strings"
	"testing"
)

// loopReader returns the same bytes again and again.
type loopReader struct {
	b   string
	off int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.b[l.off:])
	l.off = (l.off + n) % len(l.b)
	return n, nil
}

const helloMsg = "*3\r\n$7\r\nmessage\r\n$18\r\n__sentinel__:hello\r\n$21\r\n127.0.0.1,26379,aaa,0\r\n"

// TestReadValuePooledRecycles: a pub/sub message read with
// ReadValuePooled and recycled costs its three strings and no element
// array (a sentinel's links read one hello per instance and peer every
// few seconds; the array was the largest allocation per message).
func TestReadValuePooledRecycles(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops Puts at random under -race")
	}
	r := NewReaderSize(&loopReader{b: helloMsg}, Limits{}, 1024)
	step := func() {
		v, err := r.ReadValuePooled()
		if err != nil || len(v.Elems) != 3 || v.Elems[2].Str != "127.0.0.1,26379,aaa,0" {
			t.Fatalf("read %#v, %v", v, err)
		}
		Recycle(v)
	}
	step()
	if n := testing.AllocsPerRun(200, step); n > 3 {
		t.Fatalf("%.1f allocations per recycled message, want 3 (its strings)", n)
	}
}

// TestRecycledArrayReused: the strings of a recycled message stay valid,
// a value that is not recycled keeps its elements while later ones are
// read and recycled, and larger, nested or unpooled values are left alone.
func TestRecycledArrayReused(t *testing.T) {
	src := helloMsg + "*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nx\r\n" +
		"*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n" +
		"*2\r\n*1\r\n$1\r\na\r\n$1\r\nb\r\n" +
		"*5\r\n:1\r\n:2\r\n:3\r\n:4\r\n:5\r\n" +
		"*0\r\n"
	for i := 0; i < 4; i++ {
		src += "*3\r\n$7\r\nmessage\r\n$1\r\nd\r\n$1\r\ny\r\n"
	}
	r := NewReader(strings.NewReader(src))
	read := func() Value {
		t.Helper()
		v, err := r.ReadValuePooled()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	first := read()
	payload := first.Elems[2].Str
	Recycle(first)
	second := read() // may reuse first's array
	kept := read()   // not recycled: owns its array
	nested := read()
	large := read()
	empty := read()
	if payload != "127.0.0.1,26379,aaa,0" || second.Elems[2].Str != "x" {
		t.Fatalf("payloads %q %q", payload, second.Elems[2].Str)
	}
	if len(nested.Elems) != 2 || nested.Elems[0].Elems[0].Str != "a" || len(large.Elems) != 5 || empty.Kind != KindArray || len(empty.Elems) != 0 {
		t.Fatalf("nested %#v large %#v empty %#v", nested, large, empty)
	}
	inner := nested.Elems[0]
	Recycle(second)
	Recycle(nested)
	Recycle(large)
	Recycle(empty)
	for i := 0; i < 4; i++ {
		v := read()
		if v.Elems[1].Str != "d" {
			t.Fatalf("message %d: %#v", i, v)
		}
		Recycle(v)
	}
	if kept.Elems[0].Str != "subscribe" || kept.Elems[1].Str != "c" || kept.Elems[2].Int != 1 {
		t.Fatalf("kept value changed: %#v", kept)
	}
	if inner.Elems[0].Str != "a" || large.Elems[4].Int != 5 {
		t.Fatalf("after recycling: inner %#v large %#v", inner, large)
	}
}

// TestReadValuePooledKnown: the known strings of a message (its kind and
// channel) cost no allocation, only its payload does; a payload that only
// starts like a known string is copied as usual.
func TestReadValuePooledKnown(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops Puts at random under -race")
	}
	known := []string{"message", "__sentinel__:hello"}
	r := NewReaderSize(&loopReader{b: helloMsg + "*3\r\n$7\r\nmessage\r\n$18\r\n__sentinel__:hello\r\n$7\r\nmessagf\r\n"}, Limits{}, 1024)
	step := func() {
		for _, want := range []string{"127.0.0.1,26379,aaa,0", "messagf"} {
			v, err := r.ReadValuePooled(known...)
			if err != nil || len(v.Elems) != 3 || v.Elems[0].Str != "message" || v.Elems[1].Str != "__sentinel__:hello" || v.Elems[2].Str != want {
				t.Fatalf("read %#v, %v", v, err)
			}
			Recycle(v)
		}
	}
	step()
	if n := testing.AllocsPerRun(200, step); n > 2 {
		t.Fatalf("%.1f allocations per two messages, want 2 (their payloads)", n)
	}
	bad := NewReader(strings.NewReader("*1\r\n$7\r\nmessageXY"))
	if _, err := bad.ReadValuePooled(known...); err == nil {
		t.Fatal("a known string without its CRLF was accepted")
	}
}
