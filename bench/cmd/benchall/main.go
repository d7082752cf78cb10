// Command benchall runs every side-by-side benchmark (failover, throughput,
// storm, scale) against redis-sentinel and gosentinel, then the client
// benchmark of bench/clientbench when present and the fault lab's mass
// failover and fault RTOs (root only), and writes
// bench/results/latest.json and latest.md. `make bench` runs it.
package main

import (
	"context"
	"flag"
	"io"
	"strings"

	"github.com/gosentinel/gosentinel/bench/harness"
	"github.com/gosentinel/gosentinel/bench/internal/runner"
)

func main() {
	var (
		sc        runner.ScaleConfig
		parts     string
		scaleRuns int
		clientRun string
		lc        runner.LabConfig
		labFaults string
	)
	extra := func(fs *flag.FlagSet) {
		runner.ScaleFlags(fs, &sc)
		fs.StringVar(&parts, "parts", "failover,throughput,storm,scale,client,lab", "comma-separated parts to run (lab needs root)")
		fs.IntVar(&scaleRuns, "scale-runs", 1, "runs per implementation of the scale part (slow)")
		fs.StringVar(&clientRun, "client-run", "TestFailoverCompare", "-run pattern for the client benchmark")
		fs.StringVar(&lc.Mass, "lab-mass", "B9L", "fault-lab mass-failover scenario of the lab part (empty: none)")
		fs.IntVar(&lc.MassRuns, "lab-mass-runs", 1, "runs per sentinel kind of the mass-failover scenario")
		fs.StringVar(&labFaults, "lab-faults", "C1,C3,A3", "fault-lab scenarios whose RTOs the lab part reports")
		fs.IntVar(&lc.Runs, "lab-runs", 3, "runs per sentinel kind of each -lab-faults scenario")
		fs.BoolVar(&lc.FromResults, "lab-from-results", false, "rebuild the lab section from the JSON of the last lab runs instead of running the lab")
	}
	runner.Main("benchall", 5, extra, func(ctx context.Context, cfg runner.Config, real, ours harness.Impl, out io.Writer, emit func(harness.Section)) {
		want := map[string]bool{}
		for _, p := range strings.Split(parts, ",") {
			want[strings.TrimSpace(p)] = true
		}
		if want["failover"] {
			emit(runner.Failover(cfg, real, ours, out))
		}
		if want["throughput"] {
			emit(runner.Throughput(ctx, cfg, real, ours, out))
		}
		if want["storm"] {
			emit(runner.Storm(cfg, real, ours, out))
		}
		if want["scale"] {
			c := cfg
			c.Runs = scaleRuns
			emit(runner.Scale(c, sc, real, ours, out))
		}
		if want["client"] {
			if root, err := runner.RepoRoot(); err == nil {
				if s, ok := runner.Client(ctx, root, clientRun, cfg.Runs, []harness.Impl{real, ours}, out); ok {
					emit(s)
				}
			}
		}
		if want["lab"] {
			if root, err := runner.RepoRoot(); err == nil {
				for _, f := range strings.Split(labFaults, ",") {
					if f = strings.TrimSpace(f); f != "" {
						lc.Faults = append(lc.Faults, f)
					}
				}
				emit(runner.Lab(ctx, root, lc, real, ours, out))
			}
		}
	})
}
