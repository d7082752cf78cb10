package sim

import (
	"testing"
)

// seedCount is how many seeds `go test` runs: a few hundred normally,
// fewer under the race detector (about 10× slower; the machine is shared) or in -short mode.
func seedCount() int {
	switch {
	case testing.Short():
		return 30
	case raceEnabled:
		return 120
	}
	return 400
}

// TestSeeds runs many seeds through the real core and fails on any
// violation, printing the replay command for each.
func TestSeeds(t *testing.T) {
	n := seedCount()
	failovers := 0
	for _, r := range RunMany(1, n, 0, Config{}) {
		failovers += r.Failovers
		for _, v := range r.Violations {
			t.Errorf("%s\n  replay: sentinelctl sim --seed %d --trace", v, r.Seed)
		}
	}
	t.Logf("%d seeds, %d failovers", n, failovers)
	// A run where nothing fails over exercises nothing: the fault mix must
	// produce failovers in a good share of the seeds.
	if failovers < n/4 {
		t.Errorf("only %d failovers in %d seeds", failovers, n)
	}
}
