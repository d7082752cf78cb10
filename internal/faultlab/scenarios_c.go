package faultlab

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// bothSidesWriters is DefaultWriters plus both clients on the master's host.
func bothSidesWriters() []WriterSpec {
	return append(DefaultWriters(),
		WriterSpec{Name: "gs-h1", Host: "h1", Client: workload.ClientGosentinel, Mode: workload.ModePlain},
		WriterSpec{Name: "gr-h1", Host: "h1", Client: workload.ClientGoRedis, Mode: workload.ModePlain})
}

// heals collects heal functions and runs them all.
type heals []func() error

func (h heals) run() error {
	var errs []error
	for _, f := range h {
		if err := f(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// cutHosts drops traffic between host a and each of others (both
// directions with both, else only a's new connections to them, netlab.Cut)
// and returns the tracked heal. The cuts are loaded at once (CutMany).
func cutHosts(e *Env, a string, others []string, both bool) (heals, error) {
	var pairs [][2]*netlab.Host
	for _, o := range others {
		pairs = append(pairs, [2]*netlab.Host{e.Top.Host(a), e.Top.Host(o)})
	}
	heal, err := e.Lab.CutMany(pairs, netlab.Drop, both)
	if err != nil {
		return nil, err
	}
	return heals{e.Track(heal)}, nil
}

// cutSentinelsFromMaster cuts every sentinel host's packets to the master
// host (one way), with the given mode, all at once (CutMany: one after the
// other, under load, the second sentinel lost the master hundreds of ms
// after the fault mark, lab C6d).
func cutSentinelsFromMaster(e *Env, master string, mode netlab.CutMode) (heals, error) {
	var pairs [][2]*netlab.Host
	for _, s := range e.Top.SentinelHosts {
		pairs = append(pairs, [2]*netlab.Host{e.Top.Host(s), e.Top.Host(master)})
	}
	heal, err := e.Lab.CutMany(pairs, mode, false)
	if err != nil {
		return nil, err
	}
	return heals{e.Track(heal)}, nil
}

func c1Schedule(ctx context.Context, e *Env) error {
	if err := e.Jitter(ctx, 500*time.Millisecond); err != nil {
		return err
	}
	return isolateFor(ctx, e, "h1", 30*time.Second)
}

// isolateFor marks the fault, isolates host (with its processes) from every
// other host for d (drop), then heals and marks the heal.
func isolateFor(ctx context.Context, e *Env, host string, d time.Duration) error {
	e.Fault()
	heal, err := e.Lab.Isolate(e.Top.Hosts(host), netlab.Drop)
	if err != nil {
		return err
	}
	e.Track(heal)
	if err := e.Sleep(ctx, d); err != nil {
		return err
	}
	err = heal()
	e.Heal()
	return err
}

func c3Schedule(ctx context.Context, e *Env) error {
	if err := e.Jitter(ctx, 500*time.Millisecond); err != nil {
		return err
	}
	e.Fault()
	hs, err := cutSentinelsFromMaster(e, "h1", netlab.Drop)
	if err != nil {
		return err
	}
	if _, err := e.WaitSwitch(ctx, "h1", 40*time.Second); err != nil {
		return err
	}
	if err := e.Sleep(ctx, 15*time.Second); err != nil {
		return err
	}
	err = hs.run()
	e.Heal()
	return err
}

func c6Schedule(mode netlab.CutMode) func(ctx context.Context, e *Env) error {
	return func(ctx context.Context, e *Env) error {
		if err := e.Jitter(ctx, 500*time.Millisecond); err != nil {
			return err
		}
		e.Fault()
		hs, err := cutSentinelsFromMaster(e, "h1", mode)
		if err != nil {
			return err
		}
		if _, err := e.WaitSwitch(ctx, "h1", 40*time.Second); err != nil {
			return err
		}
		if err := e.Sleep(ctx, 3*time.Second); err != nil {
			return err
		}
		err = hs.run()
		e.Heal()
		return err
	}
}

func init() {
	register(&Scenario{
		ID: "C1", Title: "master isolated with its sentinel and clients", Smoke: true, Mixed: true, Runs: 10, ExpectFailover: true,
		Setup:    Setup{Writers: bothSidesWriters()},
		Fault:    "isolate h1 (master + its sentinel + writers on h1) for 30 s (Jepsen 2013)",
		Expected: "the majority fails over; the old master is demoted after the heal",
		Schedule: c1Schedule,
		Criteria: []Criterion{convAfterHealWithin(10)},
	}, &Scenario{
		ID: "C1m", Title: "C1 with min-replicas-to-write 1", ExpectFailover: true,
		Setup:    Setup{Writers: bothSidesWriters(), MinReplicas: 1},
		Fault:    "as C1, every redis has min-replicas-to-write 1, min-replicas-max-lag 10",
		Expected: "LostAck bounded by max-lag × write rate",
		Schedule: c1Schedule,
		Criteria: []Criterion{convAfterHealWithin(10)},
	}, &Scenario{
		ID: "C2", Title: "one sentinel isolated, quorum 1",
		Setup:    Setup{Quorum: 1},
		Fault:    "isolate h3 (a replica and its sentinel) for 30 s, master healthy, quorum 1",
		Expected: "the isolated sentinel cannot get elected",
		Schedule: func(ctx context.Context, e *Env) error {
			return isolateFor(ctx, e, "h3", 30*time.Second)
		},
		Criteria: []Criterion{noPromotion(), convAfterHealWithin(5)},
	}, &Scenario{
		ID: "C3", Title: "sentinels cut from the master only", Smoke: true, Runs: 10, ExpectFailover: true, Settle: 90 * time.Second,
		Setup:    Setup{SeparateSentinels: true},
		Fault:    "drop packets from every sentinel host (s1..s3) to h1; clients and replicas still reach h1; heal 15 s after the switch",
		Expected: "failover; split brain until a sentinel reaches the old master again",
		Schedule: c3Schedule,
		Criteria: []Criterion{convAfterHealWithin(10), ourClientNoLateStale()},
	}, &Scenario{
		ID: "C4", Title: "sentinel↔sentinel links cut, then the master killed", ExpectFailover: true, Settle: 40 * time.Second,
		Fault:    "drop every sentinel→sentinel packet on port 26379, SIGKILL the master, heal after 20 s",
		Expected: "no leader possible while cut; failover after the heal",
		Schedule: func(ctx context.Context, e *Env) error {
			var hs heals
			for _, a := range e.Top.SentinelHosts {
				for _, b := range e.Top.SentinelHosts {
					if a == b {
						continue
					}
					heal, err := e.Lab.CutPort(e.Top.Host(a), e.Top.Host(b), SentinelPort, netlab.Drop)
					if err != nil {
						return err
					}
					hs = append(hs, e.Track(heal))
				}
			}
			e.Fault()
			if err := e.Top.Kill("redis-h1"); err != nil {
				return err
			}
			if err := e.Sleep(ctx, 20*time.Second); err != nil {
				return err
			}
			e.Set("switched_during_cut", boolf(e.Master(ctx) != "h1"))
			if err := hs.run(); err != nil {
				return err
			}
			e.Heal()
			at := time.Now()
			if _, err := e.WaitSwitch(ctx, "h1", 30*time.Second); err != nil {
				e.Set("switch_after_heal_s", -1)
				return nil
			}
			e.Set("switch_after_heal_s", secs(time.Since(at)))
			return nil
		},
		Criteria: []Criterion{extraEquals("switched_during_cut", 0, "0 promotions while cut"),
			Criterion{Name: "failover <= 15 s after heal", Check: func(r *RunResult) (bool, string) {
				v, ok := r.Extra["switch_after_heal_s"]
				return ok && v >= 0 && v <= 15, fmt.Sprintf("switch_after_heal_s = %g", v)
			}}},
	}, &Scenario{
		ID: "C5", Title: "latency 0.8 × down-after on the master link", Observe: time.Second,
		Fault:    "delay 1.6 s ± 0.2 s on every sentinel host→h1:6379 path for 60 s (the scorecard says 5 min)",
		Expected: "no failover",
		Schedule: func(ctx context.Context, e *Env) error {
			e.Fault()
			var hs heals
			for _, s := range e.Top.SentinelHosts {
				if s == "h1" {
					continue
				}
				heal, err := e.Lab.Delay(e.Top.Host(s), e.Top.Host("h1"), RedisPort, 1600*time.Millisecond, 200*time.Millisecond)
				if err != nil {
					return err
				}
				hs = append(hs, e.Track(heal))
			}
			if err := e.Sleep(ctx, 60*time.Second); err != nil {
				return err
			}
			err := hs.run()
			e.Heal()
			return err
		},
		Criteria: []Criterion{noFailover()},
	}, &Scenario{
		ID: "C6d", Title: "silent blackhole of the master link", ExpectFailover: true,
		Setup:    Setup{SeparateSentinels: true, NoWriters: true},
		Fault:    "drop (no RST) every sentinel→master packet",
		Expected: "detection by timeout",
		Schedule: c6Schedule(netlab.Drop),
		Criteria: []Criterion{rtoDetectWithin(3)},
	}, &Scenario{
		ID: "C6r", Title: "RST on the master link", ExpectFailover: true,
		Setup:    Setup{SeparateSentinels: true, NoWriters: true},
		Fault:    "reject (TCP RST) every sentinel→master packet",
		Expected: "detection by timeout",
		Schedule: c6Schedule(netlab.Reject),
		Criteria: []Criterion{rtoDetectWithin(3)},
	}, &Scenario{
		ID: "C8", Title: "client asks a partitioned sentinel first", ExpectFailover: true, Settle: 40 * time.Second,
		Setup:    Setup{SeparateSentinels: true},
		Fault:    "s1 (first in the clients' list) cut from every redis and sentinel; s2, s3 cut from h1 until they fail over, then h1 is demoted while s1 still names it",
		Expected: "the client checks ROLE and moves on to the next sentinel",
		Schedule: func(ctx context.Context, e *Env) error {
			s1, err := cutHosts(e, "s1", []string{"h1", "h2", "h3", "s2", "s3"}, true)
			if err != nil {
				return err
			}
			if err := e.Jitter(ctx, 500*time.Millisecond); err != nil {
				return err
			}
			e.Fault()
			var cut heals
			for _, s := range []string{"s2", "s3"} {
				hs, err := cutHosts(e, s, []string{"h1"}, false)
				if err != nil {
					return err
				}
				cut = append(cut, hs...)
			}
			if _, err := e.WaitSwitch(ctx, "h1", 40*time.Second, "s2", "s3"); err != nil {
				return err
			}
			if err := cut.run(); err != nil {
				return err
			}
			demoted := false
			for end := time.Now().Add(20 * time.Second); time.Now().Before(end); {
				if role, _, _, err := e.Top.Role(ctx, "h1"); err == nil && role == "slave" {
					demoted = true
					break
				}
				if err := e.Sleep(ctx, 100*time.Millisecond); err != nil {
					return err
				}
			}
			e.Set("old_master_demoted", boolf(demoted))
			if m, err := e.Top.MasterHostBy(ctx, "s1"); err == nil {
				e.Set("s1_still_names_h1", boolf(m == "h1"))
			}
			if err := e.Sleep(ctx, 10*time.Second); err != nil {
				return err
			}
			err = s1.run()
			e.Heal()
			return err
		},
		Criteria: []Criterion{ourClientNoLateStale(), clientsRecoverWithin(2, true)},
	})
}
