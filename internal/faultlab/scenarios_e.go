package faultlab

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// countEvents counts events on a channel after t.
func countEvents(in *workload.Input, channel string, t time.Time) int {
	n := 0
	for _, ev := range in.Events {
		if ev.Channel == channel && !ev.At.Before(t) {
			n++
		}
	}
	return n
}

func init() {
	register(&Scenario{
		ID: "E1", Title: "names stop resolving during a failover", ExpectFailover: true,
		Setup:    Setup{Hostnames: true, NoWriters: true},
		Fault:    "resolve-hostnames/announce-hostnames yes; SIGKILL the master and make h2 and h3 unresolvable for 5 s",
		Expected: "the failover completes",
		Schedule: func(ctx context.Context, e *Env) error {
			e.Fault()
			if err := e.Top.Kill("redis-h1"); err != nil {
				return err
			}
			for _, h := range []string{"h2", "h3"} {
				if err := e.Lab.SetResolvable(e.Top.Host(h), false); err != nil {
					return err
				}
				h := h
				e.Track(func() error { return e.Lab.SetResolvable(e.Top.Host(h), true) })
			}
			if err := e.Sleep(ctx, 5*time.Second); err != nil {
				return err
			}
			for _, h := range []string{"h2", "h3"} {
				if err := e.Lab.SetResolvable(e.Top.Host(h), true); err != nil {
					return err
				}
			}
			_, err := e.WaitSwitch(ctx, "h1", 40*time.Second)
			e.Heal()
			return err
		},
		Post: func(r *RunResult, in *workload.Input, top *Topology) {
			r.Extra["fix_slave_config"] = float64(countEvents(in, "+fix-slave-config", in.FaultAt))
		},
		Criteria: []Criterion{extraEquals("fix_slave_config", 0, "no +fix-slave-config")},
	}, &Scenario{
		ID: "E2", Title: "replica IP changes behind the same name", Smoke: true,
		Setup:    Setup{Hostnames: true, NoWriters: true},
		Fault:    "resolve-hostnames/announce-hostnames yes, replicas announce their name; h3 gets a new IP; watch 20 s (two INFO periods)",
		Expected: "no duplicate replica (redis#8481, #11590); no IPs in the config (valkey#2158)",
		Schedule: func(ctx context.Context, e *Env) error {
			e.Fault()
			oldIP, newIP, err := e.Top.ChangeIP("h3")
			if err != nil {
				return err
			}
			e.Note("h3: %s → %s", oldIP, newIP)
			maxSlaves := 0
			for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
				for _, h := range e.Top.SentinelHosts {
					if m, err := e.Top.SentinelMaster(ctx, h); err == nil {
						n, _ := strconv.Atoi(m["num-slaves"])
						maxSlaves = max(maxSlaves, n)
					}
				}
				if err := e.Sleep(ctx, 500*time.Millisecond); err != nil {
					return err
				}
			}
			e.Set("max_num_slaves", float64(maxSlaves))
			e.Heal()
			return nil
		},
		Post: func(r *RunResult, in *workload.Input, top *Topology) {
			n := 0
			for _, data := range in.ConfigFiles {
				for _, l := range strings.Split(string(data), "\n") {
					if (strings.HasPrefix(l, "sentinel known-replica") || strings.HasPrefix(l, "sentinel monitor")) && strings.Contains(l, "198.18.") {
						n++
						r.Notes = append(r.Notes, "IP in config: "+l)
					}
				}
			}
			r.Extra["ip_lines_in_config"] = float64(n)
		},
		Criteria: []Criterion{noFailover(), extraEquals("max_num_slaves", 2, "num-slaves stays 2"),
			extraEquals("ip_lines_in_config", 0, "no IPs in the config")},
	})
}
