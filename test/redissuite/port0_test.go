package redissuite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPort0 is 11-port-0.tcl: a sentinel restarted on the same address
// with a new run id (its myid line deleted) replaces the old entry instead
// of adding one (the old one gets port 0 and is dropped).
func TestPort0(t *testing.T) {
	t.Parallel()
	port0Unit(t, newSuite(t))
}

// port0Unit runs 11-port-0 on an initialised suite.
func port0Unit(t *testing.T, s *suite) {
	s.step("Start/Stop sentinel on same port with a different runID should not change the total number of sentinels", func() {
		id := instancesCount - 1
		in := s.sentinels[id]
		oldID := fmt.Sprint(s.S(id, "SENTINEL", "MYID"))
		s.killSentinel(id)
		conf := filepath.Join(in.cwd, in.args[0])
		b, err := os.ReadFile(conf)
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, line := range strings.Split(string(b), "\n") {
			if !strings.Contains(line, "myid") {
				kept = append(kept, line)
			}
		}
		writeFile(t, conf, strings.Join(kept, "\n"))
		// The Tcl test reads num-other-sentinels by position (index 33).
		original := fmt.Sprint(s.S(0, "SENTINEL", "MASTER", masterName).([]any)[33])
		s.restartSentinel(id)
		newID := fmt.Sprint(s.S(id, "SENTINEL", "MYID"))
		if newID == oldID {
			t.Fatalf("restarted sentinel kept run id %s", oldID)
		}
		// The Tcl test waits 1 s; here: until sentinel 0 has heard the
		// new run id.
		s.waitFor(20*time.Second, "sentinel 0 hears the new run id", func() bool {
			v, err := s.try(0, "SENTINEL", "SENTINELS", masterName)
			if err != nil {
				return false
			}
			for _, p := range v.([]any) {
				if dict(p)["runid"] == newID {
					return true
				}
			}
			return false
		})
		current := fmt.Sprint(s.S(0, "SENTINEL", "MASTER", masterName).([]any)[33])
		if current != original {
			t.Fatalf("Sentinel count is incorrect, original count being %s and current count is %s", original, current)
		}
	})
}
