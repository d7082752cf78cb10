package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestAllTLSMixedPeers: a gosentinel and a real redis-sentinel that both
// listen only on a TLS port (port 0, tls-port, client certificates
// required) and use tls-replication find each other through the master's
// hello channel (hellos announce the TLS port) and link to each other's
// TLS port: each counts the other, with a working link, and CKQUORUM
// (quorum 2) is OK on both.
func TestAllTLSMixedPeers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	files := testutil.GenerateTLS(t)
	tlsFiles := fmt.Sprintf("tls-cert-file %s\ntls-key-file %s\ntls-ca-cert-file %s\n", strconv.Quote(files.Cert), strconv.Quote(files.Key), strconv.Quote(files.CA))
	masterTLS := testutil.FreePort(t)
	testutil.StartRedis(t, "tls-port "+strconv.Itoa(masterTLS), "tls-cert-file "+files.Cert, "tls-key-file "+files.Key,
		"tls-ca-cert-file "+files.CA, "tls-auth-clients yes")
	monitor := fmt.Sprintf("tls-replication yes\nsentinel monitor mym 127.0.0.1 %d 2\nsentinel down-after-milliseconds mym 2000\n", masterTLS)
	real := testutil.StartTLSSentinel(t, files, monitor)

	dir := t.TempDir()
	port := testutil.FreePort(t)
	conf := filepath.Join(dir, "sentinel.conf")
	log := filepath.Join(dir, "sentinel.log")
	body := fmt.Sprintf("port 0\ntls-port %d\nbind 127.0.0.1\nlogfile %s\n%stls-auth-clients yes\n%s", port, strconv.Quote(log), tlsFiles, monitor)
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, conf)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			l, _ := os.ReadFile(log)
			t.Logf("gosentinel log:\n%s\nredis-sentinel log:\n%s", l, real.Log())
		}
	})

	roots, cert := testutil.ClientTLS(t, files)
	tc := &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{cert}, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	ctx := context.Background()
	nodes := map[string]int{"gosentinel": port, "redis-sentinel": real.Port}
	for name, p := range nodes {
		c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(p), TLSConfig: tc, MaxRetries: -1, Protocol: 2, PoolSize: 1, DialTimeout: time.Second})
		t.Cleanup(func() { c.Close() })
		var last string
		ok := false
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			peers, err := c.Do(ctx, "SENTINEL", "SENTINELS", "mym").Slice()
			ck, cerr := c.Do(ctx, "SENTINEL", "CKQUORUM", "mym").Text()
			last = fmt.Sprintf("sentinels %v (%v), ckquorum %q (%v)", peers, err, ck, cerr)
			if err == nil && cerr == nil && len(peers) == 1 && strings.HasPrefix(ck, "OK ") && !strings.Contains(fmt.Sprint(peers), "disconnected") {
				ok = true
				break
			}
			time.Sleep(100 * time.Millisecond) // poll: no event tells when hellos were exchanged
		}
		if !ok {
			t.Fatalf("%s never saw its TLS peer: %s", name, last)
		}
	}
	if l, _ := os.ReadFile(log); !strings.Contains(string(l), fmt.Sprintf("Running mode=sentinel, port=%d.", port)) {
		t.Errorf("log does not show the TLS port in the Running mode line:\n%s", l)
	}
	// Plain connections are refused: gosentinel does not listen on a plain port.
	if err := testutil.Ping("127.0.0.1:" + strconv.Itoa(port)); err == nil {
		t.Fatal("plain PING answered on the TLS-only port")
	}
}
