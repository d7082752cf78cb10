package server

import (
	"net"
	"strings"
	"testing"
)

func TestStartBind(t *testing.T) {
	tests := []struct {
		name    string
		bind    []string
		wantErr bool
		addrs   int
	}{
		{name: "loopback", bind: []string{"127.0.0.1"}, addrs: 1},
		{name: "optional unbindable skipped", bind: []string{"127.0.0.1", "-192.0.2.1"}, addrs: 1},
		{name: "mandatory unbindable fails", bind: []string{"127.0.0.1", "192.0.2.1"}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(Config{Bind: tc.bind}, newFakeBackend())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			err = s.Start()
			if (err != nil) != tc.wantErr {
				t.Fatalf("Start err = %v, wantErr %v", err, tc.wantErr)
			}
			if err != nil {
				if !strings.Contains(err.Error(), "192.0.2.1") {
					t.Fatalf("error lacks the address: %v", err)
				}
				return
			}
			if got := len(s.Addrs()); got != tc.addrs {
				t.Fatalf("%d listeners, want %d", got, tc.addrs)
			}
		})
	}
}

func TestStartIPv6Loopback(t *testing.T) {
	l, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Skip("no IPv6 loopback")
	}
	_ = l.Close()
	s, err := New(Config{Bind: []string{"::1"}}, newFakeBackend())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	c := dial(t, s.Addrs()[0].String())
	c.send("PING\r\n")
	c.expect("+PONG\r\n")
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Users: []string{"bob on badrule"}},
		{Users: []string{"\"unbalanced"}},
		{RenameCommands: map[string]string{"ping": "auth"}},
	} {
		if _, err := New(cfg, newFakeBackend()); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
	if _, err := New(Config{}, nil); err == nil {
		t.Error("nil backend accepted")
	}
}
