package testutil

import (
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// ValkeySentinelBin returns the path of valkey-sentinel (Valkey 8.0.x from
// Debian bookworm-backports, installed by scripts/deps.sh), failing t when
// it is missing.
func ValkeySentinelBin(t TB) string {
	t.Helper()
	p, err := exec.LookPath("valkey-sentinel")
	if err != nil {
		t.Fatalf("testutil: valkey-sentinel not found on PATH; run scripts/deps.sh (apt-get install -t bookworm-backports valkey-server valkey-sentinel valkey-tools)")
	}
	return p
}

// StartValkey starts a valkey-server on a free loopback port, configured
// like StartRedis, killed in t.Cleanup.
func StartValkey(t TB, extra ...string) *Process {
	t.Helper()
	return startDataNode(t, "valkey-server", FreePort(t), extra...)
}

// StartValkeyOnPort is StartValkey on a given port.
func StartValkeyOnPort(t TB, port int, extra ...string) *Process {
	t.Helper()
	return startDataNode(t, "valkey-server", port, extra...)
}

// StartValkeyTopology is StartTopology with valkey-server data nodes.
func StartValkeyTopology(t TB, n int, replicaExtra ...[]string) *Topology {
	t.Helper()
	m := StartValkey(t)
	top := &Topology{Master: m}
	for i := 0; i < n; i++ {
		extra := []string{fmt.Sprintf("replicaof 127.0.0.1 %d", m.Port)}
		if i < len(replicaExtra) {
			extra = append(extra, replicaExtra[i]...)
		}
		top.Replicas = append(top.Replicas, StartValkey(t, extra...))
	}
	for _, r := range top.Replicas {
		WaitFor(t, 10*time.Second, "replica "+r.Addr()+" linked", func() bool {
			info, err := Info(r.Addr(), "replication")
			return err == nil && strings.Contains(info, "master_link_status:up")
		})
	}
	return top
}
