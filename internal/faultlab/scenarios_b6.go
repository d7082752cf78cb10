package faultlab

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// b6Schedule decommissions the sentinel on h3 (SIGKILL, never restarted),
// starts a new sentinel on a new host h4 (a fresh config, a new myid),
// optionally sends SENTINEL RESET * to each survivor one after the other
// (waiting until it has rediscovered its peers and replicas), then kills
// the master. voters is the largest "num-other-sentinels + 1" a sentinel
// reports before the kill: real Sentinel keeps counting the decommissioned
// one until a RESET (redis#7753), which raises the majority a leader needs.
func b6Schedule(reset bool) func(ctx context.Context, e *Env) error {
	return func(ctx context.Context, e *Env) error {
		if err := e.Top.Kill("sentinel-h3"); err != nil {
			return err
		}
		if err := e.Top.StartSentinel("h4"); err != nil {
			return err
		}
		live := []string{"h1", "h2", "h4"}
		// Everyone has heard the newcomer (and it everyone) within a few
		// hello periods.
		if err := b6WaitKnown(ctx, e, live, func(h string, others, replicas int) bool {
			return others >= 2 && replicas == 2
		}, 30*time.Second); err != nil {
			return err
		}
		if reset {
			for _, h := range []string{"h1", "h2"} {
				if _, err := e.Top.SentinelDo(ctx, h, "SENTINEL", "RESET", "*"); err != nil {
					return fmt.Errorf("SENTINEL RESET * on %s: %w", h, err)
				}
				if err := b6WaitKnown(ctx, e, []string{h}, func(_ string, others, replicas int) bool {
					return others == 2 && replicas == 2
				}, 30*time.Second); err != nil {
					return err
				}
			}
		}
		// Two more hello periods, so a stale count would show.
		if err := e.Sleep(ctx, 4*time.Second); err != nil {
			return err
		}
		voters := 0
		for _, h := range live {
			m, err := e.Top.SentinelMaster(ctx, h)
			if err != nil {
				return err
			}
			n, _ := strconv.Atoi(m["num-other-sentinels"])
			voters = max(voters, n+1)
		}
		e.Set("voters", float64(voters))
		if err := e.Jitter(ctx, 500*time.Millisecond); err != nil {
			return err
		}
		e.Fault()
		if err := e.Top.Kill("redis-h1"); err != nil {
			return err
		}
		_, err := e.WaitSwitch(ctx, "h1", 90*time.Second)
		e.Heal()
		return err
	}
}

// b6WaitKnown waits until ok holds for every listed sentinel's
// num-other-sentinels and number of replicas.
func b6WaitKnown(ctx context.Context, e *Env, hosts []string, ok func(h string, others, replicas int) bool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		why := ""
		for _, h := range hosts {
			m, err := e.Top.SentinelMaster(ctx, h)
			if err != nil {
				why = fmt.Sprintf("sentinel %s: %v", h, err)
				break
			}
			others, _ := strconv.Atoi(m["num-other-sentinels"])
			replicas, _ := strconv.Atoi(m["num-slaves"])
			if !ok(h, others, replicas) {
				why = fmt.Sprintf("sentinel %s: %d other sentinels, %d replicas", h, others, replicas)
				break
			}
		}
		if why == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %v: %s", timeout, why)
		}
		if err := e.Sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

func init() {
	b6Setup := Setup{Sentinels: 4, Quorum: 2, LateSentinels: []string{"h4"}}
	register(&Scenario{
		ID: "B6", Title: "decommissioned sentinel replaced, no RESET", ExpectFailover: true, Settle: 40 * time.Second,
		Setup:    b6Setup,
		Fault:    "SIGKILL the sentinel on h3 for good, start a new sentinel on a new host h4, SIGKILL the master",
		Expected: "redis-sentinel keeps counting the old sentinel as a voter until SENTINEL RESET (redis#7753): a leader needs 3 of the 3 live votes",
		Schedule: b6Schedule(false),
	}, &Scenario{
		ID: "B6r", Title: "decommissioned sentinel replaced, SENTINEL RESET on each survivor", ExpectFailover: true, Settle: 40 * time.Second,
		Setup:    b6Setup,
		Fault:    "as B6, then SENTINEL RESET * on the sentinels of h1 and h2 one after the other (each waits until it has rediscovered its peers and replicas), then SIGKILL the master",
		Expected: "3 voters again; failover within the A1 bound",
		Schedule: b6Schedule(true),
		Criteria: []Criterion{rtoSwitchWithin(7), extraEquals("voters", 3, "3 voters after RESET")},
	})
}
