package harness

import (
	"errors"
	"strings"
	"testing"
)

func TestReadValue(t *testing.T) {
	runParseCases(t, func(in string) (any, error) { return connFrom(strings.NewReader(in)).Read() }, nil, []parseCase[any]{
		{"simple", "+OK\r\n", "OK", false},
		{"error", "-ERR no\r\n", RedisError("ERR no"), false},
		{"int", ":42\r\n", int64(42), false},
		{"bulk", "$3\r\nabc\r\n", "abc", false},
		{"null bulk", "$-1\r\n", nil, false},
		{"null array", "*-1\r\n", nil, false},
		{"addr", "*2\r\n$9\r\n127.0.0.1\r\n$4\r\n6379\r\n", []any{"127.0.0.1", "6379"}, false},
		{"pmessage", "*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$6\r\n+sdown\r\n$1\r\nx\r\n", []any{"pmessage", "*", "+sdown", "x"}, false},
		// internal/resp, like redis-server, takes a bare LF as a line end.
		{"LF only", "+OK\n", "OK", false},
		{"RESP3 null refused", "_\r\n", nil, true},
		{"RESP3 map refused", "%1\r\n+a\r\n+b\r\n", nil, true},
		{"RESP3 inside array refused", "*1\r\n#t\r\n", nil, true},
		{"bad type", "!3\r\n", nil, true},
		{"huge bulk", "$99999999999\r\n", nil, true},
		{"negative bulk", "$-2\r\n", nil, true},
		{"huge array", "*99999999\r\n", nil, true},
		{"bad int", ":x\r\n", nil, true},
		{"short bulk", "$5\r\nab\r\n", nil, true},
		{"bulk bad terminator", "$2\r\nabXY", nil, true},
		{"too deep", strings.Repeat("*1\r\n", 20) + ":1\r\n", nil, true},
		{"empty line", "\r\n", nil, true},
	})
}

func TestEncodeCommand(t *testing.T) {
	got := string(EncodeCommand("SENTINEL", "GET-MASTER-ADDR-BY-NAME", ""))
	want := "*3\r\n$8\r\nSENTINEL\r\n$23\r\nGET-MASTER-ADDR-BY-NAME\r\n$0\r\n\r\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseMasterAddr(t *testing.T) {
	tests := []struct {
		name    string
		in      any
		want    string
		wantErr error
	}{
		{"ok", []any{"127.0.0.1", "6379"}, "127.0.0.1:6379", nil},
		{"ipv6", []any{"::1", "6379"}, "[::1]:6379", nil},
		{"null (unknown master)", nil, "", ErrUnexpectedReply},
		{"one element", []any{"127.0.0.1"}, "", ErrUnexpectedReply},
		{"int port", []any{"127.0.0.1", int64(1)}, "", ErrUnexpectedReply},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMasterAddr(tt.in)
			if got != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("got %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
	var re RedisError
	if _, err := parseMasterAddr(RedisError("ERR x")); !errors.As(err, &re) {
		t.Errorf("error reply not returned as RedisError: %v", err)
	}
}

func TestFlatMap(t *testing.T) {
	m, err := flatMap([]any{"name", "mymaster", "flags", "master"})
	if err != nil || m["name"] != "mymaster" || m["flags"] != "master" || len(m) != 2 {
		t.Errorf("flatMap = %v, %v", m, err)
	}
	for _, bad := range []any{"x", []any{"a"}, []any{"a", int64(1)}} {
		if _, err := flatMap(bad); !errors.Is(err, ErrUnexpectedReply) {
			t.Errorf("flatMap(%#v) err = %v, want ErrUnexpectedReply", bad, err)
		}
	}
}
