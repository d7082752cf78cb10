package ops

import (
	"testing"
	"time"
)

func TestAnalyzeWrites(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(0, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ok := func(ms int, node, role string) writeRec {
		return writeRec{start: at(ms - 1), end: at(ms), ok: true, node: node, role: role}
	}
	fail := func(ms int, err string) writeRec { return writeRec{start: at(ms - 1), end: at(ms), err: err} }
	tests := []struct {
		name                      string
		recs                      []writeRec
		attempted, okN, failed    int
		nonMaster                 int
		gapFound                  bool
		gap, lastBefore, firstAft float64
	}{
		{
			name:      "outage across the trigger",
			recs:      []writeRec{ok(-2, "a", "master"), ok(-1, "a", "master"), fail(300, "EOF"), fail(800, "refused"), ok(1200, "b", "master"), ok(1201, "b", "master")},
			attempted: 6, okN: 4, failed: 2, gapFound: true, gap: 1201, lastBefore: -1, firstAft: 1200,
		},
		{
			name:      "no ok write after the trigger",
			recs:      []writeRec{ok(-5, "a", "master"), fail(10, "EOF")},
			attempted: 2, okN: 1, failed: 1,
		},
		{
			name:      "replica acknowledged",
			recs:      []writeRec{ok(-1, "a", "master"), ok(5, "c", "slave"), ok(9, "b", "master")},
			attempted: 3, okN: 3, nonMaster: 1, gapFound: true, gap: 6, lastBefore: -1, firstAft: 5,
		},
		{name: "nothing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := analyzeWrites(tc.recs, t0)
			if s.Attempted != tc.attempted || s.OK != tc.okN || s.Failed != tc.failed || s.NonMasterAcks != tc.nonMaster {
				t.Errorf("counts = %+v", s)
			}
			if s.GapFound != tc.gapFound || s.GapMs != tc.gap || s.LastOKBefore != tc.lastBefore || s.FirstOKAfter != tc.firstAft {
				t.Errorf("gap = %v %.0f [%.0f, %.0f], want %v %.0f [%.0f, %.0f]", s.GapFound, s.GapMs, s.LastOKBefore, s.FirstOKAfter, tc.gapFound, tc.gap, tc.lastBefore, tc.firstAft)
			}
			sum := 0
			for _, n := range s.AckedBy {
				sum += n
			}
			if sum != tc.okN {
				t.Errorf("AckedBy %v sums to %d, want %d", s.AckedBy, sum, tc.okN)
			}
		})
	}
}

func TestStaleAcksAndMovedOn(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(0, 0)
	recs := []writeRec{
		{end: t0.Add(-time.Millisecond), ok: true, node: "old"},
		{end: t0.Add(time.Millisecond), ok: true, node: "old"},
		{end: t0.Add(2 * time.Millisecond), ok: false, node: "old"},
		{end: t0.Add(3 * time.Millisecond), ok: true, node: "new"},
	}
	if got := staleAcks(recs, "old", t0); got != 1 {
		t.Errorf("staleAcks = %d, want 1", got)
	}
	if got := ackedKeys([]writeRec{{key: "a", ok: true}, {key: "b"}, {key: "c", ok: true}}); len(got) != 2 || got[0] != "a" || got[1] != "c" {
		t.Errorf("ackedKeys = %v", got)
	}
	tests := []struct {
		r    writeRec
		want bool
	}{
		{writeRec{ok: true, start: t0.Add(time.Millisecond), node: "new"}, true},
		{writeRec{ok: true, start: t0.Add(time.Millisecond), node: "old"}, false},
		{writeRec{ok: true, start: t0.Add(-time.Millisecond), node: "new"}, false},
		{writeRec{ok: false, start: t0.Add(time.Millisecond), node: "new"}, false},
	}
	for i, tc := range tests {
		if got := movedOn(tc.r, t0, "old"); got != tc.want {
			t.Errorf("case %d: movedOn = %v, want %v", i, got, tc.want)
		}
	}
	if got := laddr("id=3 addr=1.1.1.1:5 laddr=10.0.0.2:6379 fd=8"); got != "10.0.0.2:6379" {
		t.Errorf("laddr = %q", got)
	}
	if got := laddr("id=3"); got != "" {
		t.Errorf("laddr without field = %q", got)
	}
}

func TestDrillFailover(t *testing.T) {
	t.Parallel()
	done := Failover{Master: "m", Complete: true, To: "b"}
	later := Failover{Master: "m", To: "c"}
	other := Failover{Master: "x", Complete: true}
	tests := []struct {
		in   []Failover
		want string
		ok   bool
	}{
		{[]Failover{other, done, later}, "b", true},
		{[]Failover{other, later}, "c", true},
		{[]Failover{other}, "", false},
		{nil, "", false},
	}
	for i, tc := range tests {
		f, ok := drillFailover(tc.in, "m")
		if ok != tc.ok || f.To != tc.want {
			t.Errorf("case %d: got %q %v, want %q %v", i, f.To, ok, tc.want, tc.ok)
		}
	}
}
