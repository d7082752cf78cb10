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
	d := startDeployment(t, []member{quorum2(true), quorum2(true), quorum2(false)})
	oldMaster := d.top.Master
	oldAddr := oldMaster.Addr()
	start := time.Now()
	oldMaster.Stop()
	newAddr := d.waitNewMaster(t, oldAddr)
	t.Logf("SIGSTOP -> all 3 agree on %s in %v", newAddr, time.Since(start))
	oldMaster.Cont()
	_, port, _ := strings.Cut(newAddr, ":")
	testutil.WaitFor(t, 30*time.Second, "resumed old master demoted", func() bool {
		info, err := testutil.Info(oldAddr, "replication")
		return err == nil && strings.Contains(info, "role:slave") && strings.Contains(info, "master_port:"+port)
	})
	t.Logf("SIGSTOP -> old master demoted after SIGCONT: %v", time.Since(start))
}
