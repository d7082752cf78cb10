package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTopologyAndSentinel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	top := StartTopology(t, 1)
	if role, err := Role(top.Replicas[0].Addr()); err != nil || role != "slave" {
		t.Fatalf("replica role = %q, %v; want slave", role, err)
	}
	s := StartSentinel(t, SentinelConf("mym", top.Master.Port, 1, 1000, 5000))
	got, err := MasterAddr(s.Addr(), "mym")
	if err != nil || got != top.Master.Addr() {
		t.Fatalf("master addr = %q, %v; want %s", got, err, top.Master.Addr())
	}
	// The sentinel discovers the replica from the master's INFO.
	WaitFor(t, 15*time.Second, "replica discovered", func() bool {
		info, err := Info(s.Addr(), "sentinel")
		return err == nil && strings.Contains(info, "slaves=1")
	})
	top.Master.Kill()
	if !top.Master.Exited() {
		t.Fatal("master still running after Kill")
	}
}

func TestStartRedisWithPassword(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	p := StartRedis(t, "requirepass s3cret")
	if err := Ping(p.Addr()); err != nil {
		t.Fatalf("Ping of a password-protected server: %v", err)
	}
	if _, err := Role(p.Addr()); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Fatalf("ROLE without AUTH = %v, want NOAUTH", err)
	}
}

// TestStartHelpers starts a real redis-sentinel through each start helper
// that shares spawn, and checks it is up, answers on its port, and dies
// when Kill is called.
func TestStartHelpers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	conf := func(t *testing.T, dir string, port, masterPort int, extra string) string {
		path := filepath.Join(dir, "s.conf")
		writeFile(t, path, fmt.Sprintf("port %d\nbind 127.0.0.1\n%s%s\n", port, extra, SentinelConf("mym", masterPort, 1, 5000, 60000)))
		return path
	}
	// Each start returns the process and a probe of its port.
	tests := []struct {
		name  string
		start func(t *testing.T, masterPort int) (*Process, func() error)
	}{
		{"StartSentinelNoAuth with requirepass", func(t *testing.T, mp int) (*Process, func() error) {
			port := FreePort(t)
			p := StartSentinelNoAuth(t, Binary(t, "redis-sentinel"), conf(t, t.TempDir(), port, mp, "requirepass s3cret\n"), port)
			return p, func() error { return Ping(p.Addr()) }
		}},
		{"StartSentinelAt with a relative config path", func(t *testing.T, mp int) (*Process, func() error) {
			port, dir := FreePort(t), t.TempDir()
			conf(t, dir, port, mp, "")
			p := StartSentinelAt(t, Binary(t, "redis-sentinel"), dir, []string{"s.conf"}, port)
			return p, func() error { return Ping(p.Addr()) }
		}},
		{"StartTLSSentinel", func(t *testing.T, mp int) (*Process, func() error) {
			files := GenerateTLS(t)
			p := StartTLSSentinel(t, files, SentinelConf("mym", mp, 1, 5000, 60000))
			return p, func() error {
				cfg, err := clientTLS(files)
				if err != nil {
					return err
				}
				return tlsPing(p.Addr(), cfg)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := StartRedis(t)
			p, alive := tc.start(t, m.Port)
			if err := alive(); err != nil {
				t.Fatalf("not answering after start: %v", err)
			}
			if _, err := os.Stat(p.StderrPath()); err != nil {
				t.Fatalf("stderr file: %v", err)
			}
			p.Kill()
			if !p.Exited() {
				t.Fatal("still running after Kill")
			}
		})
	}
}
