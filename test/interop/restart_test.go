package interop

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestGosentinelRestart: after a failover, a gosentinel is SIGKILLed and
// restarted on its own rewritten config. It must come back with the same
// myid, the new master and its config epoch, and stay one peer for the
// others.
func TestGosentinelRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	d := startDeployment(t, []member{quorum2(true), quorum2(true), quorum2(false)})
	newMaster, _ := d.killAndAgree(t)
	ctx := context.Background()
	myid := func(addr string) string {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, Protocol: 2})
		defer c.Close()
		id, _ := c.Do(ctx, "SENTINEL", "MYID").Text()
		return id
	}
	s := d.sentinels[0]
	before := myid(s.Addr())
	m, _ := testutil.SentinelMaster(s.Addr(), master)
	epoch := m["config-epoch"]
	s.Kill()
	gs := testutil.StartSentinelConf(t, gosentinelBin, s.Conf, s.Port, s.LogFile)
	if after := myid(gs.Addr()); after != before || len(after) != 40 {
		t.Errorf("myid after restart %q, before %q", after, before)
	}
	m, err := testutil.SentinelMaster(gs.Addr(), master)
	if err != nil {
		t.Fatal(err)
	}
	if got := m["ip"] + ":" + m["port"]; got != newMaster || m["config-epoch"] != epoch {
		t.Errorf("after restart: master %s epoch %s, want %s epoch %s", got, m["config-epoch"], newMaster, epoch)
	}
	for _, o := range d.sentinels[1:] {
		testutil.WaitFor(t, 10*time.Second, o.Addr()+" sees exactly 2 peers", func() bool {
			m, err := testutil.SentinelMaster(o.Addr(), master)
			return err == nil && m["num-other-sentinels"] == "2"
		})
	}
	testutil.WaitFor(t, 20*time.Second, "restarted gosentinel rediscovers peers and replicas", func() bool {
		m, err := testutil.SentinelMaster(gs.Addr(), master)
		return err == nil && m["num-other-sentinels"] == "2" && m["num-slaves"] == "2"
	})
}
