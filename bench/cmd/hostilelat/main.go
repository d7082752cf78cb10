// Command hostilelat measures, per hostile load of issue 15, how much the
// load delays another client's PING + SENTINEL GET-MASTER-ADDR-BY-NAME and
// failure detection, for redis-sentinel and gosentinel in the same run
// (docs/security.md, "Latency under these loads"; docs/bench.md).
//
// For each load and implementation it starts a redis-server (the victim
// master) and one sentinel on free ports, times a victim client's PING +
// GET-MASTER-ADDR-BY-NAME every 5 ms (in a process of its own) for a
// baseline, then during the load; while the load goes on it SIGSTOPs the
// master and measures how late +sdown reaches a subscriber compared with
// the sentinel's own detection rule. Results: one section per load in
// -out (default bench/results/hostilelat.json, and .md next to it).
//
//	go run ./bench/cmd/hostilelat -runs 3
//	go run ./bench/cmd/hostilelat -runs 1 -loads glob,idle
//	go run ./bench/cmd/hostilelat -runs 1 -loads large -samples /tmp/s
//	go run ./bench/cmd/hostilelat -runs 2 -loads events,large -spinners 6
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/bench/harness"
	"github.com/gosentinel/gosentinel/bench/internal/hostile"
	"github.com/gosentinel/gosentinel/bench/internal/runner"
)

func main() {
	hostile.ProbeMain()
	hostile.SpinMain()
	o := hostile.DefaultOptions()
	var loads, samples string
	var spinners int
	runner.Main("hostilelat", 3, func(fs *flag.FlagSet) {
		names := make([]string, len(hostile.Loads))
		for i, l := range hostile.Loads {
			names[i] = l.Name
		}
		fs.StringVar(&loads, "loads", strings.Join(names, ","), "comma-separated loads to measure")
		fs.DurationVar(&o.Interval, "interval", o.Interval, "victim round interval")
		fs.DurationVar(&o.Baseline, "baseline", o.Baseline, "victim timing before each load")
		fs.DurationVar(&o.Load, "load-time", o.Load, "load duration before the master is stopped")
		fs.BoolVar(&o.NoLogfile, "no-logfile", false, "start the sentinels without a logfile (they log to /dev/null)")
		fs.IntVar(&spinners, "spinners", 0, "processes that each keep a core busy (at this command's nice level) during every run: a shared machine's load average, reproduced")
		fs.StringVar(&samples, "samples", "", "directory to write every victim round of each run to (<load>-<impl>-<run>.txt), to line up slow rounds with a profile")
		out := fs.Lookup("out")
		out.DefValue = "bench/results/hostilelat.json"
		_ = out.Value.Set(out.DefValue)
	}, func(_ context.Context, cfg runner.Config, real, ours harness.Impl, out io.Writer, emit func(harness.Section)) {
		o.DownAfterMs = cfg.DownAfter[0]
		if spinners > 0 {
			stop, err := hostile.StartSpinners(spinners)
			if err != nil {
				fmt.Fprintln(out, err)
				return
			}
			defer stop()
			fmt.Fprintf(out, "%d spinners keep the cores busy\n", spinners)
		}
		for _, name := range strings.Split(loads, ",") {
			l, ok := hostile.LoadByName(strings.TrimSpace(name))
			if !ok {
				fmt.Fprintf(out, "unknown load %q\n", name)
				continue
			}
			emit(measure(cfg, o, l, real, ours, out, samples))
		}
	})
}

