package redissuite

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestBase ports tests/sentinel/tests/00-base.tcl: basic failover, the
// demotion of the old master, quorum and majority rules.
func TestBase(t *testing.T) {
	t.Parallel()
	unitBase(newSuite(t))
}

// unitBase is the body of TestBase on an initialised suite.
func unitBase(s *suite) {
	t := s.t
	s.foreachSentinel(func(id int) { s.S(id, "SENTINEL", "DEBUG", "default-down-after", 1000) })
	sentinels := len(s.sentinels)

	s.step("SENTINEL MASTER flags is exactly master", func() {
		s.foreachSentinel(func(id int) {
			if f := s.masterField(id, "flags"); f != "master" {
				t.Errorf("sentinel %d: flags = %q, want \"master\"", id, f)
			}
		})
	})

	s.step("SENTINEL MASTER read by position: num-other-sentinels at index 33", func() {
		s.foreachSentinel(func(id int) {
			arr, _ := s.S(id, "SENTINEL", "MASTER", masterName).([]any)
			if len(arr) < 34 || fmt.Sprint(arr[32]) != "num-other-sentinels" || fmt.Sprint(arr[33]) != fmt.Sprint(sentinels-1) || fmt.Sprint(arr[8]) != "flags" {
				t.Errorf("sentinel %d: SENTINEL MASTER = %v", id, arr)
			}
		})
	})

	s.step("SENTINEL MYID returns a 40 chars id, distinct per sentinel", func() {
		a, b := fmt.Sprint(s.S(0, "SENTINEL", "MYID")), fmt.Sprint(s.S(1, "SENTINEL", "MYID"))
		if len(a) != 40 || a == b {
			t.Errorf("myids %q %q", a, b)
		}
	})

	s.step("SENTINEL INFO-CACHE returns the cached info", func() {
		res, _ := s.S(0, "SENTINEL", "INFO-CACHE", masterName).([]any)
		if len(res) < 2 || fmt.Sprint(res[0]) != masterName {
			t.Fatalf("INFO-CACHE = %v", res)
		}
		inner, _ := res[1].([]any)
		if len(inner) < 2 || !strings.Contains(fmt.Sprint(inner[1]), "# Server") {
			t.Fatalf("INFO-CACHE entry = %v", inner)
		}
	})

	s.step("SENTINEL SIMULATE-FAILURE HELP list supported flags", func() {
		res, _ := s.S(0, "SENTINEL", "SIMULATE-FAILURE", "HELP").([]any)
		if fmt.Sprint(res) != "[crash-after-election crash-after-promotion]" {
			t.Errorf("SIMULATE-FAILURE HELP = %v", res)
		}
	})

	s.step("SENTINEL MASTERS, SENTINELS, SLAVES list the instances", func() {
		if m, _ := s.S(0, "SENTINEL", "MASTERS").([]any); len(m) != 1 || !strings.Contains(fmt.Sprint(m), masterName) {
			t.Errorf("MASTERS = %v", m)
		}
		if v, _ := s.S(0, "SENTINEL", "SENTINELS", masterName).([]any); len(v) != sentinels-1 {
			t.Errorf("SENTINELS: %d entries, want %d", len(v), sentinels-1)
		}
		if v, _ := s.S(0, "SENTINEL", "SLAVES", masterName).([]any); len(v) != instancesCount-1 {
			t.Errorf("SLAVES: %d entries, want %d", len(v), instancesCount-1)
		}
	})

	var addrPort string
	s.step("Basic failover works if the master is down", func() {
		oldPort := s.rport(s.masterID)
		if p := s.masterPort(0); p != oldPort {
			t.Fatalf("master port %s, want %s", p, oldPort)
		}
		s.killRedis(s.masterID)
		s.foreachSentinel(func(id int) {
			s.S(id, "SENTINEL", "DEBUG", "ping-period", 500)
			s.S(id, "SENTINEL", "DEBUG", "ask-period", 500)
		})
		old := s.masterID
		s.masterID = s.waitFailover(oldPort, 0, 100*time.Second)
		s.restartRedis(old)
		addrPort = s.masterPort(0)
	})

	s.step("New master role matches", func() {
		if r := s.RI(s.masterID, "role"); r != "master" {
			t.Errorf("new master %s role %q", addrPort, r)
		}
	})

	s.step("New master is reachable", func() {
		if v := s.R(s.masterID, "PING"); v != "PONG" {
			t.Errorf("PING new master: %v", v)
		}
	})

	s.step("All the other slaves now point to the new master", func() {
		for id := range s.redis {
			if id == s.masterID || id == 0 {
				continue
			}
			s.waitFor(50*time.Second, fmt.Sprintf("redis %d replicates with the new master", id), func() bool {
				return s.RI(id, "master_port") == addrPort
			})
		}
	})

	s.step("The old master eventually gets reconfigured as a slave", func() {
		s.waitFor(50*time.Second, "old master reconfigured as slave of the new master", func() bool {
			return s.RI(0, "master_port") == addrPort
		})
	})

	s.step("ODOWN is not possible without N (quorum) Sentinels reports", func() {
		s.foreachSentinel(func(id int) { s.S(id, "SENTINEL", "SET", masterName, "quorum", sentinels+1) })
		oldPort := s.rport(s.masterID)
		if p := s.masterPort(0); p != oldPort {
			t.Fatalf("master port %s, want %s", p, oldPort)
		}
		s.killRedis(s.masterID)
		// Stronger than the Tcl test (which checks at once): every sentinel
		// sees the master SDOWN, and none reaches ODOWN or fails over.
		s.foreachSentinel(func(id int) {
			s.waitFor(20*time.Second, fmt.Sprintf("sentinel %d: master s_down", id), func() bool {
				return strings.Contains(s.masterField(id, "flags"), "s_down")
			})
		})
		s.holds(3*time.Second, "no ODOWN and no failover without quorum", func() bool {
			for id := range s.sentinels {
				if s.masterPort(id) != oldPort || strings.Contains(s.masterField(id, "flags"), "o_down") {
					return false
				}
			}
			return true
		})
		s.restartRedis(s.masterID)
		// The Tcl test restarts the master before down-after elapses; here
		// it was seen SDOWN, so wait until every sentinel sees it back
		// before the quorum is lowered again.
		s.foreachSentinel(func(id int) {
			s.waitFor(20*time.Second, fmt.Sprintf("sentinel %d sees the master back", id), func() bool {
				return s.masterField(id, "flags") == "master"
			})
		})
	})

	s.step("Failover is not possible without majority agreement", func() {
		s.foreachSentinel(func(id int) { s.S(id, "SENTINEL", "SET", masterName, "quorum", s.quorum) })
		oldPort := s.rport(s.masterID)
		for id := 0; id < s.quorum; id++ {
			s.killSentinel(id)
		}
		s.killRedis(s.masterID)
		s.waitFor(20*time.Second, "remaining sentinels see the master down", func() bool {
			return strings.Contains(s.masterField(s.quorum, "flags"), "s_down")
		})
		s.holds(3*time.Second, "no failover without a majority", func() bool {
			for id := s.quorum; id < sentinels; id++ {
				if s.masterPort(id) != oldPort {
					return false
				}
			}
			return true
		})
		s.restartRedis(s.masterID)
		for id := 0; id < s.quorum; id++ {
			s.restartSentinel(id)
		}
	})

	s.step("Failover works if we configure for absolute agreement", func() {
		s.foreachSentinel(func(id int) { s.S(id, "SENTINEL", "SET", masterName, "quorum", sentinels) })
		s.foreachSentinel(func(id int) {
			s.waitFor(100*time.Second, fmt.Sprintf("sentinel %d monitors the master again", id), func() bool {
				f := s.masterDict(id)
				return f["info-refresh"] != "" && len(f["info-refresh"]) < 6 && f["flags"] == "master"
			})
		})
		s.verifyAutoDiscovery()
		oldPort := s.rport(s.masterID)
		old := s.masterID
		s.killRedis(s.masterID)
		s.masterID = s.waitFailover(oldPort, 0, 100*time.Second)
		s.restartRedis(old)
		addrPort = s.masterPort(0)
	})

	s.step("New master role matches after absolute agreement", func() {
		if r := s.RI(s.masterID, "role"); r != "master" {
			t.Errorf("new master %s role %q", addrPort, r)
		}
	})

	s.step("SENTINEL RESET can resets the master", func() {
		// The sentinel may rediscover replicas/sentinels at once after the
		// reset: give it a few chances, like the Tcl test.
		var nSentinels, nReplicas int
		for j := 0; j < 10; j++ {
			if v := fmt.Sprint(s.S(0, "SENTINEL", "RESET", masterName)); v != "1" {
				t.Fatalf("SENTINEL RESET = %v, want 1", v)
			}
			a, _ := s.S(0, "SENTINEL", "SENTINELS", masterName).([]any)
			b, _ := s.S(0, "SENTINEL", "REPLICAS", masterName).([]any)
			nSentinels, nReplicas = len(a), len(b)
			if nSentinels == 0 && nReplicas == 0 {
				break
			}
		}
		if nSentinels != 0 || nReplicas != 0 {
			t.Errorf("after RESET: %d sentinels, %d replicas, want 0 and 0", nSentinels, nReplicas)
		}
		if v := fmt.Sprint(s.S(0, "SENTINEL", "RESET", "no-such-*")); v != "0" {
			t.Errorf("SENTINEL RESET no-such-* = %v, want 0", v)
		}
		// The links are recreated at once; rediscovery of the replicas
		// takes up to an info-period (10 s on both implementations) and is
		// not awaited.
		s.waitFor(5*time.Second, "sentinel 0 reconnected to the master after RESET", func() bool {
			return s.masterField(0, "flags") == "master"
		})
	})
}
