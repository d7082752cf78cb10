package resp

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
)

var commandSeeds = []string{
	"*2\r\n$4\r\nPING\r\n$2\r\nhi\r\n",
	"PING\r\n\n",
	"SET \"a\\x41 b\" 'c\\'d'\r\n",
	"*1\r\n$-1\r\n",
	"*0\r\n*-1\r\n",
	"*3\r\n$8\r\nSENTINEL\r\n$6\r\nMASTER\r\n$6\r\nmymast\r\n",
	"*1\r\n:1\r\n",
	"\"unbalanced\r\n",
}

// FuzzReadCommand checks that no input panics the command reader and that
// every accepted command survives a re-encoding.
func FuzzReadCommand(f *testing.F) {
	for _, s := range commandSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, in []byte, unauth bool) {
		r := NewReaderLimits(bytes.NewReader(in), Limits{MaxInlineLen: 1024, MaxBulkLen: 1 << 16})
		r.SetUnauthenticated(unauth)
		for range 1000 {
			args, err := r.ReadCommand()
			if err != nil {
				var pe *ProtocolError
				if !errors.As(err, &pe) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("unexpected error type %T: %v", err, err)
				}
				return
			}
			if len(args) == 0 {
				t.Fatal("empty command returned")
			}
			again, err := NewReader(bytes.NewReader(encodeCommand(args))).ReadCommand()
			if err != nil {
				t.Fatalf("re-read: %v", err)
			}
			if len(again) != len(args) {
				t.Fatalf("re-read %d args, want %d", len(again), len(args))
			}
			for i := range args {
				if !bytes.Equal(again[i], args[i]) {
					t.Fatalf("arg %d: %q != %q", i, again[i], args[i])
				}
			}
		}
	})
}

// FuzzReadValue checks that no input panics the reply reader and that an
// accepted value re-encoded in RESP3 reads back identically.
func FuzzReadValue(f *testing.F) {
	for _, s := range []string{
		"+OK\r\n", "-ERR x\r\n", ":1\r\n", "$3\r\nabc\r\n", "$-1\r\n", "*-1\r\n", "_\r\n",
		"*2\r\n:1\r\n%1\r\n+a\r\n~1\r\n#t\r\n", ">1\r\n,1.5\r\n", "(123\r\n", "=7\r\ntxt:abc\r\n",
		"|1\r\n+a\r\n+b\r\n:1\r\n", "!3\r\nERR\r\n", ",inf\r\n", "*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReaderLimits(bytes.NewReader(in), Limits{MaxInlineLen: 1024, MaxBulkLen: 1 << 16, MaxArrayLen: 1 << 12, MaxDepth: 16})
		for range 100 {
			v, err := r.ReadValue()
			if err != nil {
				return
			}
			wire := AppendValue(nil, v, RESP3)
			again, err := NewReader(bytes.NewReader(wire)).ReadValue()
			if err != nil {
				t.Fatalf("re-read %q: %v", wire, err)
			}
			if !reflect.DeepEqual(normalizeNaN(normalize3(again)), normalizeNaN(normalize3(sanitizeStatus(v)))) {
				t.Fatalf("round trip differs:\n%#v\n%#v", again, v)
			}
			_ = AppendValue(nil, v, RESP2)
		}
	})
}

// normalizeNaN replaces NaN doubles (never equal to themselves) by a marker.
func normalizeNaN(v Value) Value {
	if v.Kind == KindDouble && v.Float != v.Float {
		v.Float = 0
		v.Str = "nan"
	}
	for i := range v.Elems {
		v.Elems[i] = normalizeNaN(v.Elems[i])
	}
	for i := range v.Attrs {
		v.Attrs[i] = normalizeNaN(v.Attrs[i])
	}
	return v
}

// FuzzSplitArgs checks that sdssplitargs-style splitting never panics and
// that a successful split only returns non-nil arguments.
func FuzzSplitArgs(f *testing.F) {
	for _, s := range []string{`a b c`, `"a\x41\n" 'b\'c'`, `"x`, `'y`, `"a"b`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		args, err := SplitArgs(in)
		if err != nil {
			if !errors.Is(err, ErrProtocol) {
				t.Fatalf("error %v is not ErrProtocol", err)
			}
			return
		}
		total := 0
		for _, a := range args {
			total += len(a)
		}
		if total > len(in) {
			t.Fatalf("args longer (%d) than input (%d)", total, len(in))
		}
	})
}

// sanitizeStatus applies the writer's promise: CR and LF inside a status
// line become spaces (they would break the framing).
func sanitizeStatus(v Value) Value {
	if v.Kind == KindSimpleString {
		b := []byte(v.Str)
		for i, c := range b {
			if c == '\r' || c == '\n' {
				b[i] = ' '
			}
		}
		v.Str = string(b)
	}
	for i := range v.Elems {
		v.Elems[i] = sanitizeStatus(v.Elems[i])
	}
	for i := range v.Attrs {
		v.Attrs[i] = sanitizeStatus(v.Attrs[i])
	}
	return v
}

// FuzzReadValuePooled: ReadValuePooled (pooled small arrays, known
// strings without a copy) reads every input as ReadValue does, value by
// value and error for error, with each pooled value recycled before the
// next read.
func FuzzReadValuePooled(f *testing.F) {
	for _, s := range []string{
		"*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\nx\r\n", "*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\na\r\n*0\r\n",
		"*2\r\n*1\r\n$1\r\na\r\n%1\r\n+a\r\n$7\r\nmessage", "|1\r\n+a\r\n+b\r\n*1\r\n:1\r\n", ">4\r\n:1\r\n:2\r\n:3\r\n:4\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		lim := Limits{MaxInlineLen: 1024, MaxBulkLen: 1 << 16, MaxArrayLen: 1 << 12, MaxDepth: 16}
		plain := NewReaderLimits(bytes.NewReader(in), lim)
		pooled := NewReaderLimits(bytes.NewReader(in), lim)
		for range 100 {
			want, werr := plain.ReadValue()
			got, gerr := pooled.ReadValuePooled("message", "a")
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("errors differ: %v / %v", werr, gerr)
			}
			if werr != nil {
				return
			}
			if !reflect.DeepEqual(normalizeNaN(got), normalizeNaN(want)) {
				t.Fatalf("values differ:\n%#v\n%#v", got, want)
			}
			Recycle(got)
		}
	})
}
