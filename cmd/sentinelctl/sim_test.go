package main

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/sim"
)

// runSimCLI runs sentinelctl with args and returns stdout and the error.
func runSimCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out, errw bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errw)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestSimSummaryLine(t *testing.T) {
	out, err := runSimCLI(t, "sim", "--seeds", "3", "--start", "5")
	if err != nil {
		t.Fatalf("sim --seeds 3: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	last := lines[len(lines)-1]
	if !regexp.MustCompile(`^3 seeds, \d+ failovers, 0 violations$`).MatchString(last) {
		t.Fatalf("last line %q", last)
	}
}

func TestSimReplayPrintsOptionsAndTrace(t *testing.T) {
	out, err := runSimCLI(t, "sim", "--seed", "2", "--trace")
	if err != nil {
		t.Fatalf("sim --seed 2 --trace: %v", err)
	}
	for _, want := range []string{"options for seed 2:", "sentinels", "s0 <- tick", "heal: all faults end", "1 seeds, "} {
		if !strings.Contains(out, want) {
			t.Errorf("replay output lacks %q", want)
		}
	}
	again, _ := runSimCLI(t, "sim", "--seed", "2", "--trace")
	if again != out {
		t.Fatal("two replays of seed 2 differ")
	}
}

func TestSimRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"sim", "--seeds", "0"},
		{"sim", "--seeds", "x"},
		{"sim", "extra"},
	} {
		if _, err := runSimCLI(t, args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

func TestPrintViolationsGivesReplayCommand(t *testing.T) {
	r := sim.Result{Seed: 77, Violations: []sim.Violation{{Seed: 77, Time: 1234, Invariant: "S2", Sentinel: 1, Detail: "two leaders"}}}
	var b bytes.Buffer
	printViolations(&b, r)
	want := "seed 77: S2 violated at 1234ms sentinel 1: two leaders\n  replay: sentinelctl sim --seed 77 --trace\n" +
		"  scenario: " + r.Options.Fingerprint() + " (0 faults; sentinelctl sim --seed 77 --plan)\n"
	if b.String() != want {
		t.Fatalf("got %q, want %q", b.String(), want)
	}
	var ee exitError
	if !errors.As(exitError{code: 1}, &ee) || ee.code != 1 {
		t.Fatal("exitError does not carry the status")
	}
}
