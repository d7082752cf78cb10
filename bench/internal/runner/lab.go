package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/bench/harness"
	"github.com/gosentinel/gosentinel/internal/faultlab"
)

// LabResultsDir is where the lab part keeps its fault-lab JSON, apart from
// the scorecard's bench/results/lab (whose runs it must not replace).
const LabResultsDir = "bench/results/bench-lab"

// LabConfig is the lab part's own settings.
type LabConfig struct {
	// Mass is the mass-failover scenario (B9L: 200 groups on 3 sentinels,
	// every master SIGKILLed at once); empty skips it.
	Mass string
	// Faults are the scenarios whose RTOs are reported (partition, one-way
	// cut, long pause).
	Faults []string
	// Runs per scenario and sentinel kind (the mass scenario runs once per
	// kind unless MassRuns is set).
	Runs, MassRuns int
	// FromResults skips the lab and rebuilds the section from the JSON of
	// the last runs in LabResultsDir (after a change to this report).
	FromResults bool
}

// ErrNotRoot is reported when the lab part cannot run: the fault lab builds
// network namespaces, which needs root.
var ErrNotRoot = errors.New("the fault lab needs root (network namespaces); run make bench as root or skip with -parts")

// Lab runs fault-lab scenarios on both implementations through
// `sentinelctl lab` (docs/faultlab.md) and reports the figures of the
// performance issue: the mass failover (time until every master switched,
// per-master p50/p95, elections without a leader, epochs, peak CPU) and
// the RTOs under a partition, a one-way cut and a long pause.
func Lab(ctx context.Context, root string, lc LabConfig, real, ours harness.Impl, out io.Writer) harness.Section {
	ctx, cancel := context.WithTimeout(ctx, labTimeout)
	defer cancel()
	c := NewCollector(real, ours, out)
	fmt.Fprintf(out, "\n== Fault lab: mass failover and RTOs under faults ==\n")
	if lc.Mass != "" {
		m := lc.Mass + ": "
		c.Define(FigureDef{Key: "mass-all", Label: m + "kill → every master switched", Unit: "s", LowerBetter: true, Headline: true})
		c.Define(FigureDef{Key: "mass-p50", Label: m + "per-master switch p50", Unit: "s", LowerBetter: true})
		c.Define(FigureDef{Key: "mass-p95", Label: m + "per-master switch p95", Unit: "s", LowerBetter: true})
		c.Define(FigureDef{Key: "mass-switched", Label: m + "masters switched within the bound", Unit: "count", LowerBetter: false})
		c.Define(FigureDef{Key: "mass-split", Label: m + "elections without a leader", Unit: "% of attempts", LowerBetter: true, Headline: true})
		c.Define(FigureDef{Key: "mass-epochs", Label: m + "epochs burned", Unit: "count", LowerBetter: true})
		c.Define(FigureDef{Key: "mass-cpu", Label: m + "peak sentinel CPU", Unit: "% of a core", LowerBetter: true})
	}
	for _, id := range lc.Faults {
		c.Define(FigureDef{Key: id + "-switch", Label: id + ": fault → first +switch-master (RTO_switch)", Unit: "s", LowerBetter: true, Headline: true})
		c.Define(FigureDef{Key: id + "-client-gs", Label: id + ": fault → our client's writes acknowledged by the new master (RTO_client)", Unit: "s", LowerBetter: true})
		c.Define(FigureDef{Key: id + "-client-gr", Label: id + ": fault → go-redis FailoverClient's writes acknowledged by the new master", Unit: "s", LowerBetter: true})
	}
	if lc.FromResults {
		return labSection(c, root, lc, real, ours, nil)
	}
	if os.Geteuid() != 0 {
		c.Fail(real, "fault lab", ErrNotRoot)
		c.Fail(ours, "fault lab", ErrNotRoot)
		return c.Section("lab", "Fault lab: mass failover and RTOs under faults", lc.Runs, []string{ErrNotRoot.Error() + "."})
	}
	bin := filepath.Join(os.TempDir(), fmt.Sprintf("sentinelctl-bench-%d", os.Getpid()))
	defer os.Remove(bin)
	build := exec.CommandContext(ctx, goBin(), "build", "-o", bin, "./cmd/sentinelctl")
	build.Dir = root
	if b, err := build.CombinedOutput(); err != nil {
		err = fmt.Errorf("build sentinelctl: %w: %s", err, firstLine(string(b)))
		c.Fail(real, "fault lab", err)
		c.Fail(ours, "fault lab", err)
		return c.Section("lab", "Fault lab: mass failover and RTOs under faults", lc.Runs, nil)
	}
	dir := filepath.Join(root, LabResultsDir)
	kinds := []string{}
	for _, im := range []harness.Impl{real, ours} {
		if im.Available() {
			kinds = append(kinds, string(labKind(im, real)))
		}
	}
	lab := func(scenarios []string, runs int) error {
		args := []string{"lab", "--scenario", strings.Join(scenarios, ","), "--sentinel", strings.Join(kinds, ","),
			"--runs", fmt.Sprint(runs), "--seed", "1", "--out", dir}
		if ours.Available() {
			args = append(args, "--gosentinel-bin", ours.Bin)
		}
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = root
		cmd.Stdout, cmd.Stderr = out, out
		fmt.Fprintf(out, "  sentinelctl %s\n", strings.Join(args, " "))
		// The lab's exit status is 1 when a gosentinel run failed a criterion;
		// the figures are still written and reported.
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				return fmt.Errorf("sentinelctl lab: %w", err)
			}
		}
		return nil
	}
	if lc.Mass != "" {
		runs := lc.MassRuns
		if runs <= 0 {
			runs = 1
		}
		if err := lab([]string{lc.Mass}, runs); err != nil {
			c.Fail(ours, lc.Mass, err)
		}
	}
	if len(lc.Faults) > 0 {
		if err := lab(lc.Faults, lc.Runs); err != nil {
			c.Fail(ours, strings.Join(lc.Faults, ","), err)
		}
	}
	return labSection(c, root, lc, real, ours, kinds)
}

