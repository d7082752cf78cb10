package faultlab

import (
	"fmt"
	"strings"
)

// criterionName is the part of a RunResult.Failed line before its figures.
func criterionName(failed string) string {
	if i := strings.Index(failed, ": "); i >= 0 {
		return failed[:i]
	}
	return failed
}

// Regressions compares the runs of one invocation scenario by scenario
// and returns what counts against gosentinel: a run that could not be
// carried out (any kind), an invariant violation or crash in a run with
// gosentinel, and a criterion that a gosentinel (or mixed) run fails while
// every redis-sentinel run of the same scenario passes it. Criteria that
// redis-sentinel fails too are baseline figures (reported in the
// scorecard), not regressions.
func Regressions(results []RunResult) []string {
	redisFails := map[string]map[string]bool{} // scenario → criterion → failed in some redis run
	redisRuns := map[string]int{}
	for _, r := range results {
		if r.Kind != r.Kind.baseline() {
			continue
		}
		key := r.Scenario + "/" + string(r.Kind)
		redisRuns[key]++
		if redisFails[key] == nil {
			redisFails[key] = map[string]bool{}
		}
		for _, f := range r.Failed {
			redisFails[key][criterionName(f)] = true
		}
	}
	var out []string
	for _, r := range results {
		where := fmt.Sprintf("%s on %s, run %d (seed %d)", r.Scenario, r.Kind, r.Run, r.Seed)
		if r.Error != "" {
			out = append(out, where+": "+r.Error)
			continue
		}
		if r.Kind == r.Kind.baseline() {
			continue
		}
		key := r.Scenario + "/" + string(r.Kind.baseline())
		for _, f := range r.Failed {
			name := criterionName(f)
			switch {
			case name == "invariants":
				out = append(out, where+": "+f)
			case redisRuns[key] == 0:
				out = append(out, where+": "+f+" (no redis-sentinel run to compare)")
			case !redisFails[key][name]:
				out = append(out, where+": "+f+" (redis-sentinel passes it)")
			}
		}
	}
	return out
}
