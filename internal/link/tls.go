package link

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// TLSFiles names the files of tls-cert-file, tls-key-file and
// tls-ca-cert-file.
type TLSFiles struct {
	CertFile, KeyFile, CAFile string
	CADir                     string // tls-ca-cert-dir: every PEM certificate in it
}

// AppendCADir adds every PEM certificate found in the files of dir to pool
// (OpenSSL reads a hashed directory lazily; reading all of it is a
// superset). It fails when dir cannot be read or holds no certificate.
func AppendCADir(pool *x509.CertPool, dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read tls-ca-cert-dir: %w", err)
	}
	n := 0
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err == nil && pool.AppendCertsFromPEM(b) {
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("tls-ca-cert-dir %s: no certificate found", dir)
	}
	return nil
}

// NewTLSConfig builds the client TLS configuration of tls-replication: the
// client certificate (if any) and the CA the peers' certificates must chain
// to (the system roots when CAFile is empty). Like Redis, the peer's
// certificate chain is verified but not its host name: instances are
// usually addressed by IP and Redis does not check names either.
func NewTLSConfig(f TLSFiles) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.CertFile != "" || f.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(f.CertFile, f.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("link: load tls-cert-file/tls-key-file: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	var roots *x509.CertPool
	if f.CAFile != "" {
		pem, err := os.ReadFile(f.CAFile)
		if err != nil {
			return nil, fmt.Errorf("link: read tls-ca-cert-file: %w", err)
		}
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("link: tls-ca-cert-file %s: no certificate found", f.CAFile)
		}
	}
	if f.CADir != "" {
		if roots == nil {
			roots = x509.NewCertPool()
		}
		if err := AppendCADir(roots, f.CADir); err != nil {
			return nil, fmt.Errorf("link: %w", err)
		}
	}
	// Verify the chain ourselves, without the host name check.
	cfg.InsecureSkipVerify = true
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("link: peer sent no certificate")
		}
		inter := x509.NewCertPool()
		for _, c := range cs.PeerCertificates[1:] {
			inter.AddCert(c)
		}
		_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
		if err != nil {
			return fmt.Errorf("link: peer certificate: %w", err)
		}
		return nil
	}
	return cfg, nil
}
