package resp

import (
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadValue(t *testing.T) {
	tests := []struct {
		name string
		in   string
		lim  Limits
		want Value
		err  string
	}{
		{name: "simple", in: "+OK\r\n", want: SimpleString("OK")},
		{name: "error", in: "-ERR bad\r\n", want: Error("ERR bad")},
		{name: "blob error", in: "!10\r\nERR a\r\nb c\r\n", want: Error("ERR a\r\nb c")},
		{name: "integer", in: ":-42\r\n", want: Integer(-42)},
		{name: "bulk", in: "$5\r\nhello\r\n", want: Bulk("hello")},
		{name: "empty bulk", in: "$0\r\n\r\n", want: Bulk("")},
		{name: "null bulk", in: "$-1\r\n", want: NullBulk()},
		{name: "null array", in: "*-1\r\n", want: NullArray()},
		{name: "null", in: "_\r\n", want: Null()},
		{name: "array", in: "*2\r\n:1\r\n$1\r\na\r\n", want: Array(Integer(1), Bulk("a"))},
		{name: "empty array", in: "*0\r\n", want: Value{Kind: KindArray, Elems: []Value{}}},
		{name: "map", in: "%1\r\n+k\r\n:2\r\n", want: Map(SimpleString("k"), Integer(2))},
		{name: "set", in: "~1\r\n#t\r\n", want: Set(Boolean(true))},
		{name: "push", in: ">2\r\n$7\r\nmessage\r\n_\r\n", want: Push(Bulk("message"), Null())},
		{name: "double", in: ",3.25\r\n", want: Double(3.25)},
		{name: "double exp", in: ",1e+300\r\n", want: Double(1e300)},
		{name: "double inf", in: ",-inf\r\n", want: Double(math.Inf(-1))},
		{name: "boolean false", in: "#f\r\n", want: Boolean(false)},
		{name: "big number", in: "(-123456789012345678901234567890\r\n", want: BigNumber("-123456789012345678901234567890")},
		{name: "verbatim", in: "=9\r\ntxt:hello\r\n", want: Verbatim("txt", "hello")},
		{name: "attribute", in: "|1\r\n+ttl\r\n:3\r\n$1\r\nv\r\n", want: Value{Kind: KindBulkString, Str: "v", Attrs: []Value{SimpleString("ttl"), Integer(3)}}},
		{name: "nested", in: "*1\r\n*1\r\n*0\r\n", want: Array(Array(Value{Kind: KindArray, Elems: []Value{}}))},
		{name: "too deep", in: "*1\r\n*1\r\n*1\r\n:1\r\n", lim: Limits{MaxDepth: 2}, err: "Protocol error: reply nested too deeply"},
		{name: "attribute chain too deep", in: strings.Repeat("|0\r\n", 100) + ":1\r\n", lim: Limits{MaxDepth: 10}, err: "Protocol error: reply nested too deeply"},
		{name: "array too long", in: "*5\r\n", lim: Limits{MaxArrayLen: 4}, err: "Protocol error: invalid aggregate length"},
		{name: "map too long", in: "%3\r\n", lim: Limits{MaxArrayLen: 4}, err: "Protocol error: invalid aggregate length"},
		{name: "bulk too long", in: "$11\r\n", lim: Limits{MaxBulkLen: 10}, err: "Protocol error: invalid bulk length"},
		{name: "bulk bad crlf", in: "$1\r\nab\r\n", err: "Protocol error: expected CRLF after bulk payload"},
		{name: "bad integer", in: ":1x\r\n", err: "Protocol error: invalid integer"},
		{name: "bad double", in: ",0x10\r\n", err: "Protocol error: invalid double"},
		{name: "bad boolean", in: "#x\r\n", err: "Protocol error: invalid boolean"},
		{name: "bad big number", in: "(12a\r\n", err: "Protocol error: invalid big number"},
		{name: "bad verbatim", in: "=3\r\ntxt\r\n", err: "Protocol error: invalid verbatim string"},
		{name: "streamed", in: "$?\r\n", err: "Protocol error: streamed RESP3 types are not supported"},
		{name: "negative map", in: "%-1\r\n", err: "Protocol error: invalid aggregate length"},
		{name: "unknown type", in: "@x\r\n", err: "Protocol error: unknown reply type '@'"},
		{name: "empty line", in: "\r\n", err: "Protocol error: empty reply line"},
		{name: "truncated", in: "*2\r\n:1\r\n", err: io.ErrUnexpectedEOF.Error()},
		{name: "truncated line", in: "+OK", err: io.ErrUnexpectedEOF.Error()},
		{name: "nothing", in: "", err: io.EOF.Error()},
		{name: "long line", in: "+" + strings.Repeat("a", 200) + "\r\n", lim: Limits{MaxInlineLen: 100}, err: "Protocol error: too big reply line"},
	}
	for _, tc := range tests {
		eachReader(t, tc.name, tc.in, func(t *testing.T, src io.Reader) {
			got, err := NewReaderLimits(src, tc.lim).ReadValue()
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestAppendValue(t *testing.T) {
	tests := []struct {
		name  string
		v     Value
		resp2 string
		resp3 string
	}{
		{"simple", OK(), "+OK\r\n", "+OK\r\n"},
		{"simple with newline", SimpleString("a\r\nb"), "+a  b\r\n", "+a  b\r\n"},
		{"error", Error("ERR x"), "-ERR x\r\n", "-ERR x\r\n"},
		{"error with newline", Error("ERR a\nb"), "-ERR a b\r\n", "!7\r\nERR a\nb\r\n"},
		{"integer", Integer(-7), ":-7\r\n", ":-7\r\n"},
		{"bulk", Bulk("hi"), "$2\r\nhi\r\n", "$2\r\nhi\r\n"},
		{"bulk int", BulkInt(26379), "$5\r\n26379\r\n", "$5\r\n26379\r\n"},
		{"null bulk", NullBulk(), "$-1\r\n", "_\r\n"},
		{"null array", NullArray(), "*-1\r\n", "_\r\n"},
		{"null", Null(), "$-1\r\n", "_\r\n"},
		{"array", BulkArray("a", "b"), "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*2\r\n$1\r\na\r\n$1\r\nb\r\n"},
		{"map", Map(Bulk("k"), Integer(1)), "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{"map odd dropped", Map(Bulk("k"), Integer(1), Bulk("x")), "*2\r\n$1\r\nk\r\n:1\r\n", "%1\r\n$1\r\nk\r\n:1\r\n"},
		{"set", Set(Integer(1)), "*1\r\n:1\r\n", "~1\r\n:1\r\n"},
		{"push", Push(Bulk("message")), "*1\r\n$7\r\nmessage\r\n", ">1\r\n$7\r\nmessage\r\n"},
		{"double", Double(1.5), "$3\r\n1.5\r\n", ",1.5\r\n"},
		{"double 17g", Double(0.1), "$19\r\n0.10000000000000001\r\n", ",0.10000000000000001\r\n"},
		{"double inf", Double(math.Inf(1)), "$3\r\ninf\r\n", ",inf\r\n"},
		{"double nan", Double(math.NaN()), "$3\r\nnan\r\n", ",nan\r\n"},
		{"boolean", Boolean(true), ":1\r\n", "#t\r\n"},
		{"big number", BigNumber("123"), "$3\r\n123\r\n", "(123\r\n"},
		{"verbatim", Verbatim("txt", "hi"), "$2\r\nhi\r\n", "=6\r\ntxt:hi\r\n"},
		{"verbatim bad format", Verbatim("x", "hi"), "$2\r\nhi\r\n", "=6\r\ntxt:hi\r\n"},
		{"attribute", Value{Kind: KindInteger, Int: 1, Attrs: []Value{Bulk("a"), Bulk("b")}}, ":1\r\n", "|1\r\n$1\r\na\r\n$1\r\nb\r\n:1\r\n"},
		{"invalid kind", Value{}, "-ERR invalid reply kind 0\r\n", "-ERR invalid reply kind 0\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(AppendValue(nil, tc.v, RESP2)); got != tc.resp2 {
				t.Errorf("RESP2 = %q, want %q", got, tc.resp2)
			}
			if got := string(AppendValue(nil, tc.v, RESP3)); got != tc.resp3 {
				t.Errorf("RESP3 = %q, want %q", got, tc.resp3)
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("boom") }

func TestWriter(t *testing.T) {
	var sb strings.Builder
	w := NewWriter(&sb)
	w.WriteValue(Map(Bulk("a"), Integer(1)))
	w.SetProto(RESP3)
	if w.Proto() != RESP3 {
		t.Fatalf("proto = %d", w.Proto())
	}
	w.WriteValue(Map(Bulk("a"), Integer(1)))
	w.Append(func(b []byte, proto int) []byte { return AppendPushLen(b, 0, proto) })
	w.WriteRaw([]byte("+x\r\n"))
	if w.Buffered() == 0 {
		t.Fatal("nothing buffered")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "*2\r\n$1\r\na\r\n:1\r\n%1\r\n$1\r\na\r\n:1\r\n>0\r\n+x\r\n"
	if sb.String() != want {
		t.Fatalf("wrote %q, want %q", sb.String(), want)
	}
	fw := NewWriter(failWriter{})
	fw.WriteValue(OK())
	if err := fw.Flush(); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("flush err = %v", err)
	}
}

// eachReader runs f as two subtests, name and name+"/one-byte-reads": with
// in served whole, and one byte per Read (every partial-read path).
func eachReader(t *testing.T, name, in string, f func(t *testing.T, src io.Reader)) {
	t.Helper()
	t.Run(name, func(t *testing.T) { f(t, strings.NewReader(in)) })
	t.Run(name+"/one-byte-reads", func(t *testing.T) { f(t, iotest.OneByteReader(strings.NewReader(in))) })
}
