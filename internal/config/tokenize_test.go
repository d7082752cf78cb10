package config

import (
	"errors"
	"reflect"
	"testing"
)

func TestSplitArgs(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{in: "", want: nil},
		{in: "   \t ", want: nil},
		{in: "port 26379", want: []string{"port", "26379"}},
		{in: "  a\tb  c ", want: []string{"a", "b", "c"}},
		{in: `logfile ""`, want: []string{"logfile", ""}},
		{in: `a "b c"`, want: []string{"a", "b c"}},
		{in: `a "\n\r\t\b\a\\\"\z"`, want: []string{"a", "\n\r\t\b\a\\\"z"}},
		{in: `a "\x41\x7a\xff"`, want: []string{"a", "Az\xff"}},
		{in: `a "\x4"`, want: []string{"a", "x4"}},
		{in: `a 'it\'s'`, want: []string{"a", "it's"}},
		{in: `a 'no\nescape'`, want: []string{"a", `no\nescape`}},
		{in: `a ab"cd"`, want: []string{"a", "abcd"}},
		{in: `a "b"c`, err: true},
		{in: `a 'b'c`, err: true},
		{in: `a "b`, err: true},
		{in: `a 'b`, err: true},
		{in: `a "b\`, err: true},
		{in: "a \"b\"\tc", want: []string{"a", "b", "c"}},
		{in: "a\x00b c", want: []string{"a"}},
		{in: "a \"b\x00\"", err: true},
	}
	for _, tc := range cases {
		got, err := SplitArgs(tc.in)
		if tc.err {
			if !errors.Is(err, ErrUnbalancedQuotes) {
				t.Errorf("SplitArgs(%q) = %q, %v; want ErrUnbalancedQuotes", tc.in, got, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestQuote(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{"a b", `"a b"`},
		{"a\"b\\c", `"a\"b\\c"`},
		{"\n\r\t\a\b", `"\n\r\t\a\b"`},
		{"\x00\x7f\xff", `"\x00\x7f\xff"`},
	}
	for _, tc := range cases {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
		for _, q := range []string{Quote(tc.in), QuoteIfNeeded(tc.in)} {
			back, err := SplitArgs("x " + q)
			if err != nil || len(back) != 2 || back[1] != tc.in {
				t.Errorf("round trip of %q via %s: %q, %v", tc.in, q, back, err)
			}
		}
	}
	if got := QuoteIfNeeded("plain-value_1"); got != "plain-value_1" {
		t.Errorf("QuoteIfNeeded quoted a plain value: %s", got)
	}
}

func TestBuildOptions(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--port", "5000"}, `port "5000" `},
		{[]string{"--port", "5000", "--sentinel", "monitor", "m", "1.2.3.4", "6379", "2"},
			"port \"5000\" \nsentinel \"monitor\" \"m\" \"1.2.3.4\" \"6379\" \"2\" "},
		{[]string{"--sentinel", "--port", "1"}, "sentinel \nport \"1\" "},
		{[]string{"--save", "--port", "1"}, "save \"\"\nport \"1\" "},
		{[]string{"--save"}, `save ""`},
		{[]string{"--port 7"}, "port 7 "},
		{[]string{"--bind", "a b", "--x", "-1"}, "bind \"a b\" \nx \"-1\" "},
	}
	for _, tc := range cases {
		if got := BuildOptions(tc.args); got != tc.want {
			t.Errorf("BuildOptions(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
