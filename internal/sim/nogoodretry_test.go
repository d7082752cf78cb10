package sim

import (
	"os"
	"slices"
	"strconv"
	"testing"
)

// noGoodRetryRun is the outcome of one A8-like run (runNoGoodRetry).
type noGoodRetryRun struct {
	aborts        int   // -failover-abort-no-good-slave events
	earlySelected bool  // a +selected-slave before the replica came back
	switchAfter   int64 // first +switch-master after the replica came back, ms (-1: none)
	violations    []Violation
}

// runNoGoodRetry is fault lab scenario A8 in the simulator (the lab's
// settings, as splitVoteOptions, with two replicas): both replicas crash,
// the master 3 s later, and one replica restarts 10 s after the master.
// The elected leader aborts with -failover-abort-no-good-slave; with the
// early retry (docs/core.md decision 27) it fails over once the replica
// is eligible again instead of 2×failover-timeout (20 s) after its first
// attempt, i.e. about 9 s after the restart.
func runNoGoodRetry(seed uint64) noGoodRetryRun {
	o := splitVoteOptions(seed, splitVoteEnv{persistMin: 1, persistMax: 30})
	o.Replicas, o.Priority, o.Announced = 2, []int{100, 100}, []bool{true, true}
	w := newWorld(o, true)
	for _, s := range w.sent {
		s := s
		w.sch.after(w.rng.Int64N(100), func() { w.startSentinel(s) })
	}
	w.sch.after(replTickPeriod, w.replTick)
	g := w.group(0)
	master, r1, r2 := g[0], g[1], g[2]
	killAt := o.Warmup + w.rng.Int64N(1000)
	backAt := killAt + 3000 + 10000
	w.sch.at(killAt, func() { w.crashInstance(r1); w.crashInstance(r2) })
	w.sch.at(killAt+3000, func() { w.crashInstance(master) })
	w.sch.at(backAt, func() { w.restartInstance(r1) })
	runUntil(w, backAt+15000)
	r := noGoodRetryRun{switchAfter: -1, violations: w.chk.violations}
	for _, ev := range traceEvents(w, killAt) {
		switch ev.typ {
		case "-failover-abort-no-good-slave":
			r.aborts++
		case "+selected-slave":
			if ev.at < backAt {
				r.earlySelected = true
			}
		case "+switch-master":
			if r.switchAfter < 0 && ev.at >= backAt {
				r.switchAfter = ev.at - backAt
			}
		}
	}
	return r
}

// TestNoGoodSlaveRetry: in the A8-like run every seed aborts with
// no-good-slave first, promotes nothing while no replica runs, and fails
// over within 5 s of the replica's restart (before the rule: about 9–10 s,
// the rest of 2×failover-timeout), with no invariant violated (S7 allows
// the early retry only under its conditions).
func TestNoGoodSlaveRetry(t *testing.T) {
	n := uint64(20)
	if testing.Short() {
		n = 5
	}
	if v, err := strconv.ParseUint(os.Getenv("GOSENTINEL_NOGOOD_SEEDS"), 10, 64); err == nil && v > 0 {
		n = v
	}
	var after []int64
	for seed := uint64(1); seed <= n; seed++ {
		r := runNoGoodRetry(seed)
		for _, v := range r.violations {
			t.Errorf("seed %d: %s", seed, v)
		}
		switch {
		case r.aborts == 0:
			t.Errorf("seed %d: no -failover-abort-no-good-slave before the replica came back", seed)
		case r.earlySelected:
			t.Errorf("seed %d: a replica selected while none was running", seed)
		case r.switchAfter < 0 || r.switchAfter > 5000:
			t.Errorf("seed %d: +switch-master %d ms after the replica came back (want ≤ 5000)", seed, r.switchAfter)
		}
		after = append(after, r.switchAfter)
	}
	slices.Sort(after)
	t.Logf("%d seeds: +switch-master after the replica's restart p50 %d ms, max %d ms", n, after[len(after)/2], after[len(after)-1])
}
