package ops

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// deployment is a real master, replicas and sentinels for a test.
type deployment struct {
	top       *testutil.Topology
	sentinels []*testutil.Process
	conn      *ConnOptions
}

type deploySpec struct {
	sentinels       int
	quorum          int
	downAfterMs     int
	failoverTimeout int
	replicaExtra    [][]string // per replica config lines
	masterExtra     []string   // CONFIG SET pairs applied to the master
}

// startDeployment starts a password-protected master with
// len(replicaExtra) replicas (2 when nil) and spec.sentinels real
// redis-sentinels (testutil.StartDeployment: shortened hello and INFO
// periods, converged). Everything is stopped in t.Cleanup.
func startDeployment(t *testing.T, spec deploySpec) *deployment {
	t.Helper()
	if testing.Short() {
		t.Skip("starts real redis-server and redis-sentinel processes")
	}
	if spec.replicaExtra == nil {
		spec.replicaExtra = [][]string{nil, nil}
	}
	// Password-protected nodes: see testutil.StartAuthTopology.
	const pass = "ops-test-secret"
	top := testutil.StartAuthTopology(t, pass, len(spec.replicaExtra), spec.replicaExtra...)
	ctx := context.Background()
	d := &deployment{top: top, conn: &ConnOptions{Timeout: time.Second, NodeUsername: testutil.AuthUser, NodePassword: pass}}
	if len(spec.masterExtra) > 0 {
		c, err := d.conn.NodeClient(top.Master.Addr())
		if err != nil {
			t.Fatal(err)
		}
		args := []any{"CONFIG", "SET"}
		for _, a := range spec.masterExtra {
			args = append(args, a)
		}
		if err := c.Do(ctx, args...).Err(); err != nil {
			t.Fatalf("CONFIG SET on master: %v", err)
		}
		c.Close()
	}
	dep := testutil.StartDeployment(t, top, pass, spec.sentinels, spec.quorum, spec.downAfterMs, spec.failoverTimeout)
	d.sentinels = dep.Sentinels
	d.conn.Sentinels = dep.SentinelAddrs()
	return d
}

func (d *deployment) replicaAddrs() []string {
	var out []string
	for _, r := range d.top.Replicas {
		out = append(out, r.Addr())
	}
	return out
}

func hasRule(fs []Finding, rule string, sev Severity) bool {
	for _, f := range fs {
		if f.Rule == rule && f.Severity == sev {
			return true
		}
	}
	return false
}

func rules(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s:%s ", f.Severity, f.Rule)
	}
	return b.String()
}
