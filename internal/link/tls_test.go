package link

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// writeCA writes a self-signed CA and a server certificate signed by it
// (no IP SAN: Redis does not check names, neither do we) and returns the
// file paths.
func writeCA(t *testing.T, dir, prefix string) (caFile, certFile, keyFile string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: prefix + " CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "redis.invalid"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		KeyUsage:    x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	write := func(name, typ string, b []byte) string {
		p := filepath.Join(dir, prefix+name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("ca.crt", "CERTIFICATE", caDER), write("server.crt", "CERTIFICATE", der), write("server.key", "EC PRIVATE KEY", keyDER)
}

// TestTLSAgainstRedis dials a real redis-server's tls-port: the right CA
// connects (no host name check), a foreign CA is refused at dial time.
func TestTLSAgainstRedis(t *testing.T) {
	dir := t.TempDir()
	caFile, certFile, keyFile := writeCA(t, dir, "good-")
	otherCA, _, _ := writeCA(t, dir, "other-")
	tlsPort := testutil.FreePort(t)
	testutil.StartRedis(t, "tls-port "+strconv.Itoa(tlsPort), "tls-cert-file "+certFile, "tls-key-file "+keyFile,
		"tls-ca-cert-file "+caFile, "tls-auth-clients optional")
	addr := "127.0.0.1:" + strconv.Itoa(tlsPort)
	tests := []struct {
		name string
		ca   string
		ok   bool
	}{
		{"trusted CA", caFile, true},
		{"foreign CA", otherCA, false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := NewTLSConfig(TLSFiles{CertFile: certFile, KeyFile: keyFile, CAFile: tc.ca})
			if err != nil {
				t.Fatal(err)
			}
			m := newManager(t, Config{TLS: cfg})
			if !tc.ok {
				m.Dial(ConnID(i), addr, Cmd)
				mustClosed(t, m, ConnID(i), ErrDial)
				return
			}
			mustConnect(t, m, ConnID(i), addr, Cmd)
			m.Send(ConnID(i), 1, []string{"PING"}, 0)
			if v := mustReply(t, m, ConnID(i), 1); v.Str != "PONG" {
				t.Fatalf("PING over TLS = %#v", v)
			}
		})
	}
}

func TestNewTLSConfigErrors(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.pem")
	os.WriteFile(junk, []byte("not a certificate"), 0o600)
	tests := []struct {
		name string
		f    TLSFiles
	}{
		{"missing cert", TLSFiles{CertFile: filepath.Join(dir, "nope.crt"), KeyFile: filepath.Join(dir, "nope.key")}},
		{"missing CA", TLSFiles{CAFile: filepath.Join(dir, "nope.crt")}},
		{"CA without certificate", TLSFiles{CAFile: junk}},
	}
	for _, tc := range tests {
		if _, err := NewTLSConfig(tc.f); err == nil {
			t.Errorf("%s: no error", tc.name)
		} else if errors.Is(err, ErrDial) {
			t.Errorf("%s: unexpected error class %v", tc.name, err)
		}
	}
}
