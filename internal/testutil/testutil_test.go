package testutil

import (
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
