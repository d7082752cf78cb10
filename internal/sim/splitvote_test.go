package sim

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/core"
)

// splitVoteRun is one run of the split-vote experiment (lab scenario C1,
// finding F6 in docs/reliability.md): three sentinels, quorum 2, lab
// timers; the master and sentinel 0 are cut off from the replica and
// sentinels 1 and 2, which must elect one of them in the first epoch.
type splitVoteRun struct {
	odownDelta int64 // |first +odown of s1 - first +odown of s2|, ms (-1: one only)
	elected    bool  // a leader was elected in epoch 1
	// electedAfter is the time from the first +odown to +elected-leader.
	electedAfter int64
	violations   []Violation
}

// splitVoteEnv is what a configuration of the experiment varies.
type splitVoteEnv struct {
	persistMin, persistMax int64 // config write + fsync, ms
	skew                   int64 // s2 is cut off up to ±skew ms after s1
	stagger                int64 // Timing.FailoverStagger (0: the default)
}

// splitVoteOptions are the lab's settings (docs/reliability.md:
// down-after 2000 ms, failover-timeout 10 s, default timers, quorum 2 of 3)
// with the runtime's 50–100 ms ticks, a LAN and a loaded disk.
func splitVoteOptions(seed uint64, env splitVoteEnv) Options {
	o := Options{Seed: seed, Sentinels: 3, Masters: 1, Quorum: 2, Replicas: 1,
		Priority: []int{100}, Announced: []bool{true}, PreconfiguredPeers: true}
	o.Timing = core.DefaultTiming()
	if env.stagger != 0 {
		o.Timing.FailoverStagger = env.stagger
	}
	o.DownAfter, o.FailoverTimeout = 2000, 10000
	o.Timing.DefaultDownAfter, o.Timing.DefaultFailoverTimeout = o.DownAfter, o.FailoverTimeout
	o.ParallelSyncs = 1
	o.TickMin, o.TickMax, o.DeadlineTicks = 50, 100, true
	o.LatencyMin, o.LatencyMax = 0, 2
	o.PersistMin, o.PersistMax = env.persistMin, env.persistMax
	o.LoadingTime, o.ReplRate, o.ReplTimeout = 100, 10, 60000
	o.Warmup, o.FaultPhase, o.FaultGap, o.HealPhase = 6000, 0, 1, 1
	return o
}

// runSplitVote partitions {master, s0} from the rest at a seed-drawn
// instant (s2 up to ±skew ms later than s1, so that their ODOWNs spread)
// and reports how the first election went.
func runSplitVote(seed uint64, env splitVoteEnv) splitVoteRun {
	o := splitVoteOptions(seed, env)
	w := newWorld(o, true)
	for _, s := range w.sent {
		s := s
		w.sch.after(w.rng.Int64N(100), func() { w.startSentinel(s) })
	}
	w.sch.after(replTickPeriod, w.replTick)
	cutAt := o.Warmup + w.rng.Int64N(1000)
	skew := w.rng.Int64N(2*env.skew+1) - env.skew
	const isolated = 30000
	side := map[int]bool{w.groupMaster(0).id: true, w.sent[0].node: true}
	cutFrom := func(b int) {
		for a := range w.blocked {
			if side[a] {
				w.cut(a, b, isolated)
				w.cut(b, a, isolated)
			}
		}
	}
	w.sch.at(cutAt, func() { cutFrom(w.inst[1].id); cutFrom(w.sent[1].node) })
	w.sch.at(cutAt+skew, func() { cutFrom(w.sent[2].node) })
	cutAt = min(cutAt, cutAt+skew)
	// The election must be over well before its timeout (10 s).
	runUntil(w, cutAt+o.DownAfter+8000)
	r := splitVoteRun{violations: w.chk.violations}
	odown := map[string]int64{}
	for _, ev := range traceEvents(w, cutAt) {
		t := ev.at
		switch ev.typ {
		case "+odown":
			if _, ok := odown[ev.sentinel]; !ok {
				odown[ev.sentinel] = t
			}
		case "+elected-leader":
			if !r.elected {
				first := t
				for _, x := range odown {
					first = min(first, x)
				}
				r.electedAfter = t - first
			}
			r.elected = true
		}
	}
	t1, ok1 := odown["s1"]
	t2, ok2 := odown["s2"]
	r.odownDelta = max(t1-t2, t2-t1)
	if !ok1 || !ok2 {
		r.odownDelta = -1
	}
	return r
}

