package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/spf13/cobra"

	"github.com/gosentinel/gosentinel/internal/faultlab"
)

func init() { register(newLabCmd) }

// labFlags are the flags of `sentinelctl lab`.
type labFlags struct {
	scenarios []string
	sentinel  string
	runs      int
	seed      uint64
	out       string
	report    string
	smoke     bool
	keep      bool
	keepAll   bool
	soak      time.Duration
	parallel  int
	list      bool
	goBin     string
	verbose   bool
}

func newLabCmd() *cobra.Command {
	var f labFlags
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "Run the fault lab: real processes on separate network hosts, gosentinel and redis-sentinel side by side",
		Long: `Run the fault lab (docs/faultlab.md): each scenario of the reliability
scorecard builds hosts as Linux network namespaces, starts real redis-server
and sentinels (gosentinel, redis-sentinel, or a mix) in them, writes and
samples while it injects its faults, and checks the run (LostAck, split
brain, RTOs, invariants S1–S6, L1, L2, R1). Needs root.

  sentinelctl lab --smoke                     the smoke set, one run each
  sentinelctl lab --scenario 'A*,C1' --runs 3 selected scenarios
  sentinelctl lab --list                      every scenario and what it does
  sentinelctl lab report                      rebuild docs/reliability.md from --out

Results go to --out (one JSON file per scenario and sentinel kind) and, with
--report, into the generated section of that Markdown file. The exit status
is 1 when a run could not be carried out, a gosentinel run broke an
invariant, or a gosentinel run failed a criterion that redis-sentinel passed
(a criterion both fail is a baseline figure, shown in the scorecard).
Ctrl-C or SIGTERM tears every lab down.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.list {
				return listScenarios(cmd.OutOrStdout())
			}
			return runLab(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&f.scenarios, "scenario", nil, "scenario ids or globs (A1, 'C*'); default all, or the smoke set with --smoke")
	fl.StringVar(&f.sentinel, "sentinel", "gosentinel,redis", "sentinel kinds: gosentinel, redis, mixed, valkey, go-valkey, mixed-vk-go1, all (comma-separated; the valkey kinds run valkey-server data nodes)")
	fl.IntVar(&f.runs, "runs", 0, "runs per scenario and kind (0: the scenario's default; 1 with --smoke)")
	fl.Uint64Var(&f.seed, "seed", 1, "base seed: run i uses seed+i (fault jitter and choices)")
	fl.StringVar(&f.out, "out", "bench/results/lab", "results directory (JSON)")
	fl.StringVar(&f.report, "report", "", "Markdown file whose scorecard section is regenerated (e.g. docs/reliability.md)")
	fl.BoolVar(&f.smoke, "smoke", false, "the smoke set (A1 A3 C1 C3 D1 E2), one run each unless --runs")
	fl.BoolVar(&f.keep, "keep", false, "keep a failed run's lab directory (logs, configs)")
	fl.BoolVar(&f.keepAll, "keep-all", false, "keep every run's lab directory, passed or failed (for analysing a figure of a run that passed)")
	fl.IntVar(&f.parallel, "parallel", 1, "labs at once (1 for measured runs on a 2-core machine)")
	fl.DurationVar(&f.soak, "soak", 0, "how long a soak scenario (F4) keeps its fault in place (0: its default, 5m; F4's full length is 1h)")
	fl.BoolVar(&f.list, "list", false, "list the scenarios and exit")
	fl.StringVar(&f.goBin, "gosentinel-bin", "", "use this gosentinel binary instead of building one")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log lab steps on stderr")
	cmd.AddCommand(newLabReportCmd())
	return cmd
}

func newLabReportCmd() *cobra.Command {
	var out, report string
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Rebuild the scorecard section of a Markdown file from lab results",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := faultlab.WriteScorecard(out, report); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "scorecard written to %s from %s\n", report, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "bench/results/lab", "results directory (JSON)")
	cmd.Flags().StringVar(&report, "report", "docs/reliability.md", "Markdown file to update")
	return cmd
}

func listScenarios(w io.Writer) error {
	for _, s := range faultlab.Scenarios() {
		tag := ""
		if s.Smoke {
			tag = " [smoke]"
		}
		if s.NotYet != "" {
			fmt.Fprintf(w, "%-4s %s — not yet: %s\n", s.ID, s.Title, s.NotYet)
			continue
		}
		fmt.Fprintf(w, "%-4s %s%s\n     fault: %s\n     expected: %s\n", s.ID, s.Title, tag, s.Fault, s.Expected)
	}
	return nil
}

func runLab(ctx context.Context, out, errOut io.Writer, f labFlags) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !f.verbose {
		// go-redis logs every failed dial of the writers' pools; during a
		// partition that is thousands of lines the run records anyway.
		redis.SetLogger(quietLogger{})
	}
	kinds, err := faultlab.ParseKinds(f.sentinel)
	if err != nil {
		return err
	}
	var pats []string
	for _, s := range f.scenarios {
		for _, p := range strings.Split(s, " ") {
			if p != "" {
				pats = append(pats, p)
			}
		}
	}
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelDebug
	}
	opts := faultlab.Options{Patterns: pats, Kinds: kinds, Runs: f.runs, Seed: f.seed, Out: f.out, Smoke: f.smoke,
		Keep: f.keep, KeepAll: f.keepAll, Parallel: f.parallel, GoBin: f.goBin, Soak: f.soak, Progress: out,
		Log: slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: level}))}
	sum, err := faultlab.Run(ctx, opts)
	if sum != nil {
		fmt.Fprintf(out, "%d runs, %d passed, %d failed, %d scenarios not yet runnable, %s\n", sum.Runs, sum.Passed, sum.Failed, sum.NotYet, sum.Duration.Round(1e9))
		if f.report != "" && f.out != "" {
			if rerr := faultlab.WriteScorecard(f.out, f.report); rerr != nil {
				fmt.Fprintln(errOut, "sentinelctl lab:", rerr)
			} else {
				fmt.Fprintf(out, "scorecard written to %s\n", f.report)
			}
		}
	}
	if err != nil {
		return err
	}
	if regs := faultlab.Regressions(sum.Results); len(regs) > 0 {
		fmt.Fprintln(out, "against gosentinel:")
		for _, r := range regs {
			fmt.Fprintln(out, "  "+r)
		}
		return exitError{1}
	}
	return nil
}

// quietLogger drops go-redis's internal log lines.
type quietLogger struct{}

// Printf discards the line.
func (quietLogger) Printf(context.Context, string, ...any) {}
