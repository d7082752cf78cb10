package runner

import (
	"fmt"
	"io"
	"time"

	"github.com/gosentinel/gosentinel/bench/harness"
)

// ScaleConfig is the scale suite's own settings.
type ScaleConfig struct {
	Usage          []int // master counts for CPU and RSS
	Healthy        []int // master counts for time to all healthy
	NamesPerServer int
	Sentinels      int
	Window         time.Duration
}

// Scale measures CPU and RSS of sentinels monitoring many masters, and the
// time until all of them are healthy.
func Scale(cfg Config, sc ScaleConfig, real, ours harness.Impl, out io.Writer) harness.Section {
	c := NewCollector(real, ours, out)
	counts := map[int]bool{}
	var all []int
	for _, l := range [][]int{sc.Usage, sc.Healthy} {
		for _, n := range l {
			if !counts[n] {
				counts[n] = true
				all = append(all, n)
			}
		}
	}
	usage := map[int]bool{}
	for _, n := range sc.Usage {
		usage[n] = true
	}
	for _, n := range all {
		key := fmt.Sprintf("m%d-", n)
		c.Define(FigureDef{Key: key + "healthy", Label: fmt.Sprintf("%d masters: start → all healthy", n), Unit: "ms", LowerBetter: true, Headline: n == maxInt(sc.Healthy)})
		c.Define(FigureDef{Key: key + "pong", Label: fmt.Sprintf("%d masters: start → first PONG", n), Unit: "ms", LowerBetter: true})
		c.Define(FigureDef{Key: key + "stall", Label: fmt.Sprintf("%d masters: longest wait for an answer during start", n), Unit: "ms", LowerBetter: true})
		if usage[n] {
			c.Define(FigureDef{Key: key + "cpu", Label: fmt.Sprintf("%d masters: CPU (one core = 100)", n), Unit: "%", LowerBetter: true, Headline: n == maxInt(sc.Usage)})
			c.Define(FigureDef{Key: key + "rss", Label: fmt.Sprintf("%d masters: RSS", n), Unit: "MiB", LowerBetter: true, Headline: n == maxInt(sc.Usage)})
		}
		c.Alternate(cfg.Runs, func(run int, impl harness.Impl) {
			env := harness.NewEnv(nil)
			var r harness.ScaleResult
			err := env.Run(func() error {
				var err error
				r, err = harness.RunScale(env, impl, harness.ScaleOpts{
					Masters: n, NamesPerServer: sc.NamesPerServer, Sentinels: sc.Sentinels, Window: sc.Window,
				})
				return err
			})
			if err != nil {
				c.Fail(impl, fmt.Sprintf("run %d %d masters", run+1, n), err)
				r = harness.ScaleResult{HealthyMs: nan, StallMs: nan, FirstPongMs: nan, CPUPercent: nan, RSSMiB: nan}
			}
			c.Add(impl, key+"healthy", r.HealthyMs)
			c.Add(impl, key+"stall", r.StallMs)
			c.Add(impl, key+"pong", r.FirstPongMs)
			if usage[n] {
				c.Add(impl, key+"cpu", r.CPUPercent)
				c.Add(impl, key+"rss", r.RSSMiB)
			}
			fmt.Fprintf(out, "  run %d %-14s %5d masters: healthy %.0f ms (first PONG %.0f ms, longest wait %.0f ms), CPU %.1f%%, RSS %.1f MiB\n", run+1, impl.Name, n, r.HealthyMs, r.FirstPongMs, r.StallMs, r.CPUPercent, r.RSSMiB)
		})
	}
	notes := []string{
		fmt.Sprintf("Each master has one replica. Real Sentinel accepts the same address under several master names, so the masters are %d names per redis-server pair (master + replica, `hz 1`): N masters use N/%d pairs. Every hello published to a pair is delivered on the links of all its names, an overhead both implementations pay alike.", sc.NamesPerServer, sc.NamesPerServer),
		fmt.Sprintf("%d sentinel(s), default timers (down-after 30 s). \"All healthy\": from starting the sentinel processes until SENTINEL MASTERS (polled every 100 ms) lists every master with flags `master`, at least one replica and all other sentinels; \"longest wait for an answer\" is the longer of the wait for the first PONG and the slowest of those SENTINEL MASTERS replies: how long the sentinel stopped answering while starting (real Sentinel rewrites and fsyncs its config file for every replica it discovers, on its only thread). CPU: utime+stime from /proc/<pid>/stat over %v once healthy; RSS: VmRSS at the end of that window.", sc.Sentinels, sc.Window),
	}
	return c.Section("scale", "Scale: many masters", cfg.Runs, notes)
}

func maxInt(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
