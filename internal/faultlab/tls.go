package faultlab

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
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// labTLS is a topology's TLS material (Setup.TLS): a lab CA, the
// certificate every redis-server and sentinel serves and presents on its
// own links (server and client auth), and the client configuration of the
// lab's writers, sampler and observer. WrongCA and Expired are the bad
// peers of F5: a certificate from another CA, and one from the lab CA
// whose validity ended a day ago.
type labTLS struct {
	Dir                    string
	CA, Cert, Key          string // PEM files of the lab CA and the node certificate
	Client                 *tls.Config
	WrongCA, Expired       tls.Certificate
	wrongCAPEM, expiredPEM string // the bad certificates' PEM files (for the record)
}

// tlsKeyPair is one generated certificate and its key.
type tlsKeyPair struct {
	cert *x509.Certificate
	der  []byte
	key  *ecdsa.PrivateKey
}

// newCA makes a self-signed CA valid around now.
func newCA(name string, now time.Time) (tlsKeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tlsKeyPair{}, fmt.Errorf("ca key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tlsKeyPair{}, fmt.Errorf("ca certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return tlsKeyPair{}, fmt.Errorf("ca certificate: %w", err)
	}
	return tlsKeyPair{cert: cert, der: der, key: key}, nil
}

// issue makes a leaf certificate signed by ca, for server and client
// authentication, valid from notBefore to notAfter, naming ips.
func issue(ca tlsKeyPair, serial int64, name string, notBefore, notAfter time.Time, ips []net.IP) (tlsKeyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tlsKeyPair{}, fmt.Errorf("key of %s: %w", name, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
		NotBefore: notBefore, NotAfter: notAfter, IPAddresses: ips,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return tlsKeyPair{}, fmt.Errorf("certificate of %s: %w", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return tlsKeyPair{}, fmt.Errorf("certificate of %s: %w", name, err)
	}
	return tlsKeyPair{cert: cert, der: der, key: key}, nil
}

// writePair writes kp's certificate and key as PEM files base.crt and
// base.key under dir and returns their paths.
func writePair(dir, base string, kp tlsKeyPair) (certPath, keyPath string, err error) {
	keyDER, err := x509.MarshalECPrivateKey(kp.key)
	if err != nil {
		return "", "", fmt.Errorf("key of %s: %w", base, err)
	}
	certPath, keyPath = filepath.Join(dir, base+".crt"), filepath.Join(dir, base+".key")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: kp.der}), 0o644); err != nil {
		return "", "", fmt.Errorf("write %s: %w", certPath, err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return "", "", fmt.Errorf("write %s: %w", keyPath, err)
	}
	return certPath, keyPath, nil
}

// tlsCert is kp as a tls.Certificate (for a Go client presenting it).
func (kp tlsKeyPair) tlsCert() tls.Certificate {
	return tls.Certificate{Certificate: [][]byte{kp.der}, PrivateKey: kp.key, Leaf: kp.cert}
}

// newLabTLS generates the lab CA, the node certificate (naming ips), the
// lab client certificate and the two bad ones under dir.
func newLabTLS(dir string, ips []net.IP, now time.Time) (*labTLS, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("tls dir: %w", err)
	}
	ca, err := newCA("gosentinel fault lab CA", now)
	if err != nil {
		return nil, err
	}
	node, err := issue(ca, 2, "lab node", now.Add(-time.Hour), now.Add(7*24*time.Hour), ips)
	if err != nil {
		return nil, err
	}
	client, err := issue(ca, 3, "lab client", now.Add(-time.Hour), now.Add(7*24*time.Hour), nil)
	if err != nil {
		return nil, err
	}
	expired, err := issue(ca, 4, "expired peer", now.Add(-48*time.Hour), now.Add(-24*time.Hour), ips)
	if err != nil {
		return nil, err
	}
	other, err := newCA("another CA", now)
	if err != nil {
		return nil, err
	}
	wrong, err := issue(other, 5, "wrong-CA peer", now.Add(-time.Hour), now.Add(7*24*time.Hour), ips)
	if err != nil {
		return nil, err
	}
	l := &labTLS{Dir: dir, CA: filepath.Join(dir, "ca.crt"), WrongCA: wrong.tlsCert(), Expired: expired.tlsCert()}
	if err := os.WriteFile(l.CA, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.der}), 0o644); err != nil {
		return nil, fmt.Errorf("write %s: %w", l.CA, err)
	}
	if l.Cert, l.Key, err = writePair(dir, "node", node); err != nil {
		return nil, err
	}
	if l.wrongCAPEM, _, err = writePair(dir, "wrong-ca", wrong); err != nil {
		return nil, err
	}
	if l.expiredPEM, _, err = writePair(dir, "expired", expired); err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	l.Client = clientTLSConfig(pool, client.tlsCert())
	return l, nil
}

