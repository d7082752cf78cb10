package ops

import (
	"errors"
	"net"
	"os"
	"testing"
)

func TestFindListenerPID(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	port := l.Addr().(*net.TCPAddr).Port
	pid, err := FindListenerPID(port)
	if err != nil || pid != os.Getpid() {
		t.Errorf("FindListenerPID(%d) = %d, %v; want %d", port, pid, err, os.Getpid())
	}
	l2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := l2.Addr().(*net.TCPAddr).Port
	l2.Close()
	if _, err := FindListenerPID(free); !errors.Is(err, ErrNoListener) {
		t.Errorf("closed port: err = %v, want ErrNoListener", err)
	}
}

func TestIsLocalHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host string
		want bool
	}{
		{"127.0.0.1", true}, {"::1", true}, {"localhost", true}, {"192.0.2.55", false}, {"example.invalid", false}, {"", false},
	}
	for _, tc := range tests {
		if got := IsLocalHost(tc.host); got != tc.want {
			t.Errorf("IsLocalHost(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}

func TestTLSConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    ConnOptions
		nil_ bool
		err  bool
	}{
		{"off", ConnOptions{}, true, false},
		{"on", ConnOptions{TLS: true, TLSSkipVerify: true}, false, false},
		{"missing CA", ConnOptions{TLS: true, TLSCA: "/nonexistent/ca.pem"}, true, true},
		{"cert without key", ConnOptions{TLS: true, TLSCert: "c.pem"}, true, true},
		{"bad key pair", ConnOptions{TLS: true, TLSCert: "/nonexistent/c.pem", TLSKey: "/nonexistent/k.pem"}, true, true},
	}
	for _, tc := range tests {
		cfg, err := tc.o.TLSConfig()
		if (err != nil) != tc.err || (cfg == nil) != tc.nil_ {
			t.Errorf("%s: cfg=%v err=%v", tc.name, cfg, err)
		}
		if cfg != nil && cfg.InsecureSkipVerify != tc.o.TLSSkipVerify {
			t.Errorf("%s: InsecureSkipVerify not applied", tc.name)
		}
	}
	if _, err := (&ConnOptions{}).sentinels(); !errors.Is(err, ErrNoSentinels) {
		t.Errorf("no sentinels: %v", err)
	}
}
