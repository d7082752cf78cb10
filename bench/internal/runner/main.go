package runner

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/bench/harness"
)

// Suite runs some sections with the resolved implementations and hands
// each finished section to emit, which saves it at once (a later crash does
// not lose it).
type Suite func(ctx context.Context, cfg Config, real, ours harness.Impl, out io.Writer, emit func(harness.Section))

// Main is the body of every bench command: it parses the common flags (plus
// those added by extra), resolves both implementations, runs suite, saves
// each section into -out and exits non-zero on error.
func Main(name string, defaultRuns int, extra func(*flag.FlagSet), suite Suite) {
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	var cfg Config
	cfg.Register(fs, defaultRuns)
	if extra != nil {
		extra(fs)
	}
	_ = fs.Parse(os.Args[1:]) // ExitOnError: Parse exits on bad flags
	if err := run(name, fs, &cfg, suite); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

func run(name string, fs *flag.FlagSet, cfg *Config, suite Suite) error {
	if err := cfg.Finish(); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", ErrBadFlag, fs.Args())
	}
	if cfg.Render {
		return harness.RenderMarkdown(cfg.Out)
	}
	// No signal handling: on Ctrl-C the command dies and the processes it
	// started die with it (testutil starts them with Pdeathsig).
	ctx := context.Background()
	out := os.Stdout
	real, ours, cleanup := cfg.Impls(ctx)
	defer cleanup()
	var notes []string
	if ours.Available() && cfg.SentinelBin == "" {
		if root, err := RepoRoot(); err == nil {
			if v := SourceVersion(ctx, root); v != "" {
				n := "gosentinel built from the working tree at " + v + "."
				if strings.HasSuffix(v, "-dirty") {
					n = "gosentinel built from the working tree at " + strings.TrimSuffix(v, "-dirty") + " plus uncommitted changes (other packages were being edited)."
				}
				notes = append(notes, n)
			}
		}
	} else if ours.Available() {
		notes = append(notes, "gosentinel binary: "+ours.Bin+".")
	}
	for _, im := range []harness.Impl{real, ours} {
		if im.Available() {
			fmt.Fprintf(out, "%s: %s\n", im.Name, im.Bin)
		} else {
			fmt.Fprintf(out, "%s: not available (%s)\n", im.Name, firstLine(im.Unavailable))
		}
	}
	if !real.Available() {
		return fmt.Errorf("%s: %s is required as the reference: %s", name, harness.RealName, real.Unavailable)
	}
	var saveErr error
	suite(ctx, *cfg, real, ours, out, func(s harness.Section) {
		if s.ID != "client" {
			s.Notes = append(s.Notes, notes...)
		}
		if cfg.Note != "" {
			s.Notes = append(s.Notes, cfg.Note)
		}
		if err := harness.SaveSection(cfg.Out, s); err != nil && saveErr == nil {
			saveErr = err
		}
	})
	if saveErr != nil {
		return saveErr
	}
	fmt.Fprintf(out, "\nresults: %s and %s\n", cfg.Out, harness.MarkdownPath(cfg.Out))
	return nil
}

// ScaleFlags registers the scale suite's flags into sc.
func ScaleFlags(fs *flag.FlagSet, sc *ScaleConfig) {
	sc.Usage = []int{100, 500, 10000}
	sc.Healthy = []int{2000, 10000}
	fs.Func("scale-usage", "comma-separated master counts for CPU/RSS (default 100,500,10000; a count whose sockets exceed the open-file limit is reported as not run)", intsSetter(&sc.Usage))
	fs.Func("scale-healthy", "comma-separated master counts for time to all healthy (default 2000,10000)", intsSetter(&sc.Healthy))
	fs.IntVar(&sc.NamesPerServer, "names-per-server", 0, "master names per redis-server pair (default: 1, or the fewest that keep the run within -max-servers redis-servers)")
	fs.IntVar(&sc.MaxServers, "max-servers", 1000, "redis-server processes a scale run may start when -names-per-server is not given")
	fs.IntVar(&sc.Sentinels, "scale-sentinels", 1, "sentinels in the scale runs")
	fs.DurationVar(&sc.Window, "window", harnessDefaultWindow, "CPU measurement window")
	fs.DurationVar(&sc.Settle, "settle", 15*time.Second, "wait between all healthy and the CPU window")
	fs.DurationVar(&sc.Limit, "scale-limit", 3*time.Minute, "per run bound on start → all healthy; slower runs are reported as not finished")
}
