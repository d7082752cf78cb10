package core

import (
	"strings"
	"testing"
)

// TestTiltTriggers pins sentinelCheckTiltCondition: a tick gap above
// tilt-trigger, or a clock going backwards, enters TILT; it ends after
// tilt-period.
func TestTiltTriggers(t *testing.T) {
	tests := []struct {
		name  string
		ticks []Millis
		tilt  bool
	}{
		{"regular ticks", []Millis{100, 200, 300, 2300}, false},
		{"gap of exactly tilt-trigger", []Millis{100, 2100}, false},
		{"gap above tilt-trigger", []Millis{100, 2101}, true},
		{"clock backwards", []Millis{500, 400}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestCore(t)
			var events []string
			for _, now := range tt.ticks {
				events = append(events, emitTypes(s.Step(now, Tick{})))
			}
			if s.InTilt() != tt.tilt || strings.Contains(strings.Join(events, " "), "+tilt") != tt.tilt {
				t.Fatalf("tilt=%v events %q", s.InTilt(), events)
			}
		})
	}
	// Exit after tilt-period (30 s by default), on a regular tick.
	s := newTestCore(t)
	s.Step(5000, Tick{})
	now := Millis(5000)
	for ; now < 5000+30000; now += 100 {
		s.Step(now, Tick{})
		if !s.InTilt() {
			t.Fatalf("left TILT early at %d", now)
		}
	}
	if got := emitTypes(s.Step(now+100, Tick{})); !strings.Contains(got, "-tilt") || s.InTilt() {
		t.Fatalf("no -tilt: %q", got)
	}
}

// TestNoFailoverInTilt (S5): an ODOWN master does not start a failover
// while in TILT, and IS-MASTER-DOWN-BY-ADDR answers 0.
func TestNoFailoverInTilt(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	s.Step(10000, Tick{}) // gap: TILT
	m.flags |= fSDown | fODown
	for _, si := range m.sortedSentinels() {
		si.flags |= fMasterDown
	}
	for now := Millis(10100); now < 20000; now += 100 {
		if got := emitTypes(s.Step(now, Tick{})); strings.Contains(got, "try-failover") {
			t.Fatalf("failover in TILT at %d", now)
		}
		m.flags |= fSDown | fODown
	}
	resp, _ := request(s, 20000, 1, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "0", "*")
	if renderValue(resp[0].Value) != `[:0 "*" :0]` {
		t.Fatalf("reply %s", renderValue(resp[0].Value))
	}
}

// TestODownCountsOnlyFreshAnswers: peers' "master is down" answers older
// than 5×ask-period do not count toward ODOWN, also when nothing expired
// them before (they are only expired by the ask loop, which TILT skips;
// sim seeds 22, 110, 292: +odown right after -tilt on stale answers).
func TestODownCountsOnlyFreshAnswers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		age   Millis
		odown bool
	}{
		{"fresh", 1000, true},
		{"at the limit", 5000, true},
		{"stale", 5001, false},
		{"very stale", 30000, false},
	} {
		s := newTestCore(t)
		s.now = timeBase + 60000
		m := s.masters["mym"]
		m.flags |= fSDown
		for _, si := range m.sortedSentinels() {
			si.flags |= fMasterDown
			si.lastMDReplyTime = s.now - tc.age
		}
		s.checkObjectivelyDown(m)
		if got := m.flags&fODown != 0; got != tc.odown {
			t.Errorf("%s (answers %d ms old): odown=%v, want %v", tc.name, tc.age, got, tc.odown)
		}
	}
}

// TestResetClearsMasterDownAnswers: after a reset or +switch-master the
// peers' "master is down" answers, which were about the old address, are
// forgotten (sim F5).
func TestResetClearsMasterDownAnswers(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	for _, si := range m.sortedSentinels() {
		si.flags |= fMasterDown
		si.lastMDReplyTime = s.now
	}
	if !s.resetMasterAndChangeAddress(m, "127.0.0.1", 6380) {
		t.Fatal("address change refused")
	}
	if len(m.sortedSentinels()) != 2 {
		t.Fatalf("sentinels dropped: %d", len(m.sortedSentinels()))
	}
	for _, si := range m.sortedSentinels() {
		if si.flags&fMasterDown != 0 {
			t.Errorf("%s still reports the master down after the switch", si.name)
		}
	}
}