// clientTLSConfig is the configuration of a lab client presenting cert:
// the server's chain must lead to roots; as in Redis (and gosentinel's
// tls-replication links) the host name is not checked, nodes are
// addressed by IP and may be renamed.
func clientTLSConfig(roots *x509.CertPool, cert tls.Certificate) *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert},
		InsecureSkipVerify: true, // the chain is verified below, without the name
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("faultlab: server sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter,
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
			return err
		},
	}
}

// withCert is l's client configuration presenting another certificate
// (F5's bad peers: they trust the lab CA, the servers must refuse them).
// The certificate is sent whatever CAs the server's CertificateRequest
// lists: Go's client would otherwise withhold a certificate that chains
// to none of them and send none at all (Go servers, gosentinel's among
// them, list their client CAs; OpenSSL as redis-server sets it up lists
// none), and the probe would test "no certificate" instead.
func (l *labTLS) withCert(cert tls.Certificate) *tls.Config {
	c := l.Client.Clone()
	c.Certificates = nil
	c.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
	return c
}

// tlsDialer wraps base: every connection is a TLS client of cfg whose
// handshake is done before it is returned, so a refused certificate is a
// dial error.
func tlsDialer(base workload.Dialer, cfg *tls.Config) workload.Dialer {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := base(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tc := tls.Client(c, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			c.Close()
			return nil, fmt.Errorf("tls handshake with %s: %w", addr, err)
		}
		return tc, nil
	}
}

// Dialer is how the lab's own clients on host h (writers, sampler,
// observer) connect to redis and the sentinels: plain TCP from inside h,
// or TLS with the lab client certificate when Setup.TLS is set.
func (t *Topology) Dialer(h string) workload.Dialer {
	base := t.hosts[h].DialContext
	if t.tls == nil {
		return base
	}
	return tlsDialer(base, t.tls.Client)
}

// listenLines are the first lines of a config file for a node on port:
// "port N", or with Setup.TLS "port 0" and "tls-port N" with the lab's
// certificates, client certificates required, and TLS on every link the
// node opens (replication, sentinel links).
func (t *Topology) listenLines(port int) string {
	if t.tls == nil {
		return fmt.Sprintf("port %d\n", port)
	}
	return fmt.Sprintf("port 0\ntls-port %d\ntls-cert-file %s\ntls-key-file %s\ntls-ca-cert-file %s\ntls-auth-clients yes\ntls-replication yes\n",
		port, strconv.Quote(t.tls.Cert), strconv.Quote(t.tls.Key), strconv.Quote(t.tls.CA))
}

// setupTLS generates the TLS material when Setup.TLS is set (after the
// hosts are added: the node certificate names their IPs).
func (t *Topology) setupTLS() error {
	if !t.Setup.TLS {
		return nil
	}
	var ips []net.IP
	for _, ip := range t.origIP {
		ips = append(ips, net.ParseIP(ip))
	}
	l, err := newLabTLS(filepath.Join(t.Dir, "tls"), ips, time.Now())
	if err != nil {
		return fmt.Errorf("tls: %w", err)
	}
	t.tls = l
	return nil
}
