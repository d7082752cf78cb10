package redisargs

import (
	"errors"
	"reflect"
	"testing"
)

// refSplit is a line-by-line port of sdssplitargs (Redis 7.0 src/sds.c),
// kept deliberately close to the C (a NUL-terminated buffer walked by a
// pointer, the same branches in the same order) so that it can serve as
// the reference model of Split in FuzzSplitReference. ok is false where
// the C returns NULL ("goto err").
func refSplit(line string) (args []string, ok bool) {
	buf := append([]byte(line), 0) // the C string and its terminator
	p := 0
	isspace := func(c byte) bool {
		return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
	}
	isHexDigit := func(c byte) bool {
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
	}
	hexDigitToInt := func(c byte) byte {
		switch {
		case c >= '0' && c <= '9':
			return c - '0'
		case c >= 'a' && c <= 'f':
			return c - 'a' + 10
		}
		return c - 'A' + 10
	}
	args = []string{}
	for {
		// skip blanks
		for buf[p] != 0 && isspace(buf[p]) {
			p++
		}
		if buf[p] == 0 {
			return args, true
		}
		// get a token
		inq, insq, done := false, false, false
		current := []byte{}
		for !done {
			switch {
			case inq:
				switch {
				case buf[p] == '\\' && buf[p+1] == 'x' && isHexDigit(buf[p+2]) && isHexDigit(buf[p+3]):
					current = append(current, hexDigitToInt(buf[p+2])*16+hexDigitToInt(buf[p+3]))
					p += 3
				case buf[p] == '\\' && buf[p+1] != 0:
					p++
					c := buf[p]
					switch buf[p] {
					case 'n':
						c = '\n'
					case 'r':
						c = '\r'
					case 't':
						c = '\t'
					case 'b':
						c = '\b'
					case 'a':
						c = '\a'
					}
					current = append(current, c)
				case buf[p] == '"':
					// closing quote must be followed by a space or nothing at all
					if buf[p+1] != 0 && !isspace(buf[p+1]) {
						return nil, false
					}
					done = true
				case buf[p] == 0:
					return nil, false // unterminated quotes
				default:
					current = append(current, buf[p])
				}
			case insq:
				switch {
				case buf[p] == '\\' && buf[p+1] == '\'':
					p++
					current = append(current, '\'')
				case buf[p] == '\'':
					if buf[p+1] != 0 && !isspace(buf[p+1]) {
						return nil, false
					}
					done = true
				case buf[p] == 0:
					return nil, false
				default:
					current = append(current, buf[p])
				}
			default:
				switch buf[p] {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					current = append(current, buf[p])
				}
			}
			if buf[p] != 0 {
				p++
			}
		}
		args = append(args, string(current))
	}
}

func TestRefSplitTable(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{`a b  c`, []string{"a", "b", "c"}, true},
		{`"a\x41\n" 'b\'c'`, []string{"aA\n", "b'c"}, true},
		{`a"b c"d`, nil, false},
		{`a"b c" d`, []string{"ab c", "d"}, true},
		{"a\vb\fc", []string{"a\vb\fc"}, true},
		{"\f a", []string{"a"}, true},
		{"a\x00b c", []string{"a"}, true},
		{`"x`, nil, false},
		{`'y`, nil, false},
		{``, []string{}, true},
	} {
		got, ok := refSplit(c.in)
		if ok != c.ok || (ok && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("refSplit(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// FuzzSplitReference is the differential fuzz target of the config and
// inline-command tokenizer: Split must give exactly what the port of
// sdssplitargs (refSplit) gives, arguments and errors.
func FuzzSplitReference(f *testing.F) {
	for _, s := range []string{`a b c`, `"a\x41\n" 'b\'c'`, `"x`, `'y`, `"a"b`, ``, "a\x00b", "a\vb",
		`"\x4g" '\x41'`, `"\\" '\\'`, `a'b c'`, "sentinel monitor \"m y\" 127.0.0.1 6379 2", `"a\`, `'a\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		want, ok := refSplit(in)
		got, err := Split(in)
		if ok != (err == nil) {
			t.Fatalf("Split(%q): err %v, reference ok=%v (%q)", in, err, ok, want)
		}
		if err != nil {
			if !errors.Is(err, ErrUnbalancedQuotes) {
				t.Fatalf("Split(%q): error %v is not ErrUnbalancedQuotes", in, err)
			}
			return
		}
		if len(got) != len(want) {
			t.Fatalf("Split(%q) = %q, reference %q", in, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("Split(%q) = %q, reference %q", in, got, want)
			}
		}
	})
}
