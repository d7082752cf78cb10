package runner

import (
	"context"
	"fmt"
	"io"

	"github.com/gosentinel/gosentinel/bench/harness"
)

// Query is the command every query benchmark asks.
var Query = []string{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster"}

// Throughput runs redis-benchmark against one sentinel of a 3-sentinel
// cluster: 50 clients without pipelining, and with -P 16.
func Throughput(ctx context.Context, cfg Config, real, ours harness.Impl, out io.Writer) harness.Section {
	c := NewCollector(real, ours, out)
	type variant struct {
		key      string
		pipeline int
		requests int
	}
	vs := []variant{{"c50", 1, 200000}, {"c50p16", 16, 2000000}}
	c.Define(FigureDef{Key: "c50-rps", Label: "GET-MASTER-ADDR-BY-NAME, -c 50", Unit: "req/s", Headline: true})
	c.Define(FigureDef{Key: "c50-p50", Label: "GET-MASTER-ADDR-BY-NAME, -c 50: p50 latency", Unit: "ms", LowerBetter: true})
	c.Define(FigureDef{Key: "c50-p99", Label: "GET-MASTER-ADDR-BY-NAME, -c 50: p99 latency", Unit: "ms", LowerBetter: true})
	c.Define(FigureDef{Key: "c50p16-rps", Label: "GET-MASTER-ADDR-BY-NAME, -c 50 -P 16", Unit: "req/s", Headline: true})
	c.Define(FigureDef{Key: "c50p16-p99", Label: "GET-MASTER-ADDR-BY-NAME, -c 50 -P 16: p99 latency", Unit: "ms", LowerBetter: true})
	c.Define(FigureDef{Key: "c50-cpu", Label: "GET-MASTER-ADDR-BY-NAME, -c 50: sentinel CPU per request", Unit: "µs", LowerBetter: true})
	c.Define(FigureDef{Key: "c50p16-cpu", Label: "GET-MASTER-ADDR-BY-NAME, -c 50 -P 16: sentinel CPU per request", Unit: "µs", LowerBetter: true})
	c.Alternate(cfg.Runs, func(run int, impl harness.Impl) {
		env := harness.NewEnv(nil)
		err := env.Run(func() error {
			cl := harness.StartCluster(env, impl, harness.ClusterOpts{DownAfterMs: 5000})
			s := cl.Sentinels[0]
			for _, v := range vs {
				cpu0, cerr := harness.CPUTime(s.PID())
				r, err := harness.RedisBenchmark(ctx, "127.0.0.1", s.Port, 50, v.pipeline, v.requests, Query...)
				if err != nil {
					return fmt.Errorf("%s: %w", v.key, err)
				}
				if cpu1, err := harness.CPUTime(s.PID()); err == nil && cerr == nil {
					// utime+stime of the sentinel over the whole run, per request
					// (USER_HZ ticks: 10 ms resolution, ~1 % at these counts).
					c.Add(impl, v.key+"-cpu", float64((cpu1-cpu0).Microseconds())/float64(v.requests))
				}
				c.Add(impl, v.key+"-rps", r.RPS)
				c.Add(impl, v.key+"-p50", r.P50Ms)
				c.Add(impl, v.key+"-p99", r.P99Ms)
				fmt.Fprintf(out, "  run %d %-14s %-7s %.0f req/s p50 %.3f ms p99 %.3f ms\n", run+1, impl.Name, v.key, r.RPS, r.P50Ms, r.P99Ms)
			}
			return nil
		})
		if err != nil {
			c.Fail(impl, fmt.Sprintf("run %d", run+1), err)
		}
	})
	notes := []string{
		"redis-benchmark 7.0.15 -c 50 -n 200000 (and -P 16 -n 2000000) `SENTINEL GET-MASTER-ADDR-BY-NAME mymaster` against one of 3 sentinels watching 1 master + 2 replicas; redis-benchmark runs on the same 2 cores.",
		"Sentinel CPU per request: the sentinel's utime+stime (/proc/<pid>/stat) over the redis-benchmark run divided by the requests; it includes the kernel's TCP work charged to the sentinel, and the sentinel's own timers (negligible at these rates).",
	}
	return c.Section("throughput", "Query throughput (redis-benchmark)", cfg.Runs, notes)
}
