package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestTLSReplication: with `tls-replication yes` and the tls-* files,
// gosentinel's links to a master's TLS port (client certificates required)
// work: the master is seen as "master" with its INFO read; without
// tls-replication the same port cannot be used (disconnected, then
// s_down after down-after).
func TestTLSReplication(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	files := testutil.GenerateTLS(t)
	tlsPort := testutil.FreePort(t)
	testutil.StartRedis(t, "tls-port "+strconv.Itoa(tlsPort), "tls-cert-file "+files.Cert, "tls-key-file "+files.Key,
		"tls-ca-cert-file "+files.CA, "tls-auth-clients yes")
	tests := []struct {
		name  string
		tls   string
		check func(m map[string]string) bool
	}{
		{"tls-replication yes", fmt.Sprintf("tls-replication yes\ntls-cert-file %s\ntls-key-file %s\ntls-ca-cert-file %s\n", files.Cert, files.Key, files.CA),
			func(m map[string]string) bool {
				return m["flags"] == "master" && m["role-reported"] == "master" && m["info-refresh"] != "0"
			}},
		{"plain link to a TLS port", "",
			func(m map[string]string) bool {
				return strings.Contains(m["flags"], "s_down") && strings.Contains(m["flags"], "disconnected")
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			port := testutil.FreePort(t)
			conf := filepath.Join(dir, "sentinel.conf")
			log := filepath.Join(dir, "sentinel.log")
			body := fmt.Sprintf("port %d\nbind 127.0.0.1\nlogfile %s\n%ssentinel monitor mym 127.0.0.1 %d 1\nsentinel down-after-milliseconds mym 1000\n",
				port, strconv.Quote(log), tc.tls, tlsPort)
			if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			s := testutil.StartSentinelConf(t, bin, conf, port, log)
			waitLinkState(t, s, tc.check)
		})
	}
}

// waitLinkState waits until SENTINEL MASTER mym on s satisfies check,
// logging the last answer and the sentinel's log if the test fails.
func waitLinkState(t *testing.T, s *testutil.Process, check func(map[string]string) bool) {
	t.Helper()
	var last map[string]string
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last SENTINEL MASTER: %v\nlog:\n%s", last, s.Log())
		}
	})
	testutil.WaitFor(t, 10*time.Second, "expected link state", func() bool {
		m, err := testutil.SentinelMaster(s.Addr(), "mym")
		last = m
		return err == nil && check(m)
	})
}
