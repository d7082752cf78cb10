package interop

import (
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestPausedMaster: tools pause the master with SIGSTOP (the TCP
// connections stay open, nothing answers). The sentinels must fail over on
// the pending-PING timeout, and after SIGCONT the old master must be
// demoted to a replica of the new one.
func TestPausedMaster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	same := func(gos bool) member { return member{gosentinel: gos, quorum: 2, downAfterMs: 1000} }
	d := startDeployment(t, []member{same(true), same(true), same(false)})
	oldMaster := d.top.Master
	oldAddr := oldMaster.Addr()
	start := time.Now()
	oldMaster.Stop()
	var newAddr string
	testutil.WaitFor(t, 30*time.Second, "all sentinels agree on a new master", func() bool {
		seen := ""
		for _, s := range d.sentinels {
			a, err := testutil.MasterAddr(s.Addr(), master)
			if err != nil || a == oldAddr || (seen != "" && a != seen) {
				return false
			}
			seen = a
		}
		newAddr = seen
		return true
	})
	t.Logf("SIGSTOP -> all 3 agree on %s in %v", newAddr, time.Since(start))
	oldMaster.Cont()
	_, port, _ := strings.Cut(newAddr, ":")
	testutil.WaitFor(t, 30*time.Second, "resumed old master demoted", func() bool {
		info, err := testutil.Info(oldAddr, "replication")
		return err == nil && strings.Contains(info, "role:slave") && strings.Contains(info, "master_port:"+port)
	})
	t.Logf("SIGSTOP -> old master demoted after SIGCONT: %v", time.Since(start))
}
