package sim

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/gosentinel/gosentinel/internal/core"
)

// massRun is one run of the mass-failover experiment (lab scenario B9,
// issue "Performance" item 4): three sentinels, quorum 2, n masters with
// one replica each, every master crashed in the same instant.
type massRun struct {
	switched   []int64 // per master: crash → first +switch-master, ms (-1: never)
	elections  int     // +try-failover events
	won        int     // +elected-leader events
	epochs     uint64  // highest current epoch at the end
	violations []Violation
}

// massOptions are the lab's settings (down-after 2000 ms, failover-timeout
// 10 s) with the runtime's 50–100 ms ticks, a LAN and a disk whose config
// write + fsync takes persistMin–persistMax ms.
func massOptions(seed uint64, masters int, persistMin, persistMax int64) Options {
	o := Options{Seed: seed, Sentinels: 3, Masters: masters, Quorum: 2, Replicas: 1, PreconfiguredPeers: true}
	o.Priority, o.Announced = []int{100}, []bool{true}
	o.Timing = core.DefaultTiming()
	o.DownAfter, o.FailoverTimeout = 2000, 10000
	o.Timing.DefaultDownAfter, o.Timing.DefaultFailoverTimeout = o.DownAfter, o.FailoverTimeout
	o.ParallelSyncs = 1
	o.TickMin, o.TickMax, o.DeadlineTicks = 50, 100, true
	o.LatencyMin, o.LatencyMax = 0, 2
	o.PersistMin, o.PersistMax = persistMin, persistMax
	o.LoadingTime, o.ReplRate, o.ReplTimeout = 100, 10, 60000
	o.Warmup, o.FaultPhase, o.FaultGap, o.HealPhase = 6000, 0, 1, 1
	return o
}

func runMassFailover(seed uint64, masters int, persistMin, persistMax int64) massRun {
	o := massOptions(seed, masters, persistMin, persistMax)
	w := newWorld(o, true)
	for _, s := range w.sent {
		w.sch.after(w.rng.Int64N(100), func() { w.startSentinel(s) })
	}
	w.sch.after(replTickPeriod, w.replTick)
	crashAt := o.Warmup + w.rng.Int64N(1000)
	w.sch.at(crashAt, func() {
		for g := 0; g < masters; g++ {
			w.crashInstance(w.groupMaster(g))
		}
	})
	runUntil(w, crashAt+o.DownAfter+30000)
	r := massRun{violations: w.chk.violations}
	first := map[string]int64{}
	for _, ev := range traceEvents(w, crashAt) {
		switch ev.typ {
		case "+try-failover":
			r.elections++
		case "+elected-leader":
			r.won++
		case "+switch-master":
			if len(ev.words) == 0 {
				continue
			}
			if _, ok := first[ev.words[0]]; !ok {
				first[ev.words[0]] = ev.at - crashAt
			}
		}
	}
	for g := 0; g < masters; g++ {
		d, ok := first[w.masters[g]]
		if !ok {
			d = -1
		}
		r.switched = append(r.switched, d)
	}
	for _, s := range w.sent {
		r.epochs = max(r.epochs, s.core.CurrentEpoch())
	}
	return r
}

// TestMassFailover measures B9 in simulated time (deterministic, so free
// of the lab machine's CPU starvation): 50 masters crashed at once, three
// sentinels. Every master must switch within down-after + 2 s of the crash
// (issue "Performance" goal for mass failover); elections and epochs are
// reported (docs/core.md decision 25).
func TestMassFailover(t *testing.T) {
	seeds := uint64(3)
	if testing.Short() {
		seeds = 1
	}
	if v, err := strconv.ParseUint(os.Getenv("GOSENTINEL_MASS_SEEDS"), 10, 64); err == nil && v > 0 {
		seeds = v
	}
	for _, disk := range [][2]int64{{1, 30}, {20, 80}} {
		for seed := uint64(1); seed <= seeds; seed++ {
			r := runMassFailover(seed, 50, disk[0], disk[1])
			for _, v := range r.violations {
				t.Errorf("seed %d: %s", seed, v)
			}
			var all []int64
			for _, d := range r.switched {
				if d >= 0 {
					all = append(all, d)
				}
			}
			slices.Sort(all)
			line := fmt.Sprintf("persist %d–%d ms, seed %d: %d/%d switched", disk[0], disk[1], seed, len(all), len(r.switched))
			if len(all) > 0 {
				line += fmt.Sprintf(", crash → switch p50 %d ms, p95 %d ms, max %d ms", all[len(all)/2], all[len(all)*95/100], all[len(all)-1])
			}
			line += fmt.Sprintf("; %d elections, %d won, highest epoch %d", r.elections, r.won, r.epochs)
			t.Log(line)
			if len(all) < len(r.switched) || all[len(all)-1] > 2000+2000 {
				t.Errorf("%s: want every master switched within down-after + 2 s", line)
			}
		}
	}
}
