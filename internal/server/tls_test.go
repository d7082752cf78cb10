package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"net"
	"testing"
	"time"
)

// selfSigned returns a throw-away certificate for 127.0.0.1.
func selfSigned(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestServeTLSListener shows that a TLS listener (tls-port) needs nothing
// more than Serve.
func TestServeTLSListener(t *testing.T) {
	s, err := New(Config{Bind: []string{"127.0.0.1"}}, newFakeBackend())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Serve(l); err != nil {
		t.Fatal(err)
	}
	conn, err := tls.Dial("tcp", l.Addr().String(), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	c := &testConn{t: t, conn: conn}
	c.send("PING\r\nCLIENT INFO\r\n")
	c.expect("+PONG\r\n")
	line := c.readLine()
	if line[0] != '$' {
		t.Fatalf("CLIENT INFO header %q", line)
	}
}

// TestStartTLS: StartTLS binds Config.Bind on its own port; plain and TLS
// clients share the server and are counted by NumClients.
func TestStartTLS(t *testing.T) {
	s, plainAddr, _ := startServer(t, Config{})
	if err := s.StartTLS(0, &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}}); err != nil {
		t.Fatal(err)
	}
	if err := s.StartTLS(0, nil); err == nil {
		t.Fatal("StartTLS accepted a nil TLS config")
	}
	addrs := s.Addrs()
	if len(addrs) != 2 {
		t.Fatalf("Addrs = %v, want plain + TLS", addrs)
	}
	conn, err := tls.Dial("tcp", addrs[1].String(), &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	tc := &testConn{t: t, conn: conn}
	tc.send("PING\r\n")
	tc.expect("+PONG\r\n")
	pc := dial(t, plainAddr)
	pc.send("PING\r\n")
	pc.expect("+PONG\r\n")
	if n := s.NumClients(); n != 2 {
		t.Fatalf("NumClients = %d, want 2", n)
	}
	_ = conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	for s.NumClients() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("NumClients = %d after a disconnect, want 1", s.NumClients())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
