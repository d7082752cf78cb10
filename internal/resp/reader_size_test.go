package resp

import (
	"bytes"
	"io"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// chunkReader serves its input in reads of at most n bytes.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}

// TestReaderSizeStream reads a stream of random values, with lines longer
// than the buffer among them, through small buffers and every read
// pattern: values come out intact and the buffer ends at its initial size.
func TestReaderSizeStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var wire []byte
	var want []Value
	for i := range 400 {
		v := genValue(rng, 2)
		if i%25 == 0 {
			// A status line longer than every buffer below: grows it.
			v = Value{Kind: KindSimpleString, Str: strings.Repeat("x", 3000+i)}
		}
		wire = AppendValue(wire, v, RESP3)
		want = append(want, normalizeEmpty(normalize3(v)))
	}
	// End on short values so that the grown buffer has a chance to shrink.
	for range 3 {
		wire = AppendValue(wire, SimpleString("OK"), RESP3)
		want = append(want, SimpleString("OK"))
	}
	reads := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"whole", func(r io.Reader) io.Reader { return r }},
		{"one-byte", iotest.OneByteReader},
		{"chunks-of-7", func(r io.Reader) io.Reader { return chunkReader{r, 7} }},
		{"chunks-of-1500", func(r io.Reader) io.Reader { return chunkReader{r, 1500} }},
	}
	for _, size := range []int{0, 64, 100, 512, 1 << 10, 16 << 10} {
		for _, rd := range reads {
			t.Run(rd.name+"/"+strconv.Itoa(size), func(t *testing.T) {
				r := NewReaderSize(rd.wrap(bytes.NewReader(wire)), Limits{}, size)
				for i, w := range want {
					got, err := r.ReadValue()
					if err != nil {
						t.Fatalf("value %d: %v", i, err)
					}
					if got = normalizeEmpty(got); !reflect.DeepEqual(got, w) {
						t.Fatalf("value %d: %s", i, diffValues("", got, w))
					}
				}
				if _, err := r.ReadValue(); err != io.EOF {
					t.Fatalf("after the stream: err = %v, want EOF", err)
				}
				if wantLen := max(size, minBufSize); len(r.buf) != wantLen {
					t.Fatalf("buffer is %d bytes at the end, want %d", len(r.buf), wantLen)
				}
			})
		}
	}
}

// TestReaderSizeLimits: a small buffer does not change what is refused.
func TestReaderSizeLimits(t *testing.T) {
	lim := Limits{MaxInlineLen: 200, MaxBulkLen: 100}
	cases := []struct {
		name string
		in   string
		ok   bool
	}{
		{"line at the limit", "+" + strings.Repeat("a", 199) + "\r\n", true},
		{"line over the limit", "+" + strings.Repeat("a", 201) + "\r\n", false},
		{"bulk at the limit", "$100\r\n" + strings.Repeat("b", 100) + "\r\n", true},
		{"bulk over the limit", "$101\r\n" + strings.Repeat("b", 101) + "\r\n", false},
	}
	for _, c := range cases {
		eachReader(t, c.name, c.in, func(t *testing.T, src io.Reader) {
			_, err := NewReaderSize(src, lim, 64).ReadValue()
			if (err == nil) != c.ok {
				t.Fatalf("err = %v, want ok=%v", err, c.ok)
			}
		})
	}
}

// BenchmarkReadValueHelloSmallBuffer reads hello messages as a pub/sub
// link does, through a 1 KiB buffer.
func BenchmarkReadValueHelloSmallBuffer(b *testing.B) {
	msg := AppendValue(nil, Array(Bulk("message"), Bulk("__sentinel__:hello"),
		Bulk("127.0.0.1,26379,0123456789abcdef0123456789abcdef01234567,0,mymaster,127.0.0.1,6379,0")), RESP2)
	r := NewReaderSize(&repeatReader{data: msg}, Limits{}, 1<<10)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.ReadValue(); err != nil {
			b.Fatal(err)
		}
	}
}
