package redissuite

import (
	"os"
	"testing"
)

// TestSequentialUnits runs part 1's units one after the other on ONE set
// of processes, as the Tcl suite does: each unit starts with the init tests
// again (restart killed instances, SENTINEL REMOVE, new master/replicas
// cluster, SENTINEL MONITOR), and the SENTINEL DEBUG timers a unit set stay
// for the next ones. It catches state that leaks from a unit into the next
// (epochs, known sentinels, links). Slow: behind GOSENTINEL_SUITE_LONG=1.
func TestSequentialUnits(t *testing.T) {
	if os.Getenv(longEnv) == "" {
		t.Skip("set " + longEnv + "=1 to run the units in sequence on one set of processes")
	}
	t.Parallel()
	s := newSuite(t)
	units := []struct {
		name string
		run  func(*suite)
	}{
		{"00-base", unitBase},
		{"01-conf-update", unitConfUpdate},
		{"02-slaves-reconf", unitSlavesReconf},
		{"03-runtime-reconf", unitRuntimeReconf},
		{"05-manual", unitManual},
		{"06-ckquorum", unitCkquorum},
	}
	for i, u := range units {
		if i > 0 {
			s.step("(init) before "+u.name, s.reinit)
		}
		t.Logf("=== unit %s", u.name)
		u.run(s)
	}
}
