package resp

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
)

// readAll reads commands until an error and returns them with that error.
func readAll(r *Reader) ([][]string, error) {
	var out [][]string
	for {
		args, err := r.ReadCommand()
		if err != nil {
			return out, err
		}
		cmd := make([]string, len(args))
		for i, a := range args {
			cmd[i] = string(a)
		}
		out = append(out, cmd)
	}
}

// readCommandCase is one input of the ReadCommand table.
type readCommandCase struct {
	name   string
	in     string
	lim    Limits
	unauth bool
	want   [][]string
	err    string // "" means clean io.EOF
}

// readCommandCases is the ReadCommand table, shared with the buffered
// reader's test.
func readCommandCases() []readCommandCase {
	big := strings.Repeat("x", 70000)
	return []readCommandCase{
		{name: "multibulk", in: "*2\r\n$4\r\nPING\r\n$2\r\nhi\r\n", want: [][]string{{"PING", "hi"}}},
		{name: "pipelined", in: "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\nPING\r\n", want: [][]string{{"PING"}, {"PING"}, {"PING"}}},
		{name: "inline", in: "PING\r\n", want: [][]string{{"PING"}}},
		{name: "inline LF only and blank lines", in: "PING\r\n\n\r\n  \nINFO  server\n", want: [][]string{{"PING"}, {"INFO", "server"}}},
		{name: "inline quotes", in: "SET \"a b\" 'c d' \"\\x41\\n\"\r\n", want: [][]string{{"SET", "a b", "c d", "A\n"}}},
		{name: "inline empty quoted", in: "ECHO \"\" ''\r\n", want: [][]string{{"ECHO", "", ""}}},
		// Redis 7.0.15 answers "ECHO a\vb" with "a\vb": \v and \f do not
		// end an unquoted argument (sdssplitargs).
		{name: "inline vertical tab inside a word", in: "ECHO a\vb c\fd\r\n", want: [][]string{{"ECHO", "a\vb", "c\fd"}}},
		{name: "empty multibulk skipped", in: "*0\r\n*-1\r\nPING\r\n", want: [][]string{{"PING"}}},
		{name: "empty bulk", in: "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n", want: [][]string{{"ECHO", ""}}},
		{name: "binary bulk", in: "*1\r\n$4\r\na\r\nb\r\n", want: [][]string{{"a\r\nb"}}},
		{name: "trailing bytes after payload not checked", in: "*1\r\n$4\r\nPINGxx*1\r\n$1\r\nA\r\n", want: [][]string{{"PING"}, {"A"}}},
		{name: "bad multibulk len", in: "*x\r\n", err: "Protocol error: invalid multibulk length"},
		{name: "multibulk len plus sign", in: "*+1\r\n", err: "Protocol error: invalid multibulk length"},
		{name: "multibulk too many", in: "*3\r\n", lim: Limits{MaxArgs: 2}, err: "Protocol error: invalid multibulk length"},
		{name: "multibulk overflow", in: "*99999999999999999999\r\n", err: "Protocol error: invalid multibulk length"},
		{name: "multibulk above INT_MAX", in: "*2147483648\r\n", lim: Limits{MaxArgs: 1 << 40}, err: "Protocol error: invalid multibulk length"},
		{name: "unauth multibulk", in: "*11\r\n", unauth: true, err: "Protocol error: unauthenticated multibulk length"},
		{name: "unauth multibulk 10 ok", in: "*10\r\n" + strings.Repeat("$1\r\na\r\n", 10), unauth: true, want: [][]string{strings.Split("aaaaaaaaaa", "")}},
		{name: "expected dollar", in: "*1\r\n:4\r\n", err: "Protocol error: expected '$', got ':'"},
		{name: "bad bulk len", in: "*1\r\n$x\r\n", err: "Protocol error: invalid bulk length"},
		{name: "negative bulk len", in: "*1\r\n$-1\r\n", err: "Protocol error: invalid bulk length"},
		{name: "bulk above max", in: "*1\r\n$11\r\n", lim: Limits{MaxBulkLen: 10}, err: "Protocol error: invalid bulk length"},
		{name: "bulk above proto max", in: "*1\r\n$536870913\r\n", err: "Protocol error: invalid bulk length"},
		{name: "unauth bulk", in: "*1\r\n$16385\r\n", unauth: true, err: "Protocol error: unauthenticated bulk length"},
		{name: "unauth bulk 16384 ok", in: "*1\r\n$16384\r\n" + strings.Repeat("a", 16384) + "\r\n", unauth: true, want: [][]string{{strings.Repeat("a", 16384)}}},
		{name: "too big inline", in: big, err: "Protocol error: too big inline request"},
		{name: "too big inline with newline", in: big + "\r\n", err: "Protocol error: too big inline request"},
		{name: "inline at limit", in: strings.Repeat("y", 100) + "\r\n", lim: Limits{MaxInlineLen: 100}, want: [][]string{{strings.Repeat("y", 100)}}},
		{name: "too big mbulk count", in: "*" + big, err: "Protocol error: too big mbulk count string"},
		{name: "too big bulk count", in: "*1\r\n$" + big, err: "Protocol error: too big bulk count string"},
		{name: "unbalanced double", in: "SET \"a\r\n", err: "Protocol error: unbalanced quotes in request"},
		{name: "unbalanced single", in: "SET 'a\r\n", err: "Protocol error: unbalanced quotes in request"},
		{name: "quote not followed by space", in: "SET \"a\"b\r\n", err: "Protocol error: unbalanced quotes in request"},
		{name: "truncated bulk", in: "*1\r\n$5\r\nab", err: io.ErrUnexpectedEOF.Error()},
		{name: "truncated header", in: "*1\r\n", err: io.ErrUnexpectedEOF.Error()},
		{name: "truncated inline", in: "PING", err: io.ErrUnexpectedEOF.Error()},
	}
}

