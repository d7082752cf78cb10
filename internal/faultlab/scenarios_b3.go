package faultlab

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// failoverStates are the leader's failover events in order, the instants
// B3k may SIGKILL it at (after +slave-reconf-sent the failover is as good
// as done).
var failoverStates = []string{"+elected-leader", "+failover-state-select-slave", "+selected-slave",
	"+failover-state-send-slaveof-noone", "+failover-state-wait-promotion", "+promoted-slave",
	"+failover-state-reconf-slaves", "+slave-reconf-sent"}

// b3Bound is "another sentinel finishes": the others wait 2 × failover-timeout
// after their vote before they start a failover of their own (sentinel.c
// sentinelStartFailoverIfNeeded), plus an election and a promotion.
const b3Bound = 30.0

// b3SimSchedule arms SENTINEL SIMULATE-FAILURE <flag> on every sentinel,
// kills the master, and as soon as one sentinel (the elected leader, the
// only one that reaches the crash point) has exited, disarms the others
// (SIMULATE-FAILURE HELP resets the flags in sentinel.c and gosentinel),
// so exactly one crashes. Then it waits for another sentinel to switch and
// restarts the crashed one.
func b3SimSchedule(flag string) func(ctx context.Context, e *Env) error {
	return func(ctx context.Context, e *Env) error {
		for _, h := range e.Top.SentinelHosts {
			if _, err := e.Top.SentinelDo(ctx, h, "SENTINEL", "SIMULATE-FAILURE", flag); err != nil {
				return fmt.Errorf("SIMULATE-FAILURE %s on %s: %w", flag, h, err)
			}
		}
		if err := e.Jitter(ctx, 500*time.Millisecond); err != nil {
			return err
		}
		e.Fault()
		if err := e.Top.Kill("redis-h1"); err != nil {
			return err
		}
		crashed := ""
		for deadline := time.Now().Add(60 * time.Second); crashed == "" && time.Now().Before(deadline); {
			for _, h := range e.Top.SentinelHosts {
				if done, code := e.Top.Proc("sentinel-" + h).Exited(); done {
					crashed = h
					e.Set("crash_exit_code", float64(code))
					break
				}
			}
			if crashed == "" {
				if err := e.Sleep(ctx, 10*time.Millisecond); err != nil {
					return err
				}
			}
		}
		if crashed == "" {
			return errors.New("no sentinel crashed within 60 s of the master's kill")
		}
		crashAt := time.Now()
		e.Top.expectExit("sentinel-" + crashed)
		e.Set("crash_after_fault_s", secs(crashAt.Sub(e.FaultAt())))
		e.Note("sentinel-%s crashed (%s)", crashed, flag)
		var others []string
		for _, h := range e.Top.SentinelHosts {
			if h != crashed {
				others = append(others, h)
				if _, err := e.Top.SentinelDo(ctx, h, "SENTINEL", "SIMULATE-FAILURE", "HELP"); err != nil {
					return fmt.Errorf("disarm SIMULATE-FAILURE on %s: %w", h, err)
				}
			}
		}
		return b3Finish(ctx, e, crashed, crashAt, others)
	}
}

// b3Finish waits until one of the surviving sentinels names a new master,
// records how long after the crash, and restarts the crashed sentinel.
func b3Finish(ctx context.Context, e *Env, crashed string, crashAt time.Time, others []string) error {
	_, err := e.WaitSwitch(ctx, "h1", 90*time.Second, others...)
	if err != nil {
		e.Set("switch_after_crash_s", -1)
	} else {
		e.Set("switch_after_crash_s", secs(time.Since(crashAt)))
	}
	serr := e.Top.StartSentinel(crashed)
	e.Heal()
	if err != nil {
		return err
	}
	return serr
}

