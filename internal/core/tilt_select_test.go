package core

import "testing"

// TestNoSelectionInTiltExitTick: in the tick that ends TILT the replicas'
// SDOWN flags are still those of before TILT, so replica selection waits
// for the next tick (docs/core.md decision 23, sim seed 600899).
func TestNoSelectionInTiltExitTick(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	m.flags |= fFailoverInProgress
	m.m.failoverState = FailoverSelectSlave
	s.now = 5000 + timeBase
	s.tiltExit = s.now
	s.out = nil
	s.failoverSelectSlave(m)
	if len(s.out) != 0 || m.m.failoverState != FailoverSelectSlave {
		t.Fatalf("acted in the TILT-exit tick: state %v, effects %v", m.m.failoverState, s.out)
	}
	s.now++
	s.failoverSelectSlave(m)
	// The only replica has no INFO: the selection runs and finds none.
	if m.m.failoverState == FailoverSelectSlave {
		t.Fatal("no selection in the tick after the TILT exit")
	}
	if ev := effectsOf[Emit](s.out); len(ev) == 0 || ev[0].Type != "-failover-abort-no-good-slave" {
		t.Fatalf("events after the TILT-exit tick: %v", ev)
	}
}
