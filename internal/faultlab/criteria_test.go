package faultlab

import "testing"

// TestExtraAtMostNever: a figure recorded as -1 ("never", e.g. B9L's
// all_converged_s when a group never converged) fails an upper bound.
// It passed before, so redis-sentinel's B9L run with 0 of 200 groups
// converged counted as passing "all converged ≤ 60 s" and gosentinel's
// 67.6 s showed as a regression.
func TestExtraAtMostNever(t *testing.T) {
	c := extraAtMost("all_converged_s", 60, "all converged ≤ 60 s")
	for _, tc := range []struct {
		v    float64
		set  bool
		pass bool
	}{
		{v: 12.5, set: true, pass: true},
		{v: 60, set: true, pass: true},
		{v: 67.6, set: true, pass: false},
		{v: -1, set: true, pass: false},
		{set: false, pass: false},
	} {
		r := &RunResult{Extra: map[string]float64{}}
		if tc.set {
			r.Extra["all_converged_s"] = tc.v
		}
		if ok, why := c.Check(r); ok != tc.pass {
			t.Errorf("all_converged_s %v (set %v): pass = %v (%s), want %v", tc.v, tc.set, ok, why, tc.pass)
		}
	}
}
