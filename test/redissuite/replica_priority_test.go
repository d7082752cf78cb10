package redissuite

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// replicaIDs returns the ids of the redis instances other than the master.
func (s *suite) replicaIDs() []int {
	var ids []int
	for id := range s.redis {
		if id != s.masterID {
			ids = append(ids, id)
		}
	}
	return ids
}

// TestReplicaPriority is 10-replica-priority.tcl (replica-announced hides a
// replica from SENTINEL REPLICAS), plus the part of 04 it relies on:
// replicas with replica-priority 0 are never promoted.
func TestReplicaPriority(t *testing.T) {
	t.Parallel()
	replicaPriorityUnit(t, newSuite(t))
}

// replicaPriorityUnit runs 10-replica-priority on an initialised suite.
func replicaPriorityUnit(t *testing.T, s *suite) {

	s.step("Check acceptable replica-priority values", func() {
		id := s.replicaIDs()[0]
		for _, c := range []struct {
			value string
			ok    bool
		}{{"no", true}, {"yes", true}, {"321", false}, {"a3b2c1", false}} {
			_, err := do(s.redis[id], "CONFIG", "SET", "replica-announced", c.value)
			if (err == nil) != c.ok {
				t.Fatalf("CONFIG SET replica-announced %s: err %v, want ok=%v", c.value, err, c.ok)
			}
		}
	})

	setAnnounced := func(announced string, n int) {
		s.step(fmt.Sprintf("Set replica-announced=%s on %d replicas", announced, n), func() {
			for i, id := range s.replicaIDs() {
				if i >= n {
					break
				}
				s.R(id, "CONFIG", "SET", "replica-announced", announced)
			}
		})
	}
	checkReplicas := func(want int) {
		s.step(fmt.Sprintf("Check sentinel replies with %d replicas", want), func() {
			s.foreachSentinel(func(id int) {
				s.S(id, "SENTINEL", "DEBUG", "info-period", 100, "default-down-after", 1000, "publish-period", 100)
				s.waitFor(20*time.Second, fmt.Sprintf("sentinel %d lists %d replicas", id, want), func() bool {
					v, err := s.try(id, "SENTINEL", "REPLICAS", masterName)
					a, _ := v.([]any)
					return err == nil && len(a) == want
				})
			})
		})
	}
	all := len(s.replicaIDs())
	setAnnounced("yes", all)
	checkReplicas(all)
	setAnnounced("no", 2)
	checkReplicas(all - 2)
	setAnnounced("yes", all)
	checkReplicas(all)

	s.step("Replicas with replica-priority 0 are not promoted", func() {
		ids := s.replicaIDs()
		want := ids[len(ids)-1]
		for _, id := range ids[:len(ids)-1] {
			s.R(id, "CONFIG", "SET", "replica-priority", 0)
		}
		s.foreachSentinel(func(id int) {
			s.waitFor(20*time.Second, fmt.Sprintf("sentinel %d sees the priorities", id), func() bool {
				v, err := s.try(id, "SENTINEL", "REPLICAS", masterName)
				if err != nil {
					return false
				}
				zero := 0
				for _, r := range v.([]any) {
					if dict(r)["slave-priority"] == "0" {
						zero++
					}
				}
				return zero == len(ids)-1
			})
		})
		old := s.rport(s.masterID)
		s.killRedis(s.masterID)
		got := s.waitFailover(old, 0, 60*time.Second)
		if got != want {
			t.Fatalf("promoted redis %d, want %d (the only replica with priority > 0)", got, want)
		}
		s.waitFor(20*time.Second, "the new master reports role master", func() bool {
			return strings.HasPrefix(s.RI(got, "role"), "master")
		})
	})

	s.step("(post-cleanup) Restore replica-priority", func() {
		for _, id := range s.replicaIDs() {
			if !s.redis[id].proc.Exited() {
				s.R(id, "CONFIG", "SET", "replica-priority", 100)
			}
		}
	})
}
