package redissuite

import (
	"fmt"
	"testing"
	"time"
)

// TestConfUpdate ports 01-conf-update.tcl: a sentinel that was down during
// a failover learns the new configuration from its peers when it returns.
func TestConfUpdate(t *testing.T) {
	t.Parallel()
	unitConfUpdate(newSuite(t))
}

// unitConfUpdate is the body of TestConfUpdate on an initialised suite.
func unitConfUpdate(s *suite) {
	t := s.t
	var oldPort string

	s.step("We can failover with Sentinel 1 crashed", func() {
		oldPort = s.rport(s.masterID)
		if p := s.masterPort(0); p != oldPort {
			t.Fatalf("master port %s, want %s", p, oldPort)
		}
		s.killSentinel(1)
		old := s.masterID
		s.killRedis(old)
		s.masterID = s.waitFailover(oldPort, 0, 50*time.Second)
		s.restartRedis(old)
	})

	s.step("After Sentinel 1 is restarted, its config gets updated", func() {
		s.restartSentinel(1)
		s.waitFor(50*time.Second, "restarted sentinel 1 receives the failover info", func() bool {
			p := s.masterPort(1)
			return p != "" && p != oldPort
		})
		if got, want := s.masterPort(1), s.rport(s.masterID); got != want {
			t.Errorf("sentinel 1 reports master port %s, want %s", got, want)
		}
	})

	s.step("New master role matches", func() {
		if r := s.RI(s.masterID, "role"); r != "master" {
			t.Errorf("new master role %q", r)
		}
	})

	s.step("The restarted sentinel agrees on the config epoch", func() {
		want := s.masterField(0, "config-epoch")
		s.waitFor(20*time.Second, fmt.Sprintf("sentinel 1 config-epoch %s", want), func() bool {
			return s.masterField(1, "config-epoch") == want
		})
	})

	s.step("A partitioned (SIGSTOP) sentinel gets the config of a failover it missed", func() {
		oldPort = s.rport(s.masterID)
		s.sentinels[2].proc.Stop()
		old := s.masterID
		s.killRedis(old)
		for id := range s.sentinels {
			if id == 2 {
				continue
			}
			s.waitFor(50*time.Second, fmt.Sprintf("sentinel %d receives failover info", id), func() bool {
				p := s.masterPort(id)
				return p != "" && p != oldPort
			})
		}
		s.masterID = s.redisIDByPort(s.masterPort(0))
		s.sentinels[2].proc.Cont()
		s.restartRedis(old)
		want := s.rport(s.masterID)
		s.waitFor(50*time.Second, "resumed sentinel 2 switches to the new master", func() bool {
			return s.masterPort(2) == want
		})
	})
}
