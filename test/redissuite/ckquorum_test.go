package redissuite

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestCkquorum ports 06-ckquorum.tcl.
func TestCkquorum(t *testing.T) {
	t.Parallel()
	unitCkquorum(newSuite(t))
}

// unitCkquorum is the body of TestCkquorum on an initialised suite.
func unitCkquorum(s *suite) {
	t := s.t
	n := len(s.sentinels)
	origQuorum := n/2 + 1

	s.step("CKQUORUM reports OK and the right amount of Sentinels", func() {
		want := fmt.Sprintf("OK %d usable Sentinels. Quorum and failover authorization can be reached", n)
		s.foreachSentinel(func(id int) {
			if got := fmt.Sprint(s.S(id, "SENTINEL", "CKQUORUM", masterName)); got != want {
				t.Errorf("sentinel %d: CKQUORUM = %q, want %q", id, got, want)
			}
		})
	})

	s.step("CKQUORUM detects quorum cannot be reached", func() {
		s.S(0, "SENTINEL", "SET", masterName, "quorum", n+1)
		_, err := s.try(0, "SENTINEL", "CKQUORUM", masterName)
		want := fmt.Sprintf("NOQUORUM %d usable Sentinels. Not enough available Sentinels to reach the specified quorum for this master", n)
		if err == nil || err.Error() != want {
			t.Errorf("CKQUORUM = %v, want error %q", err, want)
		}
		s.S(0, "SENTINEL", "SET", masterName, "quorum", origQuorum)
	})

	s.step("CKQUORUM detects failover authorization cannot be reached", func() {
		s.S(0, "SENTINEL", "SET", masterName, "quorum", 1)
		for i := 0; i < origQuorum; i++ {
			s.killSentinel(i + 1)
		}
		var err error
		s.waitFor(15*time.Second, fmt.Sprintf("%d sentinels down for sentinel 0", origQuorum), func() bool {
			_, err = s.try(0, "SENTINEL", "CKQUORUM", masterName)
			return err != nil
		})
		want := fmt.Sprintf("NOQUORUM %d usable Sentinels. Not enough available Sentinels to reach the majority and authorize a failover", n-origQuorum)
		if err.Error() != want {
			t.Errorf("CKQUORUM = %q, want %q", err, want)
		}
		if !strings.HasPrefix(err.Error(), "NOQUORUM") {
			t.Errorf("error %q is not NOQUORUM", err)
		}
		s.S(0, "SENTINEL", "SET", masterName, "quorum", origQuorum)
		for i := 0; i < origQuorum; i++ {
			s.restartSentinel(i + 1)
		}
		s.verifyAutoDiscovery()
	})
}
