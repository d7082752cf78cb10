package runner

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gosentinel/gosentinel/bench/harness"
)

// Config is what every bench command accepts.
type Config struct {
	Runs        int
	DownAfter   []int // ms
	SentinelBin string
	RealBin     string
	Out         string
	Note        string
	Render      bool
	downAfter   string
}

// Register adds the common flags to fs with the command's default run count.
func (c *Config) Register(fs *flag.FlagSet, defaultRuns int) {
	fs.IntVar(&c.Runs, "runs", defaultRuns, "runs per implementation (alternated run by run)")
	fs.StringVar(&c.downAfter, "down-after", "1000,5000", "comma-separated down-after-milliseconds values (failover)")
	fs.StringVar(&c.SentinelBin, "sentinel-bin", "", "sentinel binary compared with redis-sentinel (default: go build ./cmd/gosentinel)")
	fs.StringVar(&c.RealBin, "real-bin", "redis-sentinel", "the reference redis-sentinel binary")
	fs.StringVar(&c.Out, "out", "bench/results/latest.json", "JSON results file (merged by section); a .md table is written next to it")
	fs.StringVar(&c.Note, "note", "", "note added to the results of this run (e.g. machine load)")
	fs.BoolVar(&c.Render, "render", false, "only rewrite the .md next to -out from the JSON; measure nothing")
}

// ErrBadFlag is returned for an invalid flag value.
var ErrBadFlag = errors.New("bad flag value")

// Finish validates and parses the flag values after fs.Parse.
func (c *Config) Finish() error {
	if c.Runs < 1 {
		return fmt.Errorf("%w: -runs %d", ErrBadFlag, c.Runs)
	}
	d, err := parseInts(c.downAfter)
	if err != nil || len(d) == 0 {
		return fmt.Errorf("%w: -down-after %q", ErrBadFlag, c.downAfter)
	}
	c.DownAfter = d
	return nil
}

// Impls resolves the real sentinel and ours. Ours is built from the module
// when -sentinel-bin is empty and must pass harness.Smoke; when it does not,
// its Unavailable field says why. cleanup removes the built binary.
func (c *Config) Impls(ctx context.Context) (real, ours harness.Impl, cleanup func()) {
	real = harness.RealSentinel(c.RealBin)
	cleanup = func() {}
	root, err := RepoRoot()
	if err != nil && c.SentinelBin == "" {
		return real, harness.Impl{Name: harness.OursName, Unavailable: err.Error()}, cleanup
	}
	outDir := ""
	if c.SentinelBin == "" {
		d, err := os.MkdirTemp("", "gosentinel-bench-bin-")
		if err != nil {
			return real, harness.Impl{Name: harness.OursName, Unavailable: err.Error()}, cleanup
		}
		outDir = d
		cleanup = func() { _ = os.RemoveAll(d) }
	}
	ours = harness.ResolveOurs(ctx, root, c.SentinelBin, outDir)
	return real, ours, cleanup
}

// SourceVersion describes the working tree gosentinel was built from:
// `git describe --always --dirty`, or "" when git is not usable.
func SourceVersion(ctx context.Context, root string) string {
	cmd := exec.CommandContext(ctx, "git", "describe", "--always", "--dirty")
	cmd.Dir = root
	b, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// ErrNoModule is returned when no go.mod is found above the working directory.
var ErrNoModule = errors.New("go.mod not found")

// RepoRoot returns the nearest directory at or above the working directory
// that holds a go.mod.
func RepoRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("repo root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		p := filepath.Dir(d)
		if p == d {
			return "", fmt.Errorf("repo root: %w", ErrNoModule)
		}
		d = p
	}
}
