package client

import "testing"

func TestCommandMode(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want connMode
	}{
		{"GET", appendCommand(nil, "GET", "k"), modeNormal},
		{"SET", appendCommand(nil, "set", "k", "v"), modeNormal},
		{"BLPOP", appendCommand(nil, "BLPOP", "q", "0"), modeBlocked},
		{"blmove lower case", appendCommand(nil, "blmove", "a", "b", "LEFT", "RIGHT", "0"), modeBlocked},
		{"WAIT", appendCommand(nil, "WAIT", "1", "0"), modeBlocked},
		{"XREAD without BLOCK", appendCommand(nil, "XREAD", "STREAMS", "s", "0"), modeNormal},
		{"XREAD BLOCK", appendCommand(nil, "XREAD", "BLOCK", "0", "STREAMS", "s", "$"), modeBlocked},
		{"XREADGROUP block", appendCommand(nil, "xreadgroup", "GROUP", "g", "c", "block", "10", "STREAMS", "s", ">"), modeBlocked},
		{"SUBSCRIBE", appendCommand(nil, "SUBSCRIBE", "a"), modeStream},
		{"psubscribe", appendCommand(nil, "psubscribe", "a*"), modeStream},
		{"SSUBSCRIBE", appendCommand(nil, "SSUBSCRIBE", "a"), modeStream},
		{"MONITOR", appendCommand(nil, "MONITOR"), modeStream},
		{"SPUBLISH is not SUBSCRIBE", appendCommand(nil, "SPUBLISH", "a", "b"), modeNormal},
		{"pipeline: only the first counts", append(appendCommand(nil, "GET", "k"), appendCommand(nil, "BLPOP", "q", "0")...), modeNormal},
		{"empty", nil, modeNormal},
		{"inline", []byte("PING\r\n"), modeNormal},
		{"truncated", []byte("*2\r\n$5\r\nBLP"), modeNormal},
		{"huge length", []byte("*2\r\n$99999999999\r\n"), modeNormal},
		{"negative count", []byte("*-1\r\n"), modeNormal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := commandMode(tc.in); got != tc.want {
				t.Fatalf("commandMode(%q) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

// FuzzCommandMode: arbitrary bytes never panic.
func FuzzCommandMode(f *testing.F) {
	f.Add(appendCommand(nil, "XREAD", "BLOCK", "0"))
	f.Add([]byte("*1\r\n$4\r\nwait\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) { _ = commandMode(b) })
}

// BenchmarkCommandMode is the per-write cost the blocked-reader detection
// adds to every command.
func BenchmarkCommandMode(b *testing.B) {
	for _, bc := range []struct {
		name string
		buf  []byte
	}{
		{"GET", appendCommand(nil, "get", "bench:key")},
		{"SET", appendCommand(nil, "set", "bench:key", "value")},
		{"BLPOP", appendCommand(nil, "blpop", "q", "0")},
		{"XREAD BLOCK", appendCommand(nil, "xread", "count", "10", "block", "0", "streams", "s", "$")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = commandMode(bc.buf)
			}
		})
	}
}
