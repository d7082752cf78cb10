package runner

import (
	"fmt"
	"io"

	"github.com/gosentinel/gosentinel/bench/harness"
)

// Faults measured by the failover suite.
var Faults = []harness.Fault{harness.Kill, harness.Stop}

// Failover measures failovers for every fault and down-after value: 1
// master, 2 replicas, 3 sentinels with quorum 2, fresh processes every run.
func Failover(cfg Config, real, ours harness.Impl, out io.Writer) harness.Section {
	c := NewCollector(real, ours, out)
	for _, fault := range Faults {
		for _, d := range cfg.DownAfter {
			pre := fmt.Sprintf("%s, down-after %d: fault →", fault, d)
			key := fmt.Sprintf("%s-%d-", fault, d)
			for _, m := range []struct {
				k, l     string
				headline bool
			}{
				{"sdown", "+sdown", false}, {"odown", "+odown", false}, {"promoted", "+promoted-slave", false},
				{"switch", "first +switch-master", true}, {"switchall", "+switch-master on all", false},
				{"agree", "all agree (GET-MASTER-ADDR)", false},
			} {
				c.Define(FigureDef{Key: key + m.k, Label: pre + " " + m.l, Unit: "ms", LowerBetter: true, Headline: m.headline})
			}
			c.Alternate(cfg.Runs, func(run int, impl harness.Impl) {
				env := harness.NewEnv(nil)
				var s harness.FailoverSample
				err := env.Run(func() error {
					var err error
					s, err = harness.RunFailover(env, impl, harness.FailoverOpts{
						Fault:   fault,
						Cluster: harness.ClusterOpts{DownAfterMs: d},
					})
					return err
				})
				if err != nil {
					c.Fail(impl, fmt.Sprintf("run %d %s D=%d", run+1, fault, d), err)
				}
				c.Add(impl, key+"sdown", s.Sdown)
				c.Add(impl, key+"odown", s.Odown)
				c.Add(impl, key+"promoted", s.Promoted)
				c.Add(impl, key+"switch", s.SwitchFirst)
				c.Add(impl, key+"switchall", s.SwitchAll)
				c.Add(impl, key+"agree", s.Agree)
				fmt.Fprintf(out, "  run %d %-14s %s D=%-5d sdown %s odown %s promoted %s switch %s all %s agree %s\n",
					run+1, impl.Name, fault, d, ms(s.Sdown), ms(s.Odown), ms(s.Promoted), ms(s.SwitchFirst), ms(s.SwitchAll), ms(s.Agree))
			})
		}
	}
	notes := []string{
		"Topology: 1 master + 2 replicas (redis-server 7.0.15), 3 sentinels of the same implementation, quorum 2, failover-timeout 60000, all on loopback.",
		"Each time is measured from the moment the harness sends the signal to the master until the harness receives the event (PSUBSCRIBE * on every sentinel). \"all agree\" is polled every 5 ms.",
		"The leader publishes +switch-master only at failover end, after reconfiguring the replicas; observers publish it as soon as they see the new config in a hello, which is why the first +switch-master usually comes from an observer.",
	}
	return c.Section("failover", "Failover latency (master killed or paused)", cfg.Runs, notes)
}

func ms(v float64) string {
	if v != v {
		return "-"
	}
	return fmt.Sprintf("%.0f", v)
}