func TestReadCommand(t *testing.T) {
	tests := readCommandCases()
	for _, tc := range tests {
		eachReader(t, tc.name, tc.in, func(t *testing.T, src io.Reader) {
			r := NewReaderLimits(src, tc.lim)
			r.SetUnauthenticated(tc.unauth)
			got, err := readAll(r)
			if tc.err == "" {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("err = %v, want io.EOF", err)
				}
			} else {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if strings.HasPrefix(tc.err, "Protocol error") && !errors.Is(err, ErrProtocol) {
					t.Fatalf("err %v does not match ErrProtocol", err)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d commands %q, want %d %q", len(got), got, len(tc.want), tc.want)
			}
			for i := range got {
				if strings.Join(got[i], "\x00") != strings.Join(tc.want[i], "\x00") {
					t.Fatalf("command %d = %q, want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestReadCommandLargeBulkGrowsAsDataArrives(t *testing.T) {
	payload := strings.Repeat("z", 3<<20)
	in := "*2\r\n$3\r\nSET\r\n$" + strconv.Itoa(len(payload)) + "\r\n" + payload + "\r\n"
	r := NewReader(strings.NewReader(in))
	args, err := r.ReadCommand()
	if err != nil {
		t.Fatal(err)
	}
	if len(args) != 2 || string(args[1]) != payload {
		t.Fatalf("bad args: %d args, len %d", len(args), len(args[len(args)-1]))
	}
}

func TestReadCommandAnnouncedBulkIsNotPreallocated(t *testing.T) {
	// 500 MiB announced, 10 bytes sent: the reader must fail with EOF
	// without having allocated the announced size.
	in := "*1\r\n$524288000\r\n0123456789"
	r := NewReader(strings.NewReader(in))
	if _, err := r.ReadCommand(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want unexpected EOF", err)
	}
	if c := cap(r.argbuf); c > 1<<20 {
		t.Fatalf("argbuf capacity %d after 10 payload bytes", c)
	}
}

// TestSplitArgs checks resp's wrapper around redisargs.Append (whose own
// table holds the tokenizer rules): arguments come back as byte slices, and
// unbalanced quotes are the protocol error Redis sends.
func TestSplitArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{in: "", want: nil},
		{in: "a b\tc", want: []string{"a", "b", "c"}},
		{in: `SET "a b" 'c\'d' "\x41"`, want: []string{"SET", "a b", "c'd", "A"}},
		{in: `"unterminated`, err: true},
		{in: `'a'b`, err: true},
	}
	for _, tc := range tests {
		got, err := SplitArgs([]byte(tc.in))
		if (err != nil) != tc.err {
			t.Fatalf("SplitArgs(%q) err = %v, want err %v", tc.in, err, tc.err)
		}
		if err != nil {
			if !errors.Is(err, ErrProtocol) || err.Error() != "Protocol error: unbalanced quotes in request" {
				t.Fatalf("SplitArgs(%q) err %v is not the unbalanced-quotes ErrProtocol", tc.in, err)
			}
			continue
		}
		if len(got) != len(tc.want) {
			t.Fatalf("SplitArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
		for i := range got {
			if string(got[i]) != tc.want[i] {
				t.Fatalf("SplitArgs(%q)[%d] = %q, want %q", tc.in, i, got[i], tc.want[i])
			}
		}
	}
}
