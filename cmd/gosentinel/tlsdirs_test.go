package main

import (
	"crypto/tls"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// hashedCADir returns a directory holding ca under OpenSSL's
// "<subject hash>.0" name, as tls-ca-cert-dir needs for redis-sentinel
// (gosentinel trusts every PEM certificate in the directory).
func hashedCADir(t *testing.T, ca string) string {
	t.Helper()
	out, err := exec.Command("openssl", "x509", "-hash", "-noout", "-in", ca).Output()
	if err != nil {
		t.Skipf("openssl x509 -hash: %v", err)
	}
	dir := t.TempDir()
	b, err := os.ReadFile(ca)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, strings.TrimSpace(string(out))+".0"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTLSCADirAndClientCert: against a real redis-server that serves a
// certificate of CA 1 and accepts only client certificates of CA 2, a
// sentinel with tls-replication reaches it only when
//
//   - it trusts CA 1 through tls-ca-cert-dir (no tls-ca-cert-file), and
//   - it presents tls-client-cert-file/-key-file (CA 2) instead of its
//     tls-cert-file (CA 1, refused by the master).
//
// Either directive ignored, or the directory holding the wrong CA, and the
// link fails. Side by side with redis-sentinel, which gets the same
// config.
func TestTLSCADirAndClientCert(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	one, two := testutil.GenerateTLS(t), testutil.GenerateTLS(t)
	dirOne, dirTwo := hashedCADir(t, one.CA), hashedCADir(t, two.CA)
	tlsPort := testutil.FreePort(t)
	testutil.StartRedis(t, "tls-port "+strconv.Itoa(tlsPort), "tls-cert-file "+one.Cert, "tls-key-file "+one.Key,
		"tls-ca-cert-file "+two.CA, "tls-auth-clients yes")
	up := func(m map[string]string) bool {
		return m["flags"] == "master" && m["role-reported"] == "master" && m["info-refresh"] != "0"
	}
	down := func(m map[string]string) bool {
		return strings.Contains(m["flags"], "s_down") && strings.Contains(m["flags"], "disconnected")
	}
	cases := []struct {
		name  string
		lines string
		check func(map[string]string) bool
	}{
		{"ca-cert-dir and client cert", fmt.Sprintf("tls-ca-cert-dir %q\ntls-client-cert-file %q\ntls-client-key-file %q\n", dirOne, two.Cert, two.Key), up},
		{"no client cert", fmt.Sprintf("tls-ca-cert-dir %q\n", dirOne), down},
		{"ca-cert-dir of the wrong CA", fmt.Sprintf("tls-ca-cert-dir %q\ntls-client-cert-file %q\ntls-client-key-file %q\n", dirTwo, two.Cert, two.Key), down},
	}
	for _, b := range []string{testutil.Binary(t, "redis-sentinel"), bin} {
		for _, tc := range cases {
			t.Run(filepath.Base(b)+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				port := testutil.FreePort(t)
				conf := filepath.Join(dir, "sentinel.conf")
				log := filepath.Join(dir, "sentinel.log")
				body := fmt.Sprintf("port %d\nbind 127.0.0.1\nlogfile %q\ntls-replication yes\ntls-cert-file %q\ntls-key-file %q\n%ssentinel monitor mym 127.0.0.1 %d 1\nsentinel down-after-milliseconds mym 1000\n",
					port, log, one.Cert, one.Key, tc.lines, tlsPort)
				if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				s := testutil.StartSentinelConf(t, b, conf, port, log)
				waitLinkState(t, s, tc.check)
			})
		}
	}
}

// TestTLSSessionCaching: on the tls-port, tls-session-caching yes with
// tls-session-cache-timeout 1 resumes a session within the second and not
// after it; tls-session-caching no never resumes. Side by side with
// redis-sentinel (OpenSSL's session cache and tickets).
func TestTLSSessionCaching(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	files := testutil.GenerateTLS(t)
	pool, cert := testutil.ClientTLS(t, files)
	for _, b := range []string{testutil.Binary(t, "redis-sentinel"), bin} {
		for _, caching := range []string{"yes", "no"} {
			t.Run(filepath.Base(b)+"/caching-"+caching, func(t *testing.T) {
				port, tlsPort := testutil.FreePort(t), testutil.FreePort(t)
				dir := t.TempDir()
				conf := filepath.Join(dir, "sentinel.conf")
				log := filepath.Join(dir, "sentinel.log")
				body := fmt.Sprintf("port %d\ntls-port %d\nbind 127.0.0.1\nlogfile %q\ntls-cert-file %q\ntls-key-file %q\ntls-ca-cert-file %q\ntls-session-caching %s\ntls-session-cache-timeout 1\n",
					port, tlsPort, log, files.Cert, files.Key, files.CA, caching)
				if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				testutil.StartSentinelConf(t, b, conf, port, log)
				cfg := &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, ClientSessionCache: tls.NewLRUClientSessionCache(4)}
				addr := fmt.Sprintf("127.0.0.1:%d", tlsPort)
				// resumed connects, PINGs (a TLS 1.3 ticket arrives after
				// the handshake, with the first reply) and reports
				// whether the session was resumed. redis-sentinel with
				// tls-session-caching no still sends tickets and answers
				// an attempt to resume with an internal-error alert: that
				// counts as not resumed (logged).
				resumed := func() bool {
					t.Helper()
					c, err := tls.Dial("tcp", addr, cfg)
					if err != nil && caching == "no" && filepath.Base(b) == "redis-sentinel" {
						t.Logf("connection refused instead of resumed: %v", err)
						return false
					}
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close()
					if _, err := c.Write([]byte("PING\r\n")); err != nil {
						t.Fatal(err)
					}
					buf := make([]byte, 7)
					if _, err := c.Read(buf); err != nil || string(buf) != "+PONG\r\n" {
						t.Fatalf("PING over TLS = %q, %v", buf, err)
					}
					return c.ConnectionState().DidResume
				}
				if resumed() {
					t.Fatal("first connection resumed")
				}
				second := time.Now()
				r2 := resumed()
				if time.Since(second) > 500*time.Millisecond {
					t.Skip("the second connection took over half the timeout: cannot tell")
				}
				if want := caching == "yes"; r2 != want {
					t.Fatalf("second connection within the timeout resumed = %v, want %v", r2, want)
				}
				// Past the 1 s timeout (the ticket of the second connection
				// is the newest in the cache).
				time.Sleep(2100 * time.Millisecond) // the timeout itself is what is tested
				if resumed() {
					t.Fatal("a session older than tls-session-cache-timeout was resumed")
				}
			})
		}
	}
}
