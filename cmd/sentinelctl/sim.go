package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gosentinel/gosentinel/internal/sim"
)

func init() { register(newSimCmd) }

// simFlags are the flags of `sentinelctl sim`.
type simFlags struct {
	seeds   int
	start   uint64
	seed    uint64
	trace   bool
	workers int
	verbose bool
	ignore  []string
	plan    bool
	save    string // --save-scenario: write the scenario of --seed as JSON
	load    string // --scenario: replay a scenario saved by --save-scenario
}

func newSimCmd() *cobra.Command {
	var f simFlags
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Run deterministic simulation seeds through the sentinel core",
		Long: `Run deterministic simulation seeds through the sentinel core.

  sentinelctl sim --seeds N [--start S]   run seeds S…S+N-1 in parallel
  sentinelctl sim --seed S --trace        replay one seed: options and full trace
  sentinelctl sim --seed S --plan         print the seed's scenario (options + fault plan)
  sentinelctl sim --seed S --save-scenario f.json   …and write it to a file
  sentinelctl sim --scenario f.json [--trace]       replay a saved scenario

A seed names a scenario: the topology, timings and the fault plan (what
fails, when, for how long) are drawn from the seed alone, before the run,
so the same seed means the same scenario after any change to the core; a
violation report prints the scenario's fingerprint. A saved scenario
replays exactly even if the option expansion itself changes later.

Each seed expands into printed options (sentinels, quorum, replicas, timings,
fault mix), runs a fault phase then a healed phase, and checks the safety
invariants S1–S9 after every step and liveness L1–L4 at the end. The last
line is "N seeds, F failovers, V violations"; the exit status is 1 when V > 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("seed") || f.load != "" {
				return runOneSeed(cmd.OutOrStdout(), f)
			}
			return runSeeds(cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.seeds, "seeds", 100, "number of seeds to run")
	fl.Uint64Var(&f.start, "start", 1, "first seed")
	fl.Uint64Var(&f.seed, "seed", 0, "replay this one seed")
	fl.BoolVar(&f.trace, "trace", false, "with --seed: print the options and the full event trace")
	fl.IntVar(&f.workers, "workers", 0, "parallel workers (0: one per CPU)")
	fl.StringSliceVar(&f.ignore, "ignore", nil, "invariants not to report (e.g. S8,L1; S5/text: only S5 checks whose message contains text), to look past known findings")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "print one line per seed and the run rate on stderr")
	fl.BoolVar(&f.plan, "plan", false, "with --seed: print the scenario (options and fault plan)")
	fl.StringVar(&f.save, "save-scenario", "", "with --seed: write the scenario to this JSON file")
	fl.StringVar(&f.load, "scenario", "", "replay the scenario saved in this JSON file (instead of --seed)")
	return cmd
}

// runOneSeed replays a single seed.
func runOneSeed(out io.Writer, f simFlags) error {
	o := sim.NewOptions(f.seed)
	if f.load != "" {
		b, err := os.ReadFile(f.load)
		if err != nil {
			return fmt.Errorf("read scenario: %w", err)
		}
		if o, err = sim.LoadScenario(b); err != nil {
			return fmt.Errorf("scenario %s: %w", f.load, err)
		}
	}
	if f.save != "" {
		b, err := sim.SaveScenario(o)
		if err != nil {
			return fmt.Errorf("save scenario: %w", err)
		}
		if err := os.WriteFile(f.save, b, 0o644); err != nil {
			return fmt.Errorf("save scenario: %w", err)
		}
	}
	if f.plan || f.trace {
		fmt.Fprint(out, o.String())
		fmt.Fprint(out, o.PlanString())
	}
	res := sim.RunOptions(o, sim.Config{Trace: f.trace, Ignore: f.ignore})
	if f.trace {
		fmt.Fprint(out, res.Trace)
	}
	printViolations(out, res)
	fmt.Fprintf(out, "1 seeds, %d failovers, %d violations\n", res.Failovers, len(res.Violations))
	if len(res.Violations) > 0 {
		return exitError{code: 1}
	}
	return nil
}

// runSeeds runs many seeds and prints the summary line.
func runSeeds(out, errw io.Writer, f simFlags) error {
	if f.seeds <= 0 {
		return fmt.Errorf("--seeds must be positive, got %d", f.seeds)
	}
	t0 := time.Now()
	results := sim.RunMany(f.start, f.seeds, f.workers, sim.Config{Ignore: f.ignore})
	failovers, violations := 0, 0
	for _, r := range results {
		failovers += r.Failovers
		violations += len(r.Violations)
		if f.verbose {
			fmt.Fprintf(errw, "seed %d: %d failovers, %d steps, %d violations\n", r.Seed, r.Failovers, r.Steps, len(r.Violations))
		}
		printViolations(out, r)
	}
	if f.verbose {
		el := time.Since(t0)
		fmt.Fprintf(errw, "%d seeds in %v (%.1f seeds/s)\n", f.seeds, el.Round(time.Millisecond), float64(f.seeds)/el.Seconds())
	}
	fmt.Fprintf(out, "%d seeds, %d failovers, %d violations\n", f.seeds, failovers, violations)
	if violations > 0 {
		return exitError{code: 1}
	}
	return nil
}

// printViolations prints each violation of a seed with its replay command.
func printViolations(out io.Writer, r sim.Result) {
	for _, v := range r.Violations {
		fmt.Fprintln(out, v.String())
		fmt.Fprintf(out, "  replay: sentinelctl sim --seed %d --trace\n", r.Seed)
		fmt.Fprintf(out, "  scenario: %s (%d faults; sentinelctl sim --seed %d --plan)\n", r.Options.Fingerprint(), len(r.Options.Plan), r.Seed)
	}
}
