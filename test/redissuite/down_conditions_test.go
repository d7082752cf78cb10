package redissuite

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// debugDown is the SENTINEL DEBUG block of 07-down-conditions.tcl (also
// sent by ensure_master_up/down to the sentinel left alive).
var debugDown = []any{"SENTINEL", "DEBUG", "info-period", 1000, "ask-period", 100,
	"default-down-after", 3000, "publish-period", 200, "ping-period", 100}

// ensureMasterUp is ensure_master_up: flags become exactly "master".
func (s *suite) ensureMasterUp(alive int) {
	s.t.Helper()
	s.S(alive, debugDown...)
	s.waitFor(50*time.Second, "master flags are just 'master'", func() bool {
		return s.masterField(alive, "flags") == "master"
	})
}

// ensureMasterDown is ensure_master_down: flags contain "down".
func (s *suite) ensureMasterDown(alive int) {
	s.t.Helper()
	s.S(alive, debugDown...)
	s.waitFor(50*time.Second, "master flagged SDOWN", func() bool {
		return strings.Contains(s.masterField(alive, "flags"), "down")
	})
}

// downPrologue is the prologue of 07-down-conditions.tcl after
// init-tests: the SENTINEL DEBUG timers on every sentinel, then "Crash the
// majority of Sentinels to prevent failovers for this unit". It returns
// ::alive_sentinel (instances_count/2+2).
func downPrologue(s *suite) int {
	s.foreachSentinel(func(id int) { s.S(id, debugDown...) })
	s.step("Crash the majority of Sentinels to prevent failovers for this unit", func() {
		for id := 0; id < s.quorum; id++ {
			s.killSentinel(id)
		}
	})
	return instancesCount/2 + 2
}

// TestDownConditions is 07-down-conditions.tcl. Its tests share one set of
// processes and run in the Tcl order.
func TestDownConditions(t *testing.T) {
	t.Parallel()
	downConditionsUnit(t, newSuite(t))
}

// downConditionsUnit runs 07-down-conditions on an initialised suite.
func downConditionsUnit(t *testing.T, s *suite) {
	alive := downPrologue(s)
	m := s.masterID
	oldPort := s.rport(m)

	s.step("SDOWN is triggered by non-responding but not crashed instance", func() {
		s.ensureMasterUp(alive)
		s.redis[m].proc.Stop()
		s.ensureMasterDown(alive)
		s.redis[m].proc.Cont()
		s.ensureMasterUp(alive)
	})

	s.step("SDOWN is triggered by crashed instance", func() {
		s.ensureMasterUp(alive)
		s.killRedis(m)
		s.ensureMasterDown(alive)
		s.restartRedis(m)
		s.ensureMasterUp(alive)
	})

	s.step("SDOWN is triggered by masters advertising as slaves", func() {
		s.ensureMasterUp(alive)
		// A port nothing listens on: the master reports role:slave.
		s.R(m, "SLAVEOF", "127.0.0.1", testutil.FreePort(t))
		s.ensureMasterDown(alive)
		s.R(m, "SLAVEOF", "NO", "ONE")
		s.ensureMasterUp(alive)
	})

	s.step("SDOWN is triggered by misconfigured instance replying with errors", func() {
		s.ensureMasterUp(alive)
		// The Tcl test points dir at "/" so that BGSAVE fails; these tests
		// may run as root, so the dump file name is made a directory
		// instead (rename(2) onto it fails as well). A failed BGSAVE with
		// save points set makes PING answer -MISCONF.
		dir := s.R(m, "CONFIG", "GET", "dir").([]any)[1].(string)
		if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o755); err != nil {
			t.Fatal(err)
		}
		s.R(m, "CONFIG", "SET", "dbfilename", "tmp")
		s.R(m, "CONFIG", "SET", "save", "1000000 1000000")
		s.bgsave(m)
		s.waitFor(20*time.Second, "BGSAVE failed", func() bool {
			return s.RI(m, "rdb_last_bgsave_status") == "err"
		})
		if _, err := do(s.redis[m], "PING"); err == nil || !strings.HasPrefix(err.Error(), "MISCONF") {
			t.Fatalf("PING on the misconfigured master: %v, want MISCONF", err)
		}
		s.ensureMasterDown(alive)
		s.R(m, "CONFIG", "SET", "save", "")
		s.R(m, "CONFIG", "SET", "dbfilename", "dump.rdb")
		s.bgsave(m)
		s.ensureMasterUp(alive)
	})

	s.step("SDOWN is triggered by an instance replying NOAUTH", func() {
		s.ensureMasterUp(alive)
		// requirepass does not log out open connections: kill the
		// sentinel's links so that it reconnects and meets -NOAUTH.
		s.R(m, "CONFIG", "SET", "requirepass", "secret")
		s.R(m, "CLIENT", "KILL", "TYPE", "pubsub")
		s.R(m, "CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
		s.ensureMasterDown(alive)
		s.R(m, "CONFIG", "SET", "requirepass", "")
		s.ensureMasterUp(alive)
	})

	// "We use this test setup to also test command renaming, as a side
	// effect of the master going down if we send PONG instead of PING".
	s.step("SDOWN is triggered if we rename PING to PONG", func() {
		s.ensureMasterUp(alive)
		s.S(alive, "SENTINEL", "SET", masterName, "rename-command", "PING", "PONG")
		s.ensureMasterDown(alive)
		s.S(alive, "SENTINEL", "SET", masterName, "rename-command", "PING", "PING")
		s.ensureMasterUp(alive)
	})

	s.linkSteps(alive)

	s.step("No failover without a majority of Sentinels", func() {
		if p := s.masterPort(alive); p != oldPort {
			t.Fatalf("master port %s after the down conditions, want %s (no failover)", p, oldPort)
		}
		if p := strconv.Itoa(s.redis[m].port); s.RI(m, "role") != "master" {
			t.Fatalf("redis on %s is no longer master", p)
		}
	})
}
