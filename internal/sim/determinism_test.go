package sim

import "testing"

// TestSameSeedSameTrace: a seed replays byte for byte.
func TestSameSeedSameTrace(t *testing.T) {
	seeds := []uint64{1, 7, 42}
	if testing.Short() || raceEnabled {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		a, b := Run(seed, true), Run(seed, true)
		if a.Trace == "" {
			t.Fatalf("seed %d: empty trace", seed)
		}
		if a.Trace != b.Trace {
			t.Fatalf("seed %d: two runs produced different traces (%d vs %d bytes)", seed, len(a.Trace), len(b.Trace))
		}
		if a.Failovers != b.Failovers || len(a.Violations) != len(b.Violations) || a.Steps != b.Steps {
			t.Fatalf("seed %d: results differ: %+v vs %+v", seed, a, b)
		}
		// Tracing must not change the run.
		c := Run(seed, false)
		if c.Steps != a.Steps || c.Failovers != a.Failovers || len(c.Violations) != len(a.Violations) {
			t.Fatalf("seed %d: tracing changes the run: %d vs %d steps", seed, c.Steps, a.Steps)
		}
	}
	if Run(1, true).Trace == Run(2, true).Trace {
		t.Fatal("seeds 1 and 2 produce the same trace")
	}
}
