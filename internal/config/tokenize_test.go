package config

import (
	"errors"
	"reflect"
	"testing"
)

// TestSplitArgs checks config's wrapper around redisargs.Split (whose own
// table holds the tokenizer rules): results pass through, and every
// tokenizer error becomes ErrUnbalancedQuotes.
func TestSplitArgs(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{in: "", want: nil},
		{in: `sentinel monitor "my master" 127.0.0.1 6379 2`, want: []string{"sentinel", "monitor", "my master", "127.0.0.1", "6379", "2"}},
		{in: `logfile ""`, want: []string{"logfile", ""}},
		{in: `a "b"c`, err: true},
		{in: `a 'b`, err: true},
	}
	for _, tc := range cases {
		got, err := SplitArgs(tc.in)
		if tc.err {
			if !errors.Is(err, ErrUnbalancedQuotes) || got != nil {
				t.Errorf("SplitArgs(%q) = %q, %v; want nil, ErrUnbalancedQuotes", tc.in, got, err)
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
