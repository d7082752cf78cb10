package faultlab

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestLabTLSCertificates: the node certificate chains to the lab CA and
// loads from its files as redis-server would; the expired one is refused
// as expired and the wrong-CA one as of an unknown authority.
func TestLabTLSCertificates(t *testing.T) {
	l, err := newLabTLS(t.TempDir(), []net.IP{net.ParseIP("198.18.1.2")}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.LoadX509KeyPair(l.Cert, l.Key); err != nil {
		t.Fatalf("node key pair: %v", err)
	}
	caPEM, err := os.ReadFile(l.CA)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("no certificate in ca.crt")
	}
	node, err := tls.LoadX509KeyPair(l.Cert, l.Key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(node.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	opts := x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if _, err := leaf.Verify(opts); err != nil {
		t.Errorf("node certificate does not verify: %v", err)
	}
	var inv x509.CertificateInvalidError
	if _, err := l.Expired.Leaf.Verify(opts); !errors.As(err, &inv) || inv.Reason != x509.Expired {
		t.Errorf("expired certificate: got %v, want x509.Expired", err)
	}
	var ua x509.UnknownAuthorityError
	if _, err := l.WrongCA.Leaf.Verify(opts); !errors.As(err, &ua) {
		t.Errorf("wrong-CA certificate: got %v, want UnknownAuthorityError", err)
	}
}

// TestListenLines: without Setup.TLS the config files start with the
// plain port only; with it, port 0, the TLS port and the TLS directives.
func TestListenLines(t *testing.T) {
	top := &Topology{RedisHosts: []string{"h1", "h2", "h3"}, origIP: map[string]string{"h1": "198.18.1.2"}, Dir: t.TempDir()}
	conf := top.sentinelConf("h1")
	if !strings.HasPrefix(conf, "port 26379\nbind") || strings.Contains(conf, "tls") {
		t.Errorf("plain sentinel.conf:\n%s", conf)
	}
	top.tls = &labTLS{CA: "/l/ca.crt", Cert: "/l/node.crt", Key: "/l/node.key"}
	for _, c := range []struct {
		conf string
		port int
	}{{top.redisConf("h2"), RedisPort}, {top.sentinelConf("h1"), SentinelPort}} {
		for _, want := range []string{"port 0\n", "tls-port " + strconv.Itoa(c.port) + "\n", "tls-cert-file \"/l/node.crt\"\n",
			"tls-key-file \"/l/node.key\"\n", "tls-ca-cert-file \"/l/ca.crt\"\n", "tls-auth-clients yes\n", "tls-replication yes\n"} {
			if !strings.Contains(c.conf, want) {
				t.Errorf("missing %q in:\n%s", want, c.conf)
			}
		}
		if strings.Contains(c.conf, "port "+strconv.Itoa(c.port)+"\nbind") {
			t.Errorf("plain port still configured:\n%s", c.conf)
		}
	}
}

// TestTLSProbesAgainstDataNodes: against a real redis-server's and
// valkey-server's TLS port (client certificates required) the lab client
// gets PONG through tlsDialer, while the probes of F5 (plaintext,
// wrong-CA, expired certificate) get no answer; a plain PING on a plain
// port is recognised as an answer (so a probe that is served would be
// seen).
func TestTLSProbesAgainstDataNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server and valkey-server")
	}
	for _, node := range []struct {
		name  string
		start func(t testutil.TB, extra ...string) *testutil.Process
	}{{"redis-server", testutil.StartRedis}, {"valkey-server", testutil.StartValkey}} {
		t.Run(node.name, func(t *testing.T) { testTLSProbes(t, node.start) })
	}
}

func testTLSProbes(t *testing.T, start func(t testutil.TB, extra ...string) *testutil.Process) {
	l, err := newLabTLS(t.TempDir(), []net.IP{net.ParseIP("127.0.0.1")}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tlsPort := testutil.FreePort(t)
	r := start(t, "tls-port "+strconv.Itoa(tlsPort), "tls-cert-file "+l.Cert, "tls-key-file "+l.Key,
		"tls-ca-cert-file "+l.CA, "tls-auth-clients yes")
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(tlsPort))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var d net.Dialer
	good, err := tlsDialer(d.DialContext, l.Client)(ctx, "tcp", addr)
	if err != nil {
		t.Fatalf("lab client: %v", err)
	}
	defer good.Close()
	_ = good.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := good.Write(encodeCommands([]string{"PING"})); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	n, _ := good.Read(buf)
	if string(buf[:n]) != "+PONG\r\n" {
		t.Fatalf("lab client PING: %q", buf[:n])
	}
	o, err := plainProbe(ctx, d.DialContext, r.Addr(), []string{"PING"})
	if err != nil || !o.Answered() || o.Reply != "+PONG" {
		t.Fatalf("plain PING on the plain port: %v %v", o, err)
	}
	o, err = plainProbe(ctx, d.DialContext, addr, []string{"PING"})
	if err != nil || o.Answered() {
		t.Errorf("plaintext on the TLS port: %v %v", o, err)
	}
	t.Logf("plaintext: %v", o)
	for name, cert := range map[string]tls.Certificate{"wrong CA": l.WrongCA, "expired": l.Expired} {
		o, err := tlsProbe(ctx, d.DialContext, addr, l.withCert(cert), []string{"PUBLISH", "__sentinel__:hello", "x"}, []string{"PING"})
		if err != nil || o.Answered() {
			t.Errorf("%s: %v %v", name, o, err)
		}
		t.Logf("%s: %v", name, o)
	}
}

// TestBadPeerSendsItsCertificate: a Go TLS server that lists its client
// CA (as gosentinel's does) receives the wrong-CA certificate and refuses
// it as of an unknown authority; without forcing it, Go's client would
// send no certificate at all and the probe would test something else.
func TestBadPeerSendsItsCertificate(t *testing.T) {
	l, err := newLabTLS(t.TempDir(), []net.IP{net.ParseIP("127.0.0.1")}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	node, err := tls.LoadX509KeyPair(l.Cert, l.Key)
	if err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(l.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{node}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	serverErr := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			serverErr <- err
			return
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		serverErr <- c.(*tls.Conn).Handshake()
	}()
	var d net.Dialer
	o, err := tlsProbe(context.Background(), d.DialContext, ln.Addr().String(), l.withCert(l.WrongCA), []string{"PING"})
	if err != nil || o.Answered() {
		t.Fatalf("probe: %v %v", o, err)
	}
	serr := <-serverErr
	var ua x509.UnknownAuthorityError
	if !errors.As(serr, &ua) {
		t.Errorf("server handshake error %v, want an unknown authority (the wrong-CA certificate was not sent)", serr)
	}
}