// b3KillSchedule SIGKILLs the failover leader when it publishes a seeded
// random failover state.
func b3KillSchedule(ctx context.Context, e *Env) error {
	pick := e.Rand.IntN(len(failoverStates))
	e.Set("kill_state", float64(pick))
	e.Note("kill the leader at %s", failoverStates[pick])
	w := watchSentinelEvents(ctx, e.Top, e.Top.SentinelHosts)
	defer w.stop()
	// Let the subscriptions settle before the fault.
	if err := e.Sleep(ctx, 500*time.Millisecond); err != nil {
		return err
	}
	if err := e.Jitter(ctx, 500*time.Millisecond); err != nil {
		return err
	}
	e.Fault()
	if err := e.Top.Kill("redis-h1"); err != nil {
		return err
	}
	leader := ""
	var seen []workload.Event // the leader's events, handed to the checker
	timeout := time.After(60 * time.Second)
	for {
		var ev sentinelEvent
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timeout:
			return fmt.Errorf("the leader never published %s", failoverStates[pick])
		case ev = <-w.C:
		}
		if ev.Channel == "+elected-leader" && leader == "" {
			leader = ev.Host
		}
		if leader != "" && ev.Host == leader {
			seen = append(seen, workload.Event{At: ev.At, Sentinel: "sentinel-" + ev.Host, Channel: ev.Channel, Payload: ev.Payload})
		}
		if leader == "" || ev.Host != leader || ev.Channel != failoverStates[pick] {
			continue
		}
		break
	}
	killAt := time.Now()
	if err := e.Top.Kill("sentinel-" + leader); err != nil {
		return err
	}
	e.Note("SIGKILLed the leader sentinel-%s at %s", leader, failoverStates[pick])
	e.Observed(seen...)
	var others []string
	for _, h := range e.Top.SentinelHosts {
		if h != leader {
			others = append(others, h)
		}
	}
	return b3Finish(ctx, e, leader, killAt, others)
}

// b3Post counts redis nodes ever sampled as a replica of themselves (a
// REPLICAOF aimed at the node itself, redis 821a986) and whether a
// sentinel other than the crashed leader ended a failover.
func b3Post(r *RunResult, in *workload.Input, top *Topology) {
	self := 0
	for _, s := range in.Samples {
		if s.Kind == workload.KindRedis && s.Role == "slave" && s.MasterOf != "" && top.HostOf(s.MasterOf) == s.Target {
			self++
		}
	}
	r.Extra["self_replicaof"] = float64(self)
	leaders := map[string]bool{}
	for _, ev := range in.Events {
		if ev.Channel == "+elected-leader" {
			leaders[ev.Sentinel] = true
		}
	}
	r.Extra["leaders"] = float64(len(leaders))
}

func b3Criteria() []Criterion {
	return []Criterion{extraEquals("self_replicaof", 0, "no self-REPLICAOF"),
		{Name: fmt.Sprintf("another sentinel finishes <= %.0f s after the crash", b3Bound), Check: func(r *RunResult) (bool, string) {
			v, ok := r.Extra["switch_after_crash_s"]
			return ok && v >= 0 && v <= b3Bound, fmt.Sprintf("switch_after_crash_s = %g", v)
		}}}
}

func init() {
	register(&Scenario{
		ID: "B3", Title: "leader crashes after its election", ExpectFailover: true, Settle: 40 * time.Second,
		Fault:    "SENTINEL SIMULATE-FAILURE crash-after-election on every sentinel (disarmed on the others once the elected leader exits), SIGKILL the master; restart the crashed sentinel after the switch",
		Expected: "another sentinel finishes the failover after failover-timeout",
		Schedule: b3SimSchedule("crash-after-election"),
		Post:     b3Post,
		Criteria: b3Criteria(),
	}, &Scenario{
		ID: "B3p", Title: "leader crashes after promoting the replica", ExpectFailover: true, Settle: 40 * time.Second,
		Fault:    "as B3 with crash-after-promotion: the replica is already master when the leader exits",
		Expected: "another sentinel finishes the failover after failover-timeout; no self-REPLICAOF",
		Schedule: b3SimSchedule("crash-after-promotion"),
		Post:     b3Post,
		Criteria: b3Criteria(),
	}, &Scenario{
		ID: "B3k", Title: "leader SIGKILLed at a random failover state", ExpectFailover: true, Settle: 40 * time.Second,
		Fault:    "SIGKILL the master, then SIGKILL the failover leader when it publishes a seeded random state (+elected-leader … +slave-reconf-sent); restart it after the switch",
		Expected: "the others finish (via its hello if it got that far, else after failover-timeout)",
		Schedule: b3KillSchedule,
		Post:     b3Post,
		Criteria: b3Criteria(),
	})
}