// measure runs load l cfg.Runs times per implementation, alternated.
// With samplesDir set, each run's victim rounds go to a file there.
func measure(cfg runner.Config, o hostile.Options, l hostile.Load, real, ours harness.Impl, out io.Writer, samplesDir string) harness.Section {
	c := runner.NewCollector(real, ours, out)
	def := func(key, label, unit string, headline bool) {
		c.Define(runner.FigureDef{Key: key, Label: label, Unit: unit, LowerBetter: true, Headline: headline})
	}
	def("b50", "victim PING+GET-MASTER-ADDR p50, before the load", "ms", false)
	def("b99", "victim p99, before", "ms", false)
	def("bmax", "victim max, before", "ms", false)
	def("d50", "victim p50, during "+l.Name, "ms", false)
	def("d99", "victim p99, during "+l.Name, "ms", true)
	def("dmax", "victim max, during "+l.Name, "ms", false)
	def("over", "victim rounds over 10 ms, during", "% of rounds", false)
	def("failed", "victim rounds failed, during", "count", false)
	def("late", "+sdown after it was due, during "+l.Name, "ms", true)
	def("stop", "master SIGSTOP → +sdown", "ms", false)
	c.Define(runner.FigureDef{Key: "work", Label: "load: " + l.Unit + " done", Unit: "per s"})
	def("lerr", "load: failed connections", "count", false)
	def("cpu", "sentinel CPU while loaded", "% of a core", false)
	def("rss", "sentinel peak RSS", "MiB", false)
	def("la", "machine load average (1 min) at the end", "load", false)
	ms := func(d time.Duration) float64 {
		if hostile.IsNaN(d) {
			return math.NaN()
		}
		return float64(d.Microseconds()) / 1000
	}
	c.Alternate(cfg.Runs, func(run int, impl harness.Impl) {
		env := harness.NewEnv(nil)
		o := o
		if samplesDir != "" {
			o.SamplesFile = filepath.Join(samplesDir, fmt.Sprintf("%s-%s-%d.txt", l.Name, impl.Name, run+1))
		}
		err := env.Run(func() error {
			r, err := hostile.Run(env, impl, l, o)
			if err != nil {
				return err
			}
			b50, b99, bmax := hostile.Percentiles(r.Base)
			d50, d99, dmax := hostile.Percentiles(r.During)
			c.Add(impl, "b50", b50)
			c.Add(impl, "b99", b99)
			c.Add(impl, "bmax", bmax)
			c.Add(impl, "d50", d50)
			c.Add(impl, "d99", d99)
			c.Add(impl, "dmax", dmax)
			over := 100 * float64(hostile.Over(r.During, 10*time.Millisecond)) / float64(len(r.During))
			c.Add(impl, "over", over)
			c.Add(impl, "failed", float64(r.Failed))
			c.Add(impl, "late", ms(r.SdownLate))
			c.Add(impl, "stop", ms(r.StopToSdown))
			c.Add(impl, "work", r.Work)
			c.Add(impl, "lerr", float64(r.Errors))
			loaded := o.Load + r.StopToSdown
			if hostile.IsNaN(r.StopToSdown) {
				loaded = o.Load + o.SdownWait
			}
			cpu := math.NaN()
			if !hostile.IsNaN(r.CPU) {
				cpu = 100 * r.CPU.Seconds() / loaded.Seconds()
			}
			c.Add(impl, "cpu", cpu)
			c.Add(impl, "rss", float64(r.PeakRSS)/(1<<20))
			c.Add(impl, "la", r.LoadAvg)
			sd := "no +sdown (" + r.Diag + ")"
			if r.SdownSeen {
				sd = fmt.Sprintf("+sdown %.0f ms after the stop, %.1f ms after due (±%.1f, %s)", ms(r.StopToSdown), ms(r.SdownLate), ms(r.DueUncertainty), r.Rule)
			}
			fmt.Fprintf(out, "  run %d %-14s %-9s before p50/p99/max %.2f/%.2f/%.2f ms (n=%d) during %.2f/%.2f/%.2f ms (n=%d, %.1f%% > 10 ms, %d failed); %s; load %.0f %s/s, %d errors; cpu %.0f%% rss %.1f MiB; load avg %.1f\n",
				run+1, impl.Name, l.Name, b50, b99, bmax, len(r.Base), d50, d99, dmax, len(r.During), over, r.Failed, sd, r.Work, l.Unit, r.Errors, cpu, float64(r.PeakRSS)/(1<<20), r.LoadAvg)
			return nil
		})
		if err != nil {
			c.Fail(impl, fmt.Sprintf("run %d %s", run+1, l.Name), err)
		}
	})
	notes := []string{
		"Load: " + l.Desc + ".",
		fmt.Sprintf("One sentinel monitoring one redis-server (the victim master, down-after %d ms, quorum 2: no failover) on free loopback ports. A victim client in a process of its own sends PING then SENTINEL GET-MASTER-ADDR-BY-NAME over one persistent connection every %v (a slower round is one sample); p50/p99/max of those round times over %v before the load and over the load (%v, then until +sdown).", o.DownAfterMs, o.Interval, o.Baseline, o.Load),
		"+sdown after it was due: the master is SIGSTOPped while the load runs; due = down-after after the first unanswered PING for redis-sentinel (its rule; that PING goes out a ping period after the last PONG, so its stop → +sdown is ~1 s longer by design), down-after after the last valid reply for gosentinel (fast detection), both read from SENTINEL MASTER (last-ping-sent, last-ok-ping-reply) right after the stop; the event is timed at a subscriber in the victim's process. The `none` load gives each implementation's lateness without load (redis-sentinel's timer runs every 50–100 ms).",
	}
	return c.Section("hostilelat-"+l.Name, "Hostile load: "+l.Name, cfg.Runs, notes)
}
