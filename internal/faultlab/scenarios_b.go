package faultlab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func init() {
	register(&Scenario{
		ID: "B1", Title: "one sentinel down, then the master", ExpectFailover: true, Mixed: true,
		Fault:    "SIGKILL the sentinel on h3, then SIGKILL the master",
		Expected: "failover by the 2/3 majority",
		Schedule: func(ctx context.Context, e *Env) error {
			if err := e.Top.Kill("sentinel-h3"); err != nil {
				return err
			}
			if err := e.Sleep(ctx, time.Second); err != nil {
				return err
			}
			_, err := killMaster(ctx, e, "h1")
			e.Heal()
			return err
		},
		Criteria: []Criterion{rtoSwitchWithin(7), oneSwitchPerSentinel("sentinel-h3")},
	}, &Scenario{
		ID: "B2", Title: "sentinel majority down, then the master", ExpectFailover: true,
		Fault:    "SIGKILL the sentinels on h2 and h3, SIGKILL the master, restart the sentinels after 30 s",
		Expected: "no failover while in minority; failover after the restart",
		Schedule: func(ctx context.Context, e *Env) error {
			for _, h := range []string{"h2", "h3"} {
				if err := e.Top.Kill("sentinel-" + h); err != nil {
					return err
				}
			}
			e.Fault()
			if err := e.Top.Kill("redis-h1"); err != nil {
				return err
			}
			if err := e.Sleep(ctx, 30*time.Second); err != nil {
				return err
			}
			m, err := e.Top.MasterHostBy(ctx, "h1")
			if err != nil {
				return err
			}
			e.Set("switched_in_minority", boolf(m != "h1"))
			for _, h := range []string{"h2", "h3"} {
				if err := e.Top.StartSentinel(h); err != nil {
					return err
				}
			}
			e.Heal()
			return nil
		},
		Criteria: []Criterion{extraEquals("switched_in_minority", 0, "0 promotions before the restart"), convAfterHealWithin(15)},
	}, &Scenario{
		ID: "B4", Title: "sentinel restarted from a stale config", ExpectFailover: true, Failovers: 2, Settle: 40 * time.Second,
		Fault:    "two failovers, then restart the sentinel on h3 from a copy of its config taken before them",
		Expected: "it adopts the newer config via hello; never demotes the real master",
		Schedule: func(ctx context.Context, e *Env) error {
			conf := e.Top.SentinelConfPath("h3")
			backup := filepath.Join(e.Top.Dir, "h3-sentinel.conf.before")
			if err := CopyFile(backup, conf); err != nil {
				return err
			}
			m1, err := killMaster(ctx, e, "h1")
			if err != nil {
				return err
			}
			if err := restartAndConverge(ctx, e, "h1"); err != nil {
				return err
			}
			if err := e.Top.Kill("redis-" + m1); err != nil {
				return err
			}
			m2, err := e.WaitSwitch(ctx, m1, 40*time.Second)
			if err != nil {
				return err
			}
			if err := restartAndConverge(ctx, e, m1); err != nil {
				return err
			}
			if err := e.Top.Kill("sentinel-h3"); err != nil {
				return err
			}
			if err := CopyFile(conf, backup); err != nil {
				return err
			}
			e.EpochReset("h3")
			if err := e.Top.StartSentinel("h3"); err != nil {
				return err
			}
			e.Heal()
			at := time.Now()
			demoted, conv := 0.0, -1.0
			for time.Since(at) < 10*time.Second {
				if role, _, _, err := e.Top.Role(ctx, m2); err == nil && role != "master" {
					demoted = 1
				}
				if conv < 0 {
					if _, err := e.Top.Converged(ctx); err == nil {
						conv = secs(time.Since(at))
					}
				}
				if err := e.Sleep(ctx, 100*time.Millisecond); err != nil {
					return err
				}
			}
			e.Set("real_master_demoted", demoted)
			e.Set("conv_after_restart_s", conv)
			return nil
		},
		Criteria: []Criterion{extraEquals("real_master_demoted", 0, "real master never demoted"),
			Criterion{Name: "L1 <= 5 s after the restart", Check: func(r *RunResult) (bool, string) {
				v, ok := r.Extra["conv_after_restart_s"]
				return ok && v >= 0 && v <= 5, fmt.Sprintf("conv_after_restart_s = %g", v)
			}}},
	}, &Scenario{
		ID: "B5", Title: "sentinel restarted without its myid, 5 times", ExpectFailover: true,
		Fault:    "5 × (SIGKILL the sentinel on h3, delete its sentinel myid line, restart); then SIGKILL the master",
		Expected: "peers replace the old id (redis#9240); failover still works",
		Schedule: func(ctx context.Context, e *Env) error {
			for i := 0; i < 5; i++ {
				if err := e.Top.Kill("sentinel-h3"); err != nil {
					return err
				}
				if err := dropMyID(e.Top.SentinelConfPath("h3")); err != nil {
					return err
				}
				if err := e.Top.StartSentinel("h3"); err != nil {
					return err
				}
				if err := e.Sleep(ctx, 3*time.Second); err != nil {
					return err
				}
			}
			// Let every hello round (2 s) reach everyone, then count.
			if err := e.Sleep(ctx, 6*time.Second); err != nil {
				return err
			}
			maxOthers := 0
			for _, h := range e.Top.SentinelHosts {
				m, err := e.Top.SentinelMaster(ctx, h)
				if err != nil {
					return err
				}
				n, _ := strconv.Atoi(m["num-other-sentinels"])
				maxOthers = max(maxOthers, n)
			}
			e.Set("max_other_sentinels", float64(maxOthers))
			_, err := killMaster(ctx, e, "h1")
			e.Heal()
			return err
		},
		Criteria: []Criterion{extraEquals("max_other_sentinels", 2, "num-other-sentinels stays 2")},
	}, &Scenario{
		ID: "B7", Title: "sentinel paused 4 s (TILT)", NoConverge: false,
		Fault:    "SIGSTOP the sentinel on h3 for 4 s, then SIGCONT",
		Expected: "TILT for 30 s, no action while TILTed",
		Schedule: func(ctx context.Context, e *Env) error {
			e.Fault()
			if err := e.Top.Stop("sentinel-h3"); err != nil {
				return err
			}
			err := e.Sleep(ctx, 4*time.Second)
			if cerr := e.Top.Cont("sentinel-h3"); err == nil {
				err = cerr
			}
			e.Heal()
			if err != nil {
				return err
			}
			cont := time.Now()
			var start, end time.Time
			for time.Since(cont) < 45*time.Second {
				v, err := e.Top.SentinelDo(ctx, "h3", "INFO", "sentinel")
				if err == nil {
					s, _ := v.(string)
					tilt := strings.Contains(s, "sentinel_tilt:1")
					if tilt && start.IsZero() {
						start = time.Now()
					}
					if !tilt && !start.IsZero() {
						end = time.Now()
						break
					}
				}
				if err := e.Sleep(ctx, 200*time.Millisecond); err != nil {
					return err
				}
			}
			e.Set("tilt_entered", boolf(!start.IsZero()))
			if !start.IsZero() && !end.IsZero() {
				e.Set("tilt_s", secs(end.Sub(start)))
			} else if !start.IsZero() {
				e.Set("tilt_s", -1)
			}
			return nil
		},
		Criteria: []Criterion{noFailover(), extraEquals("tilt_entered", 1, "TILT entered"),
			Criterion{Name: "TILT exited after ~30 s", Check: func(r *RunResult) (bool, string) {
				v, ok := r.Extra["tilt_s"]
				return ok && v >= 25 && v <= 35, fmt.Sprintf("tilt_s = %g", v)
			}}},
	}, &Scenario{
		ID: "B8", Title: "T5: SIGKILL master", ExpectFailover: true,
		Setup:    Setup{Sentinels: 5},
		Fault:    "SIGKILL the master with 5 sentinels, quorum 3",
		Expected: "failover (split votes possible)",
		Schedule: func(ctx context.Context, e *Env) error {
			_, err := killMaster(ctx, e, "h1")
			e.Heal()
			return err
		},
		Criteria: []Criterion{rtoSwitchWithin(25), oneSwitchPerSentinel()},
	})
}

// restartAndConverge restarts the redis on host h and waits for L1.
func restartAndConverge(ctx context.Context, e *Env, h string) error {
	if err := e.Top.StartRedis(h); err != nil {
		return err
	}
	_, err := e.WaitConverged(ctx, 40*time.Second)
	return err
}

// dropMyID removes the "sentinel myid" line from a sentinel config.
func dropMyID(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("drop myid: %w", err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "sentinel myid ") {
			continue
		}
		out = append(out, l)
	}
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o644); err != nil {
		return fmt.Errorf("drop myid: %w", err)
	}
	return nil
}
