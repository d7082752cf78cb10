package faultlab

import (
	"context"
	"fmt"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// killMaster SIGKILLs the master's redis (after a seeded jitter) and waits
// for the first sentinel to switch away from it.
func killMaster(ctx context.Context, e *Env, master string) (string, error) {
	if err := e.Jitter(ctx, 500*time.Millisecond); err != nil {
		return "", err
	}
	e.Fault()
	if err := e.Top.Kill("redis-" + master); err != nil {
		return "", err
	}
	m, err := e.WaitSwitch(ctx, master, 40*time.Second)
	if err != nil {
		return "", err
	}
	return m, nil
}

func init() {
	register(&Scenario{
		ID: "A1", Title: "SIGKILL master", Smoke: true, Mixed: true, Runs: 10, ExpectFailover: true,
		Fault:    "SIGKILL the master's redis-server (T3, writers on c1)",
		Expected: "1 failover, highest-offset replica promoted",
		Schedule: func(ctx context.Context, e *Env) error {
			_, err := killMaster(ctx, e, "h1")
			e.Heal()
			return err
		},
		Criteria: []Criterion{rtoSwitchWithin(7), oneSwitchPerSentinel()},
	}, &Scenario{
		ID: "A2", Title: "short SIGSTOP of the master", Observe: 8 * time.Second,
		Fault:    "SIGSTOP the master 1 s (0.5 × down-after), then SIGCONT",
		Expected: "no failover",
		Schedule: func(ctx context.Context, e *Env) error {
			e.Fault()
			if err := e.Top.Stop("redis-h1"); err != nil {
				return err
			}
			err := e.Sleep(ctx, time.Second)
			if cerr := e.Top.Cont("redis-h1"); err == nil {
				err = cerr
			}
			e.Heal()
			return err
		},
		Criteria: []Criterion{noFailover()},
	}, &Scenario{
		ID: "A3", Title: "long SIGSTOP of the master", Smoke: true, Mixed: true, Runs: 10, ExpectFailover: true,
		Fault:    "SIGSTOP the master 6 s (3 × down-after), then SIGCONT",
		Expected: "failover; old master demoted after CONT",
		Schedule: func(ctx context.Context, e *Env) error {
			if err := e.Jitter(ctx, 500*time.Millisecond); err != nil {
				return err
			}
			e.Fault()
			if err := e.Top.Stop("redis-h1"); err != nil {
				return err
			}
			err := e.Sleep(ctx, 6*time.Second)
			if cerr := e.Top.Cont("redis-h1"); err == nil {
				err = cerr
			}
			e.Heal()
			return err
		},
		Criteria: []Criterion{convAfterHealWithin(10)},
	}, &Scenario{
		ID: "A5", Title: "replica down 30 s", Setup: Setup{NoWriters: false},
		Fault:    "SIGKILL a replica (h3), restart it after 30 s",
		Expected: "+sdown slave / -sdown; no failover",
		Schedule: func(ctx context.Context, e *Env) error {
			e.Fault()
			if err := e.Top.Kill("redis-h3"); err != nil {
				return err
			}
			if err := e.Sleep(ctx, 30*time.Second); err != nil {
				return err
			}
			err := e.Top.StartRedis("h3")
			e.Heal()
			return err
		},
		Criteria: []Criterion{noFailover(), convAfterHealWithin(5)},
	}, &Scenario{
		ID: "A6", Title: "manual SENTINEL FAILOVER under 1 k writes/s", ExpectFailover: true,
		Setup: Setup{Writers: []WriterSpec{
			{Name: "gs-plain", Host: "c1", Client: workload.ClientGosentinel, Mode: workload.ModePlain, Rate: 300},
			{Name: "gr-plain", Host: "c1", Client: workload.ClientGoRedis, Mode: workload.ModePlain, Rate: 300},
			{Name: "gs-wait1", Host: "c1", Client: workload.ClientGosentinel, Mode: workload.ModeWait1, Rate: 200},
			{Name: "gs-waitall", Host: "c1", Client: workload.ClientGosentinel, Mode: workload.ModeWaitAll, Rate: 200},
		}},
		Fault:    "SENTINEL FAILOVER mym on one sentinel",
		Expected: "failover; redis-sentinel loses acknowledged writes (redis#6062)",
		Schedule: func(ctx context.Context, e *Env) error {
			if err := e.Jitter(ctx, 500*time.Millisecond); err != nil {
				return err
			}
			e.Fault()
			if _, err := e.Top.SentinelDo(ctx, e.Top.SentinelHosts[1], "SENTINEL", "FAILOVER", MasterName); err != nil {
				return fmt.Errorf("SENTINEL FAILOVER: %w", err)
			}
			_, err := e.WaitSwitch(ctx, "h1", 30*time.Second)
			e.Heal()
			return err
		},
		Criteria: []Criterion{oneSwitchPerSentinel()},
	}, &Scenario{
		ID: "A7", Title: "new master killed right after the switch", ExpectFailover: true, Failovers: 2, Settle: 40 * time.Second,
		Fault:    "SIGKILL the master; SIGKILL the new master ≤ 1 s after +switch-master",
		Expected: "a second failover (redis#1309)",
		Schedule: func(ctx context.Context, e *Env) error {
			m, err := killMaster(ctx, e, "h1")
			if err != nil {
				return err
			}
			if err := e.Jitter(ctx, time.Second); err != nil {
				return err
			}
			at := time.Now()
			if err := e.Top.Kill("redis-" + m); err != nil {
				return err
			}
			if _, err := e.WaitSwitch(ctx, m, 40*time.Second); err != nil {
				return err
			}
			e.Set("rto_second_switch_s", secs(time.Since(at)))
			e.Heal()
			return nil
		},
		Criteria: []Criterion{extraAtMost("rto_second_switch_s", 20, "2nd switch <= 2 × failover-timeout")},
	}, &Scenario{
		ID: "A8", Title: "no eligible replica, then one comes back", ExpectFailover: true, Settle: 40 * time.Second,
		Fault:    "SIGKILL both replicas, then the master; restart one replica after 10 s",
		Expected: "no promotion (no-good-slave) until a replica is eligible, then failover",
		Schedule: func(ctx context.Context, e *Env) error {
			for _, h := range []string{"h2", "h3"} {
				if err := e.Top.Kill("redis-" + h); err != nil {
					return err
				}
			}
			if err := e.Sleep(ctx, 3*time.Second); err != nil {
				return err
			}
			e.Fault()
			if err := e.Top.Kill("redis-h1"); err != nil {
				return err
			}
			if err := e.Sleep(ctx, 10*time.Second); err != nil {
				return err
			}
			if e.Master(ctx) != "h1" {
				e.Set("promoted_while_ineligible", 1)
			} else {
				e.Set("promoted_while_ineligible", 0)
			}
			back := time.Now()
			if err := e.Top.StartRedis("h2"); err != nil {
				return err
			}
			e.Heal()
			if _, err := e.WaitSwitch(ctx, "h1", 40*time.Second); err != nil {
				e.Set("switch_after_eligible_s", -1)
				return nil
			}
			e.Set("switch_after_eligible_s", secs(time.Since(back)))
			return nil
		},
		Criteria: []Criterion{extraEquals("promoted_while_ineligible", 0, "no promotion of an ineligible node"),
			extraAtMost("switch_after_eligible_s", 10, "failover <= 10 s after a replica is back")},
	}, &Scenario{
		ID: "A9", Title: "best replica has replica-priority 0", ExpectFailover: true,
		Setup:    Setup{Priority: map[string]int{"h2": 0}},
		Fault:    "SIGKILL the master; h2 has replica-priority 0",
		Expected: "h3 is promoted, never h2 (S6)",
		Schedule: func(ctx context.Context, e *Env) error {
			m, err := killMaster(ctx, e, "h1")
			e.Heal()
			if err != nil {
				return err
			}
			e.Set("promoted_h3", boolf(m == "h3"))
			return nil
		},
		Criteria: []Criterion{extraEquals("promoted_h3", 1, "h3 promoted")},
	}, &Scenario{
		ID: "A10", Title: "replica offsets differ", ExpectFailover: true,
		// Not SIGSTOP: a stopped replica's kernel still receives the
		// replication stream into its socket buffer, so 100 ms after
		// SIGCONT it has caught up and the offsets tie (seen: LostAck 0
		// whichever replica won). A dropped replication connection really
		// leaves h3 behind while its INFO still answers.
		Fault:    "drop h3's replication connection to the master for 1 s while writes go on, SIGKILL the master, heal after the switch",
		Expected: "the replica with the highest offset (h2) is promoted",
		Schedule: func(ctx context.Context, e *Env) error {
			heal, err := e.Lab.CutPort(e.Top.Host("h3"), e.Top.Host("h1"), RedisPort, netlab.Drop)
			if err != nil {
				return err
			}
			e.Track(heal)
			if err := e.Sleep(ctx, time.Second); err != nil {
				return err
			}
			e.Fault()
			if err := e.Top.Kill("redis-h1"); err != nil {
				return err
			}
			m, err := e.WaitSwitch(ctx, "h1", 40*time.Second)
			healErr := heal()
			e.Heal()
			if err == nil {
				err = healErr
			}
			if err != nil {
				return err
			}
			e.Set("promoted_max_offset", boolf(m == "h2"))
			return nil
		},
		Criteria: []Criterion{extraEquals("promoted_max_offset", 1, "max offset (h2) promoted")},
	})
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
