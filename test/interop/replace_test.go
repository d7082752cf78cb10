package interop

import (
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestReplaceRealSentinel is the drop-in scenario: a deployment of three
// real redis-sentinels goes through a failover, then one of them is
// stopped and gosentinel is started on ITS rewritten sentinel.conf (same
// port, same myid, known replicas/sentinels, epochs). The others must keep
// it as the same peer, and a second failover must converge with it.
func TestReplaceRealSentinel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	d := startDeployment(t, []member{quorum2(false), quorum2(false), quorum2(false)})
	firstMaster, _ := d.killAndAgree(t)

	old := d.sentinels[0]
	old.Term()
	gs := testutil.StartSentinelConf(t, gosentinelBin, old.Conf, old.Port, old.LogFile)
	d.sentinels[0] = gs
	d.members[0] = quorum2(true)

	// gosentinel reports what the real one had persisted.
	m, err := testutil.SentinelMaster(gs.Addr(), master)
	if err != nil {
		t.Fatal(err)
	}
	if got := m["ip"] + ":" + m["port"]; got != firstMaster {
		t.Errorf("gosentinel on the real sentinel's config: master %s, want %s", got, firstMaster)
	}
	if m["config-epoch"] == "0" || m["config-epoch"] == "" {
		t.Errorf("config-epoch %q lost across the swap", m["config-epoch"])
	}
	testutil.WaitFor(t, 20*time.Second, "gosentinel sees 2 peers and 2 replicas", func() bool {
		m, err := testutil.SentinelMaster(gs.Addr(), master)
		return err == nil && m["num-other-sentinels"] == "2" && m["num-slaves"] == "2"
	})
	// The real sentinels still count exactly 2 peers: gosentinel reused the
	// myid, so it is the same peer, not a new one.
	for _, s := range d.sentinels[1:] {
		testutil.WaitFor(t, 10*time.Second, s.Addr()+" still sees exactly 2 peers", func() bool {
			m, err := testutil.SentinelMaster(s.Addr(), master)
			return err == nil && m["num-other-sentinels"] == "2"
		})
	}

	// Second failover, now with gosentinel in the quorum: kill the master
	// promoted in round one.
	for _, r := range d.top.Replicas {
		if r.Addr() == firstMaster {
			d.top.Master = r
		}
	}
	if d.top.Master.Addr() != firstMaster {
		t.Fatalf("promoted replica %s not found in the topology", firstMaster)
	}
	second, agree := d.killAndAgree(t)
	t.Logf("after the swap: kill -> all 3 agree on %s in %v; elected so far: %v", second, agree, d.leaders())
}
