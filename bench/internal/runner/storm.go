package runner

import (
	"fmt"
	"io"
	"time"

	"github.com/gosentinel/gosentinel/bench/harness"
)

// StormConns is the number of fresh connections of the reconnect storm.
const StormConns = 2000

// Storm opens StormConns fresh TCP connections at once to one sentinel of a
// 3-sentinel cluster, each asking GET-MASTER-ADDR-BY-NAME once.
func Storm(cfg Config, real, ours harness.Impl, out io.Writer) harness.Section {
	c := NewCollector(real, ours, out)
	c.Define(FigureDef{Key: "total", Label: fmt.Sprintf("%d fresh connections: total time", StormConns), Unit: "ms", LowerBetter: true, Headline: true})
	c.Define(FigureDef{Key: "p50", Label: fmt.Sprintf("%d fresh connections: p50 per connection", StormConns), Unit: "ms", LowerBetter: true})
	c.Define(FigureDef{Key: "p99", Label: fmt.Sprintf("%d fresh connections: p99 per connection", StormConns), Unit: "ms", LowerBetter: true, Headline: true})
	c.Define(FigureDef{Key: "errors", Label: fmt.Sprintf("%d fresh connections: failed", StormConns), Unit: "count", LowerBetter: true})
	c.Define(FigureDef{Key: "overflows", Label: fmt.Sprintf("%d fresh connections: listen queue overflows", StormConns), Unit: "count", LowerBetter: true})
	c.Alternate(cfg.Runs, func(run int, impl harness.Impl) {
		env := harness.NewEnv(nil)
		err := env.Run(func() error {
			cl := harness.StartCluster(env, impl, harness.ClusterOpts{DownAfterMs: 5000})
			r := harness.Storm(cl.Sentinels[0].Addr(), "mymaster", cl.Top.Master.Addr(), StormConns, 10*time.Second)
			c.Add(impl, "total", r.TotalMs)
			c.Add(impl, "p50", r.P50Ms)
			c.Add(impl, "p99", r.P99Ms)
			c.Add(impl, "errors", float64(r.Errors))
			if r.Overflows >= 0 {
				c.Add(impl, "overflows", float64(r.Overflows))
			} else {
				c.Add(impl, "overflows", nan)
			}
			fmt.Fprintf(out, "  run %d %-14s total %.1f ms p50 %.1f ms p99 %.1f ms errors %d listen overflows %d\n", run+1, impl.Name, r.TotalMs, r.P50Ms, r.P99Ms, r.Errors, r.Overflows)
			return nil
		})
		if err != nil {
			c.Fail(impl, fmt.Sprintf("run %d", run+1), err)
		}
	})
	notes := []string{
		fmt.Sprintf("%d goroutines are released together; each dials, sends `SENTINEL GET-MASTER-ADDR-BY-NAME mymaster`, checks the answer and closes. Per-connection time = dial to answer. The client runs on the same 2 cores.", StormConns),
		"Listen queue overflows: rise of the kernel's TcpExt ListenOverflows counter (whole machine) during the storm. redis-sentinel listens with its tcp-backlog (511); a SYN dropped on a full queue is retransmitted after 1 s, which dominates the totals when the sentinel is not scheduled promptly on a loaded machine.",
	}
	return c.Section("storm", "Reconnect storm", cfg.Runs, notes)
}
