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
	// Two listen backlogs: each implementation's default (redis-sentinel's
	// tcp-backlog 511; gosentinel listens with the kernel's somaxconn), and
	// both at 4096, where no SYN is dropped and the figure is the
	// sentinels' own cost per connection.
	variants := []struct{ key, label, extra string }{
		{"", "", ""},
		{"b4096-", ", tcp-backlog 4096 for both", "tcp-backlog 4096\n"},
	}
	for _, v := range variants {
		pre := fmt.Sprintf("%d fresh connections%s", StormConns, v.label)
		c.Define(FigureDef{Key: v.key + "total", Label: pre + ": total time", Unit: "ms", LowerBetter: true, Headline: true})
		c.Define(FigureDef{Key: v.key + "p50", Label: pre + ": p50 per connection", Unit: "ms", LowerBetter: true})
		c.Define(FigureDef{Key: v.key + "p99", Label: pre + ": p99 per connection", Unit: "ms", LowerBetter: true, Headline: true})
		c.Define(FigureDef{Key: v.key + "cpu", Label: pre + ": sentinel CPU", Unit: "ms", LowerBetter: true, Headline: v.key != ""})
		c.Define(FigureDef{Key: v.key + "errors", Label: pre + ": failed", Unit: "count", LowerBetter: true})
		c.Define(FigureDef{Key: v.key + "overflows", Label: pre + ": listen queue overflows", Unit: "count", LowerBetter: true})
	}
	c.Alternate(cfg.Runs, func(run int, impl harness.Impl) {
		for _, v := range variants {
			env := harness.NewEnv(nil)
			err := env.Run(func() error {
				cl := harness.StartCluster(env, impl, harness.ClusterOpts{DownAfterMs: 5000, Extra: v.extra})
				s := cl.Sentinels[0]
				cpu0, cerr := harness.CPUTime(s.PID())
				r := harness.Storm(s.Addr(), "mymaster", cl.Top.Master.Addr(), StormConns, 10*time.Second)
				cpu := nan
				if cpu1, err := harness.CPUTime(s.PID()); err == nil && cerr == nil {
					cpu = float64((cpu1 - cpu0).Microseconds()) / 1000
				}
				c.Add(impl, v.key+"total", r.TotalMs)
				c.Add(impl, v.key+"p50", r.P50Ms)
				c.Add(impl, v.key+"p99", r.P99Ms)
				c.Add(impl, v.key+"cpu", cpu)
				c.Add(impl, v.key+"errors", float64(r.Errors))
				if r.Overflows >= 0 {
					c.Add(impl, v.key+"overflows", float64(r.Overflows))
				} else {
					c.Add(impl, v.key+"overflows", nan)
				}
				fmt.Fprintf(out, "  run %d %-14s %-8s total %.1f ms p50 %.1f ms p99 %.1f ms cpu %.0f ms errors %d listen overflows %d\n", run+1, impl.Name, v.key+"storm", r.TotalMs, r.P50Ms, r.P99Ms, cpu, r.Errors, r.Overflows)
				return nil
			})
			if err != nil {
				c.Fail(impl, fmt.Sprintf("run %d %s", run+1, v.key+"storm"), err)
			}
		}
	})
	notes := []string{
		fmt.Sprintf("%d goroutines are released together; each dials, sends `SENTINEL GET-MASTER-ADDR-BY-NAME mymaster`, checks the answer and closes. Per-connection time = dial to answer. The client runs on the same 2 cores.", StormConns),
		"Listen queue overflows: rise of the kernel's TcpExt ListenOverflows counter (whole machine) during the storm. By default redis-sentinel listens with its tcp-backlog (511) and gosentinel with the kernel's net.core.somaxconn (4096 here; gosentinel accepts `tcp-backlog` and ignores it, docs/decisions.md 17); a SYN dropped on a full queue is retransmitted after 1 s, which dominates the default rows whenever the sentinel does not accept fast enough. The rows with tcp-backlog 4096 give both the same queue.",
		"Sentinel CPU: utime+stime of the sentinel over the storm (/proc/<pid>/stat, 10 ms ticks).",
	}
	return c.Section("storm", "Reconnect storm", cfg.Runs, notes)
}
