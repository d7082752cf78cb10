package redisargs

import (
	"errors"
	"reflect"
	"testing"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{in: "", want: nil},
		{in: "   \t ", want: nil},
		{in: "\v\f\r\n", want: nil},
		{in: "port 26379", want: []string{"port", "26379"}},
		{in: "  a\tb  c ", want: []string{"a", "b", "c"}},
		{in: "a\r\nb", want: []string{"a", "b"}},
		{in: `logfile ""`, want: []string{"logfile", ""}},
		{in: `a "b c"`, want: []string{"a", "b c"}},
		{in: `a "\n\r\t\b\a\\\"\z"`, want: []string{"a", "\n\r\t\b\a\\\"z"}},
		{in: `"\x4a\x4B\n\r\t\b\a\"\\\q"`, want: []string{"JK\n\r\t\b\a\"\\q"}},
		{in: `a "\x41\x7a\xff"`, want: []string{"a", "Az\xff"}},
		{in: `a "\x4"`, want: []string{"a", "x4"}},
		{in: `"\x4g"`, want: []string{"x4g"}},
		{in: `a 'it\'s'`, want: []string{"a", "it's"}},
		{in: `a 'no\nescape'`, want: []string{"a", `no\nescape`}},
		{in: `a ab"cd"`, want: []string{"a", "abcd"}},
		{in: `a"b c"`, want: []string{"ab c"}},
		{in: "a \"b\"\tc", want: []string{"a", "b", "c"}},
		{in: "a \"b\"\vc", want: []string{"a", "b", "c"}},
		// Redis 7.0.15 answers "ECHO a\vb" with "a\vb": \v and \f end
		// no unquoted argument, though they are skipped between arguments.
		{in: "ECHO a\vb", want: []string{"ECHO", "a\vb"}},
		{in: "a\fb \vc", want: []string{"a\fb", "c"}},
		// As in C, the line stops at the first NUL.
		{in: "a\x00b c", want: []string{"a"}},
		{in: "\x00a", want: nil},
		{in: `a "b"c`, err: true},
		{in: `a 'b'c`, err: true},
		{in: `a "b`, err: true},
		{in: `a 'b`, err: true},
		{in: `a "b\`, err: true},
		{in: "a \"b\x00\"", err: true},
		{in: `'a\'`, err: true},
	}
	for _, tc := range cases {
		got, err := Split(tc.in)
		if tc.err {
			if !errors.Is(err, ErrUnbalancedQuotes) {
				t.Errorf("Split(%q) = %q, %v; want ErrUnbalancedQuotes", tc.in, got, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Split(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestAppendReusesBuffers checks that Append appends after what buf and
// offs already hold, so a reader can reuse them.
func TestAppendReusesBuffers(t *testing.T) {
	buf, offs, err := Append([]byte(`x "y z"`), []byte("pre"), []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if string(buf) != "prexy z" || !reflect.DeepEqual(offs, []int{0, 3, 4}) {
		t.Fatalf("Append = %q, %v; want %q, %v", buf, offs, "prexy z", []int{0, 3, 4})
	}
}

// FuzzSplit checks that splitting never panics, that the string and byte
// forms agree, and that no argument is made of more bytes than the input.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{`a b c`, `"a\x41\n" 'b\'c'`, `"x`, `'y`, `"a"b`, ``, "a\x00b", "a\vb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		args, err := Split(in)
		buf, offs, berr := Append([]byte(in), nil, nil)
		if (err == nil) != (berr == nil) {
			t.Fatalf("Split err %v, Append err %v", err, berr)
		}
		if err != nil {
			if !errors.Is(err, ErrUnbalancedQuotes) {
				t.Fatalf("error %v is not ErrUnbalancedQuotes", err)
			}
			return
		}
		if len(args) != len(offs) {
			t.Fatalf("Split gave %d args, Append %d", len(args), len(offs))
		}
		total := 0
		for i, a := range args {
			end := len(buf)
			if i+1 < len(offs) {
				end = offs[i+1]
			}
			if a != string(buf[offs[i]:end]) {
				t.Fatalf("arg %d: Split %q, Append %q", i, a, buf[offs[i]:end])
			}
			total += len(a)
		}
		if total > len(in) {
			t.Fatalf("args longer (%d) than input (%d)", total, len(in))
		}
	})
}
