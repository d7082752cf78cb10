package main

import (
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestTLSProtocolsAndCiphers: tls-protocols and tls-ciphers are honoured
// like redis-sentinel does: with "TLSv1.2" and one cipher, a TLS 1.3-only
// client is refused and a TLS 1.2 client negotiates exactly that cipher;
// with "TLSv1.3" a TLS 1.2-only client is refused. Both binaries, side by
// side.
func TestTLSProtocolsAndCiphers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	files := testutil.GenerateTLS(t)
	pool, cert := testutil.ClientTLS(t, files)
	dial := func(addr string, minV, maxV uint16) (*tls.ConnectionState, error) {
		c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: minV, MaxVersion: maxV})
		if err != nil {
			return nil, err
		}
		defer c.Close()
		st := c.ConnectionState()
		return &st, nil
	}
	for _, b := range []string{testutil.Binary(t, "redis-sentinel"), bin} {
		for _, tc := range []struct {
			name, lines                  string
			okMin, okMax, badMin, badMax uint16
			cipher                       uint16
		}{
			{"TLSv1.2+cipher", "tls-protocols TLSv1.2\ntls-ciphers ECDHE-ECDSA-AES256-GCM-SHA384\n",
				tls.VersionTLS12, tls.VersionTLS12, tls.VersionTLS13, tls.VersionTLS13, tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384},
			{"TLSv1.3", "tls-protocols TLSv1.3\n", tls.VersionTLS13, tls.VersionTLS13, tls.VersionTLS12, tls.VersionTLS12, 0},
		} {
			t.Run(filepath.Base(b)+"/"+tc.name, func(t *testing.T) {
				port, tlsPort := testutil.FreePort(t), testutil.FreePort(t)
				dir := t.TempDir()
				conf := filepath.Join(dir, "sentinel.conf")
				log := filepath.Join(dir, "sentinel.log")
				body := fmt.Sprintf("port %d\ntls-port %d\nbind 127.0.0.1\nlogfile %q\ntls-cert-file %q\ntls-key-file %q\ntls-ca-cert-file %q\n%s",
					port, tlsPort, log, files.Cert, files.Key, files.CA, tc.lines)
				if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				s := testutil.StartSentinelConf(t, b, conf, port, log)
				addr := fmt.Sprintf("127.0.0.1:%d", tlsPort)
				st, err := dial(addr, tc.okMin, tc.okMax)
				if err != nil {
					t.Fatalf("allowed version refused: %v\n%s", err, s.Log())
				}
				if tc.cipher != 0 && st.CipherSuite != tc.cipher {
					t.Errorf("cipher %s, want %s", tls.CipherSuiteName(st.CipherSuite), tls.CipherSuiteName(tc.cipher))
				}
				if _, err := dial(addr, tc.badMin, tc.badMax); err == nil {
					t.Errorf("a client limited to version %x was accepted", tc.badMax)
				}
			})
		}
	}
}

// TestTLSDirectiveRefused: a TLS directive Go cannot honour stops
// gosentinel at startup with Redis' config error format (file, line, the
// directive, the reason) instead of running with Go's defaults.
func TestTLSDirectiveRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(conf, []byte("port 0\ntls-ciphersuites TLS_AES_256_GCM_SHA384\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runBin(t, dir, conf)
	out := stdout + stderr
	if code == 0 {
		t.Fatalf("gosentinel started with an unsupported tls-ciphersuites:\n%s", out)
	}
	for _, want := range []string{"*** FATAL CONFIG FILE ERROR", "at line 2", "'tls-ciphersuites TLS_AES_256_GCM_SHA384'", "cannot restrict them"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
