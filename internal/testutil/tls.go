package testutil

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// TLSFiles are PEM files for a test CA and a server certificate for
// 127.0.0.1 signed by it (also usable as a client certificate).
type TLSFiles struct {
	CA, Cert, Key string
}

// GenerateTLS writes a fresh CA and a 127.0.0.1 server/client certificate
// into a temp dir.
func GenerateTLS(t TB) TLSFiles {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("testutil: %v", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gosentinel test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatalf("testutil: %v", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("testutil: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caTmpl, &key.PublicKey, caKey)
	if err != nil {
		t.Fatalf("testutil: %v", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatalf("testutil: %v", err)
	}
	f := TLSFiles{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "cert.pem"), Key: filepath.Join(dir, "key.pem")}
	writeFile(t, f.CA, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})))
	writeFile(t, f.Cert, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
	writeFile(t, f.Key, string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})))
	return f
}

// StartTLSSentinel starts the real redis-sentinel listening only on a TLS
// port (plain port 0) with the given certificates, client certificates
// required, and the config body appended. Its outgoing links to monitored
// instances stay plain. Readiness is probed with a PING over TLS. It is
// killed in t.Cleanup.
func StartTLSSentinel(t TB, files TLSFiles, body string) *Process {
	t.Helper()
	port, dir := sentinelDir(t, "tls-sentinel-")
	conf := filepath.Join(dir, "sentinel.conf")
	log := filepath.Join(dir, "sentinel.log")
	writeFile(t, conf, fmt.Sprintf("port 0\ntls-port %d\nbind 127.0.0.1\nlogfile %s\ntls-cert-file %s\ntls-key-file %s\ntls-ca-cert-file %s\ntls-auth-clients yes\n%s\n",
		port, quote(log), quote(files.Cert), quote(files.Key), quote(files.CA), body))
	p := spawn(t, "redis-sentinel", Binary(t, "redis-sentinel"), []string{conf}, dir, port)
	p.Conf, p.LogFile = conf, log
	cfg, err := clientTLS(files)
	if err != nil {
		t.Fatalf("testutil: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := tlsPing(p.Addr(), cfg)
		if err == nil {
			return p
		}
		if p.Exited() || time.Now().After(deadline) {
			t.Fatalf("testutil: TLS sentinel on port %d not ready: %v\nlog: %s", port, err, p.Log())
		}
		time.Sleep(10 * time.Millisecond) // poll interval: there is no readiness event to await
	}
}

func clientTLS(files TLSFiles) (*tls.Config, error) {
	caPEM, err := os.ReadFile(files.CA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	cert, err := tls.LoadX509KeyPair(files.Cert, files.Key)
	if err != nil {
		return nil, err
	}
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// tlsPing is Ping over TLS.
func tlsPing(addr string, cfg *tls.Config) error {
	d := &net.Dialer{Timeout: 200 * time.Millisecond}
	c, err := tls.DialWithDialer(d, "tcp", addr, cfg)
	if err != nil {
		return err
	}
	return pingConn(c)
}

// ClientTLS loads files as a client would: a pool trusting its CA and its
// certificate as the client certificate (the same files serve both ends).
func ClientTLS(t TB, files TLSFiles) (*x509.CertPool, tls.Certificate) {
	t.Helper()
	caPEM, err := os.ReadFile(files.CA)
	if err != nil {
		t.Fatalf("testutil: %v", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	cert, err := tls.LoadX509KeyPair(files.Cert, files.Key)
	if err != nil {
		t.Fatalf("testutil: %v", err)
	}
	return pool, cert
}