// splitVoteTable runs seeds 1..n of one configuration and returns the
// table (runs and first elections without a leader per ODOWN gap) and the
// number of such elections.
func splitVoteTable(t *testing.T, n uint64, env splitVoteEnv) (string, int) {
	buckets := []int64{25, 50, 100, 150, 1 << 40}
	runs, splits := make([]int, len(buckets)+1), make([]int, len(buckets)+1)
	total := 0
	var delays []int64
	for seed := uint64(1); seed <= n; seed++ {
		r := runSplitVote(seed, env)
		if r.elected {
			delays = append(delays, r.electedAfter)
		}
		for _, v := range r.violations {
			t.Errorf("seed %d: %s", seed, v)
		}
		b := len(buckets) // only one sentinel reached ODOWN
		if r.odownDelta >= 0 {
			b = 0
			for r.odownDelta >= buckets[b] {
				b++
			}
		}
		runs[b]++
		if !r.elected {
			splits[b]++
			total++
		}
	}
	var out strings.Builder
	slices.Sort(delays)
	p50, p95 := int64(-1), int64(-1)
	if len(delays) > 0 {
		p50, p95 = delays[len(delays)/2], delays[len(delays)*95/100]
	}
	fmt.Fprintf(&out, "stagger %d, persist %d–%d ms, cut skew ±%d ms: %d of %d first elections without a leader; "+
		"first +odown → +elected-leader p50 %d ms, p95 %d ms\n",
		max(env.stagger, core.DefaultTiming().FailoverStagger), env.persistMin, env.persistMax, env.skew, total, n, p50, p95)
	lo := int64(0)
	for b := range runs {
		label := "one ODOWN only"
		if b < len(buckets) {
			label = fmt.Sprintf("ODOWN %d–%s ms apart", lo, upper(buckets[b]))
			lo = buckets[b]
		}
		fmt.Fprintf(&out, "  %-24s %4d runs %3d split\n", label, runs[b], splits[b])
	}
	return out.String(), total
}

// TestSplitVoteTwoCandidates measures F6 (docs/core.md decision 22): two
// sentinels of a majority of exactly two reach ODOWN within tens of ms of
// each other; they must not split their votes in the first epoch (a split
// costs 2×failover-timeout). Seeds are deterministic, so the counts are
// exact for this core.
func TestSplitVoteTwoCandidates(t *testing.T) {
	n := uint64(60)
	if testing.Short() {
		n = 15
	}
	if v, err := strconv.ParseUint(os.Getenv("GOSENTINEL_SPLITVOTE_SEEDS"), 10, 64); err == nil && v > 0 {
		n = v // docs/core.md decision 22 was measured with 200
	}
	for _, env := range []splitVoteEnv{
		{persistMin: 1, persistMax: 30, skew: 0},
		{persistMin: 1, persistMax: 30, skew: 150},
		{persistMin: 20, persistMax: 80, skew: 150},
		{persistMin: 50, persistMax: 150, skew: 150},
	} {
		table, total := splitVoteTable(t, n, env)
		t.Log(table)
		if total*100 > int(n) {
			t.Errorf("%d of %d first elections without a leader (want ≤ 1 %%)", total, n)
		}
	}
}

func upper(hi int64) string {
	if hi >= 1<<40 {
		return "∞"
	}
	return fmt.Sprint(hi)
}

// TestSplitVoteSlowDisk is the same experiment with config saves of
// 100–300 and 200–700 ms (fsync on the fault lab's loaded machine: p50
// 57 ms, p90 632 ms). A candidate's vote requests leave after its save,
// so with a fixed 200 ms stagger the next sentinel in turn started before
// they arrived and voted for itself: 17 and 52 of 60 first elections had
// no leader. With the stagger step raised to 1 s once a recent save took
// more than a third of the step (docs/core.md decision 29): 0 of 60 each.
func TestSplitVoteSlowDisk(t *testing.T) {
	n := uint64(60)
	if testing.Short() {
		n = 20
	}
	for _, env := range []splitVoteEnv{
		{persistMin: 100, persistMax: 300, skew: 150},
		{persistMin: 200, persistMax: 700, skew: 150},
	} {
		table, total := splitVoteTable(t, n, env)
		t.Log(table)
		if total*100 > int(n) {
			t.Errorf("%d of %d first elections without a leader (want ≤ 1 %%)", total, n)
		}
	}
}
