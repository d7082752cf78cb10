package redissuite

import (
	"os"
	"testing"
)

// TestSharedRun runs the part 2 units one after the other on ONE set of
// processes, as run.tcl does (every unit sources init-tests.tcl, which
// restarts killed instances, removes mymaster and monitors it again). It
// checks what the per-unit tests cannot: that a sentinel survives REMOVE
// and MONITOR of the same name after earlier units, and state left by one
// unit (DEBUG timers, restarted sentinels, configs) does not break the
// next. Slow (~70 s): only with GOSENTINEL_SUITE_LONG=1.
func TestSharedRun(t *testing.T) {
	if os.Getenv(longEnv) != "1" {
		t.Skip("set " + longEnv + "=1 to run the part 2 units on one shared set of processes")
	}
	t.Parallel()
	s := newSuite(t)
	units := []struct {
		name   string
		reinit bool // run init-tests first (08 runs its own pre-init then init)
		run    func(*testing.T, *suite)
	}{
		{"07-down-conditions", false, downConditionsUnit},
		{"08-hostname-conf", false, hostnameConfUnit},
		{"09-acl-support", true, aclSupportUnit},
		{"10-replica-priority", true, replicaPriorityUnit},
		{"11-port-0", true, port0Unit},
		{"13-info-command", true, infoCommandUnit},
		{"12-master-reboot", true, masterRebootUnit}, // last: see masterRebootUnit
	}
	for i, u := range units {
		t.Logf("=== unit %s", u.name)
		if i > 0 {
			s.step("(init) Restart killed instances", s.restartKilled)
		}
		if i > 0 && u.reinit {
			s.step("(init) init-tests", func() { s.reinitHost("127.0.0.1") })
		}
		u.run(t, s)
	}
}
