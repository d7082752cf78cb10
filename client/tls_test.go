package client

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// testPKI is a CA and two server certificates for 127.0.0.1 signed by it:
// one for the sentinel, one for the data node.
type testPKI struct {
	pool              *x509.CertPool
	sentinel, data    tls.Certificate
	dataCert, dataKey string // PEM files for redis-server
	caFile            string
	otherPool         *x509.CertPool // a CA that signed nothing we use
}

func newCA(t *testing.T) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return c, key, der
}

func leaf(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, serial int64) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	ca, caKey, caDER := newCA(t)
	other, _, _ := newCA(t)
	p := &testPKI{pool: x509.NewCertPool(), otherPool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	p.otherPool.AddCert(other)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	p.caFile = write("ca.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	sc, sk := leaf(t, ca, caKey, 2)
	dc, dk := leaf(t, ca, caKey, 3)
	p.dataCert, p.dataKey = write("data.pem", dc), write("data.key", dk)
	var err error
	if p.sentinel, err = tls.X509KeyPair(sc, sk); err != nil {
		t.Fatal(err)
	}
	if p.data, err = tls.X509KeyPair(dc, dk); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTLS runs a TLS sentinel and a TLS data node, each checked against its
// own tls.Config.
func TestTLS(t *testing.T) {
	t.Parallel()
	pki := newTestPKI(t)
	tlsPort := testutil.FreePort(t)
	// The plain port stays for testutil's readiness check.
	testutil.StartRedis(t, "tls-port "+strconv.Itoa(tlsPort), "tls-cert-file "+pki.dataCert,
		"tls-key-file "+pki.dataKey, "tls-ca-cert-file "+pki.caFile, "tls-auth-clients no")
	tlsAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(tlsPort))
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pki.sentinel}})
	if err != nil {
		t.Fatalf("tls listen: %v", err)
	}
	fs := serveFakeSentinel(t, ln, tlsAddr, 1)
	tests := []struct {
		name                 string
		sentinelTLS, dataTLS *tls.Config
		wantErr              error
	}{
		{"both verified", &tls.Config{RootCAs: pki.pool}, &tls.Config{RootCAs: pki.pool}, nil},
		{"sentinel CA wrong", &tls.Config{RootCAs: pki.otherPool}, &tls.Config{RootCAs: pki.pool}, ErrNoSentinelReachable},
		{"data CA wrong", &tls.Config{RootCAs: pki.pool}, &tls.Config{RootCAs: pki.otherPool}, ErrMasterUnreachable},
		// As go-redis: one TLSConfig for sentinels and data nodes (before,
		// the client talked plain TCP to the TLS sentinel).
		{"TLSConfig only, for both", nil, &tls.Config{RootCAs: pki.pool}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, SentinelTLSConfig: tc.sentinelTLS,
				TLSConfig: tc.dataTLS, DialTimeout: time.Second, MaxRetries: -1})
			err := rdb.Set(context.Background(), "k", "v", 0).Err()
			if tc.wantErr == nil && err != nil {
				t.Fatalf("Set: %v", err)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("Set error = %v, want %v", err, tc.wantErr)
			}
		})
	}
}
