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

// startDeployment starts a master with len(replicaExtra) replicas (2 when
// nil) and spec.sentinels real redis-sentinels, shortens their hello and
// INFO periods with SENTINEL DEBUG, and waits until every sentinel knows all
// the others and all replicas. Everything is stopped in t.Cleanup.
func startDeployment(t *testing.T, spec deploySpec) *deployment {
	t.Helper()
	if testing.Short() {
		t.Skip("starts real redis-server and redis-sentinel processes")
	}
	if spec.replicaExtra == nil {
		spec.replicaExtra = [][]string{nil, nil}
	}
	top := testutil.StartTopology(t, len(spec.replicaExtra), spec.replicaExtra...)
	ctx := context.Background()
	if len(spec.masterExtra) > 0 {
		c, err := (&ConnOptions{}).NodeClient(top.Master.Addr())
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
	d := &deployment{top: top, conn: &ConnOptions{Timeout: time.Second}}
	for i := 0; i < spec.sentinels; i++ {
		s := testutil.StartSentinel(t, testutil.SentinelConf("mym", top.Master.Port, spec.quorum, spec.downAfterMs, spec.failoverTimeout))
		c, err := d.conn.SentinelClient(s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Do(ctx, "SENTINEL", "DEBUG", "info-period", "300", "publish-period", "200").Err(); err != nil {
			t.Fatalf("SENTINEL DEBUG: %v", err)
		}
		c.Close()
		d.sentinels = append(d.sentinels, s)
		d.conn.Sentinels = append(d.conn.Sentinels, s.Addr())
	}
	testutil.WaitFor(t, 20*time.Second, "sentinels converged", func() bool {
		return d.converged(ctx, spec.sentinels-1, len(spec.replicaExtra)) == nil
	})
	return d
}

func (d *deployment) converged(ctx context.Context, others, replicas int) error {
	views, err := Gather(ctx, d.conn, "mym")
	if err != nil {
		return err
	}
	for _, v := range views {
		if v.Error != "" || len(v.Masters) != 1 || v.Masters[0].Master == nil {
			return fmt.Errorf("%s: not ready", v.Addr)
		}
		m := v.Masters[0]
		if atoi(m.Master, "num-other-sentinels", -1) != int64(others) || len(m.Replicas) != replicas {
			return fmt.Errorf("%s: not converged", v.Addr)
		}
		for _, r := range m.Replicas {
			if r["master-link-status"] != "ok" {
				return fmt.Errorf("%s: replica link not seen ok", v.Addr)
			}
		}
	}
	return nil
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