// labSection reads the lab's JSON for the configured scenarios and builds
// the section.
func labSection(c *Collector, root string, lc LabConfig, real, ours harness.Impl, kinds []string) harness.Section {
	dir := filepath.Join(root, LabResultsDir)
	if kinds == nil {
		for _, im := range []harness.Impl{real, ours} {
			if im.Available() {
				kinds = append(kinds, string(labKind(im, real)))
			}
		}
	}
	var ids []string
	if lc.Mass != "" {
		ids = append(ids, lc.Mass)
	}
	ids = append(ids, lc.Faults...)
	var first time.Time
	all, err := faultlab.LoadResults(dir)
	if err != nil {
		c.Fail(ours, "fault lab results", err)
	}
	for _, im := range []harness.Impl{real, ours} {
		if !im.Available() {
			continue
		}
		k := labKind(im, real)
		for _, id := range ids {
			for _, r := range all[id][k] {
				if first.IsZero() || r.Start.Before(first) {
					first = r.Start
				}
				if r.Error != "" {
					c.Fail(im, fmt.Sprintf("%s run %d", id, r.Run), errors.New(r.Error))
					continue
				}
				if id == lc.Mass {
					addMass(c, im, r)
					continue
				}
				c.Add(im, id+"-switch", orNaN(r.Figures.RTOSwitchS))
				c.Add(im, id+"-client-gs", writerRTO(r, labOurWriter))
				c.Add(im, id+"-client-gr", writerRTO(r, labGoRedisWriter))
			}
		}
	}
	var notes []string
	if lc.FromResults && !first.IsZero() {
		notes = append(notes, fmt.Sprintf("Rebuilt from the JSON of lab runs started from %s (-lab-from-results); the load average below is of the rebuild, not of the runs.", first.UTC().Format("2006-01-02 15:04 UTC")))
	}
	notes = append(notes,
		fmt.Sprintf("Run by `sentinelctl lab --scenario <ids> --sentinel %s --seed 1 --out %s` (docs/faultlab.md: each host a network namespace, real redis-server and sentinels); `sentinelctl lab --list` describes each scenario. JSON per scenario and kind in %s.", strings.Join(kinds, ","), LabResultsDir, LabResultsDir),
		"Mass failover: every master of the groups SIGKILLed at once; \"every master switched\" is from the kill until the last group's first +switch-master (down-after 2000 ms, so the issue's goal D + 2 s is 4 s); \"elections without a leader\" are -failover-abort-not-elected per failover attempt. A kind that did not switch every group within the scenario's bound shows the time of the last group that did, and the count.",
		"RTO_switch and the clients' RTOs count from the fault's start; the scenarios' down-after is 2000 ms. The client rows are the plain writers on the client host (the lab's gs-plain: our client; gr-plain: go-redis's NewFailoverClient), each following the sentinel set of the column; writers placed on a partitioned host and WAIT-all writers wait for the heal by design and are in the lab's JSON, not here.",
	)
	return c.Section("lab", "Fault lab: mass failover and RTOs under faults", lc.Runs, notes)
}

// The lab's writers whose RTO_client the section reports: plain writes on
// the client host, through our client and through go-redis.
const (
	labOurWriter     = "gs-plain"
	labGoRedisWriter = "gr-plain"
)

// writerRTO is one writer's RTO_client in a run, NaN when it has none.
func writerRTO(r faultlab.RunResult, writer string) float64 {
	w, ok := r.ByWriter[writer]
	if !ok {
		return nan
	}
	return orNaN(w.RTOClientS)
}

// labKind is the fault lab's name for an implementation.
func labKind(im, real harness.Impl) faultlab.Kind {
	if im.Name == real.Name {
		return faultlab.KindRedis
	}
	return faultlab.KindGosentinel
}

// addMass records the mass-failover figures of one run.
func addMass(c *Collector, im harness.Impl, r faultlab.RunResult) {
	x := r.Extra
	c.Add(im, "mass-all", orNaN(x["all_switched_s"]))
	c.Add(im, "mass-p50", orNaN(x["rto_switch_p50_s"]))
	c.Add(im, "mass-p95", orNaN(x["rto_switch_p95_s"]))
	c.Add(im, "mass-switched", x["groups_switched"])
	split := nan
	if a := x["failover_attempts"]; a > 0 {
		split = 100 * x["not_elected"] / a
	}
	c.Add(im, "mass-split", split)
	c.Add(im, "mass-epochs", x["epochs_burned"])
	c.Add(im, "mass-cpu", orNaN(x["peak_sentinel_cpu_pct"]))
}

// orNaN maps the lab's "never" (-1) and absent figures to NaN.
func orNaN(v float64) float64 {
	if v < 0 {
		return nan
	}
	return v
}

// labTimeout bounds one lab invocation of the bench.
const labTimeout = 60 * time.Minute
