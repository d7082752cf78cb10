// Command benchall runs every side-by-side benchmark (failover, throughput,
// storm, scale) against redis-sentinel and gosentinel, then the client
// benchmark of bench/clientbench when present, and writes
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
	)
	extra := func(fs *flag.FlagSet) {
		runner.ScaleFlags(fs, &sc)
		fs.StringVar(&parts, "parts", "failover,throughput,storm,scale,client", "comma-separated parts to run")
		fs.IntVar(&scaleRuns, "scale-runs", 1, "runs per implementation of the scale part (slow)")
		fs.StringVar(&clientRun, "client-run", "TestFailoverCompare", "-run pattern for the client benchmark")
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
	})
}
