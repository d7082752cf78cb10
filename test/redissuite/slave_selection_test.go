package redissuite

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// waitReplicaPriorities waits until sentinel 0 reports, for every replica,
// the priority want returns for its redis id.
func (s *suite) waitReplicaPriorities(want func(id int) int) {
	s.t.Helper()
	s.waitFor(30*time.Second, "sentinel 0 sees the replica priorities", func() bool {
		v, err := s.try(0, "SENTINEL", "REPLICAS", masterName)
		arr, _ := v.([]any)
		if err != nil || len(arr) != instancesCount-1 {
			return false
		}
		for _, r := range arr {
			d := dict(r)
			id := -1
			for i, in := range s.redis {
				if strconv.Itoa(in.port) == d["port"] {
					id = i
				}
			}
			if id < 0 || d["slave-priority"] != strconv.Itoa(want(id)) {
				return false
			}
		}
		return true
	})
}

// TestSlaveSelection ports 04-slave-selection.tcl. The Tcl unit is a stub
// that only names what it should test: "that when there are no suitable
// slaves no failover is performed" and which replica is picked; both are
// tested here with replica-priority (the offset ranking is not: real
// replicas of one master have equal offsets once in sync).
func TestSlaveSelection(t *testing.T) {
	t.Parallel()
	unitSlaveSelection(newSuite(t))
}

// unitSlaveSelection is the body of TestSlaveSelection on an initialised suite.
func unitSlaveSelection(s *suite) {
	t := s.t
	s.foreachSentinel(func(id int) {
		s.S(id, "SENTINEL", "DEBUG", "info-period", 1000)
		s.S(id, "SENTINEL", "DEBUG", "default-down-after", 1000)
	})
	const best = 3

	s.step("The replica with the lowest non-zero priority is promoted", func() {
		prio := func(id int) int {
			switch id {
			case best:
				return 10
			case 1:
				return 0
			default:
				return 100
			}
		}
		for id := range s.redis {
			if id != s.masterID {
				s.R(id, "CONFIG", "SET", "replica-priority", prio(id))
			}
		}
		s.waitReplicaPriorities(prio)
		oldPort := s.rport(s.masterID)
		old := s.masterID
		s.killRedis(old)
		s.masterID = s.waitFailover(oldPort, 0, 50*time.Second)
		s.restartRedis(old)
		if s.masterID != best {
			t.Errorf("promoted redis %d, want %d (priority 10)", s.masterID, best)
		}
	})

	s.step("No failover is performed when there are no suitable slaves", func() {
		for id := range s.redis {
			if id != s.masterID {
				s.waitFor(30*time.Second, fmt.Sprintf("redis %d replicates", id), func() bool {
					return s.RI(id, "master_port") == s.rport(s.masterID)
				})
				s.R(id, "CONFIG", "SET", "replica-priority", 0)
			}
		}
		s.waitReplicaPriorities(func(int) int { return 0 })
		oldPort := s.rport(s.masterID)
		s.killRedis(s.masterID)
		s.foreachSentinel(func(id int) {
			s.waitFor(20*time.Second, fmt.Sprintf("sentinel %d: master o_down", id), func() bool {
				return strings.Contains(s.masterField(id, "flags"), "o_down")
			})
		})
		s.holds(4*time.Second, "no failover without an eligible replica", func() bool {
			for id := range s.sentinels {
				if s.masterPort(id) != oldPort {
					return false
				}
			}
			return true
		})
		s.restartRedis(s.masterID)
		s.foreachSentinel(func(id int) {
			s.waitFor(20*time.Second, fmt.Sprintf("sentinel %d sees the master back", id), func() bool {
				return !strings.Contains(s.masterField(id, "flags"), "down")
			})
		})
	})
}
