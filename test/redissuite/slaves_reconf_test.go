package redissuite

import (
	"fmt"
	"testing"
	"time"
)

// checkSlavesReplication is 02_test_slaves_replication: every live replica
// replicates from the current master with its link up.
func (s *suite) checkSlavesReplication() {
	s.t.Helper()
	s.step("Check that slaves replicate from current master", func() {
		masterPort := s.rport(s.masterID)
		for id, in := range s.redis {
			if id == s.masterID || in.proc.Exited() {
				continue
			}
			s.waitFor(50*time.Second, fmt.Sprintf("redis %d replicates from %s", id, masterPort), func() bool {
				return s.RI(id, "master_port") == masterPort && s.RI(id, "master_link_status") == "up"
			})
		}
	})
}

// crashAndFailover is 02_crash_and_failover: kill the master, wait for
// every sentinel to switch, restart the old master.
func (s *suite) crashAndFailover() {
	s.t.Helper()
	s.step("Crash the master and force a failover", func() {
		oldPort := s.rport(s.masterID)
		if p := s.masterPort(0); p != oldPort {
			s.t.Fatalf("master port %s, want %s", p, oldPort)
		}
		old := s.masterID
		s.killRedis(old)
		s.masterID = s.waitFailover(oldPort, 0, 50*time.Second)
		s.restartRedis(old)
	})
}

// TestSlavesReconf ports 02-slaves-reconf.tcl: replicas follow the new
// master, also when one of them was down during the failover.
func TestSlavesReconf(t *testing.T) {
	t.Parallel()
	unitSlavesReconf(newSuite(t))
}

// unitSlavesReconf is the body of TestSlavesReconf on an initialised suite.
func unitSlavesReconf(s *suite) {
	s.checkSlavesReplication()
	s.crashAndFailover()
	s.foreachSentinel(func(id int) {
		s.S(id, "SENTINEL", "DEBUG", "info-period", 100)
		s.S(id, "SENTINEL", "DEBUG", "default-down-after", 1000)
		s.S(id, "SENTINEL", "DEBUG", "publish-period", 100)
	})
	s.checkSlavesReplication()

	killed := -1
	s.step("Kill a slave instance", func() {
		for id := range s.redis {
			if id == s.masterID {
				continue
			}
			killed = id
			s.killRedis(id)
			break
		}
	})
	s.crashAndFailover()
	s.checkSlavesReplication()

	s.step("Wait for failover to end", func() {
		s.waitFor(50*time.Second, "no sentinel reports a failover-state", func() bool {
			for id := range s.sentinels {
				if _, ok := s.masterDict(id)["failover-state"]; ok {
					return false
				}
			}
			return true
		})
	})

	s.step("Restart killed slave and test replication of slaves again...", func() {
		s.restartRedis(killed)
	})
	// The replica that rejoins is reconfigured even though the failover
	// has finished.
	s.checkSlavesReplication()
}
