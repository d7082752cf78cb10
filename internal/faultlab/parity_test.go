package faultlab

import (
	"strings"
	"testing"
)

func TestRegressions(t *testing.T) {
	runs := []RunResult{
		{Scenario: "A3", Kind: KindRedis, Failed: []string{"L1 <= 10 s after heal: L1 10.10 s after heal"}},
		{Scenario: "A3", Kind: KindGosentinel, Failed: []string{"L1 <= 10 s after heal: L1 10.20 s after heal"}},
		{Scenario: "D1", Kind: KindRedis},
		{Scenario: "D1", Kind: KindGosentinel, Failed: []string{"0 votes granted while non-durable: votes_while_readonly = 1"}},
		{Scenario: "C1", Kind: KindRedis, Failed: []string{"invariants: S5: two masters"}},
		{Scenario: "C1", Kind: KindGosentinel, Failed: []string{"invariants: S2: epoch"}},
		{Scenario: "E2", Kind: KindRedis, Error: "topology: boom"},
	}
	got := Regressions(runs)
	want := []string{"D1 on gosentinel", "C1 on gosentinel", "E2 on redis"}
	if len(got) != len(want) {
		t.Fatalf("Regressions = %q, want %d entries", got, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("entry %d = %q, want prefix %q", i, got[i], w)
		}
	}
}

func TestSelectAndOrder(t *testing.T) {
	s, err := Select([]string{"A1?", "A2", "C1*"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, x := range s {
		ids = append(ids, x.ID)
	}
	if got := strings.Join(ids, " "); got != "A2 A10 C1 C1m" {
		t.Errorf("Select = %q", got)
	}
	if got := strings.Join(SmokeIDs(), " "); got != "A1 A3 C1 C3 D1 E2" {
		t.Errorf("SmokeIDs = %q", got)
	}
}

func TestParseKinds(t *testing.T) {
	k, err := ParseKinds("gosentinel,redis,mixed")
	if err != nil || len(k) != 4 {
		t.Fatalf("ParseKinds = %v, %v", k, err)
	}
	if _, err := ParseKinds("keydb"); err == nil {
		t.Error("ParseKinds(keydb) succeeded")
	}
}

// TestScenariosRunnable: every registered scenario has an ID, a title and
// a schedule (or says why it cannot run yet): `make lab` runs them all.
func TestScenariosRunnable(t *testing.T) {
	for _, s := range Scenarios() {
		if s.ID == "" || s.Title == "" || (s.Schedule == nil && s.NotYet == "") {
			t.Errorf("scenario %q (%q): no id, title or schedule", s.ID, s.Title)
		}
	}
}
