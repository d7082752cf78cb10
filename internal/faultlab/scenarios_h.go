package faultlab

import (
	"context"
	"fmt"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

func init() {
	register(&Scenario{
		ID: "H1", Title: "client failover under load", ExpectFailover: true,
		Setup: Setup{Writers: []WriterSpec{
			{Name: "gs-plain", Host: "c1", Client: workload.ClientGosentinel, Mode: workload.ModePlain, Rate: 200},
			{Name: "gr-plain", Host: "c1", Client: workload.ClientGoRedis, Mode: workload.ModePlain, Rate: 200},
		}},
		Fault:    "SIGKILL the master under 400 writes/s",
		Expected: "client fails over ≤ RTO_conv + 2 s; in-flight writes reported unknown, never failed-but-applied",
		Schedule: func(ctx context.Context, e *Env) error {
			_, err := killMaster(ctx, e, "h1")
			e.Heal()
			return err
		},
		Criteria: []Criterion{clientsRecoverWithin(2, true), noMisclassified()},
	}, &Scenario{
		ID: "H2", Title: "client's sentinel silently blackholed, then failover", ExpectFailover: true, Settle: 40 * time.Second,
		Setup:    Setup{SeparateSentinels: true, Writers: []WriterSpec{{Name: "gs-plain", Host: "c1", Client: workload.ClientGosentinel, Mode: workload.ModePlain}, {Name: "gr-plain", Host: "c1", Client: workload.ClientGoRedis, Mode: workload.ModePlain}}},
		Fault:    "drop every packet from c1 to s1 (the clients' first sentinel), then SIGKILL the master",
		Expected: "the client notices the change within its refresh interval (10 s)",
		Schedule: func(ctx context.Context, e *Env) error {
			heal, err := e.Lab.Cut(e.Top.Host("c1"), e.Top.Host("s1"), netlab.Drop)
			if err != nil {
				return err
			}
			e.Track(heal)
			if err := e.Sleep(ctx, time.Second); err != nil {
				return err
			}
			if _, err := killMaster(ctx, e, "h1"); err != nil {
				return err
			}
			if err := e.Sleep(ctx, 15*time.Second); err != nil {
				return err
			}
			err = heal()
			e.Heal()
			return err
		},
		Criteria: []Criterion{{Name: "our client: RTO_client <= RTO_switch + 12 s", Check: func(r *RunResult) (bool, string) {
			w, ok := r.ByWriter["gs-plain"]
			sw := r.Figures.RTOSwitchS
			return ok && w.RTOClientS >= 0 && sw >= 0 && w.RTOClientS <= sw+12, fmt.Sprintf("RTO_switch %.2f, RTO_client %.2f", sw, w.RTOClientS)
		}}, ourClientNoLateStale()},
	}, &Scenario{
		ID: "H3", Title: "all sentinels down, master healthy",
		Fault:    "SIGKILL every sentinel for 15 s, then restart them",
		Expected: "traffic continues; no disconnect storm",
		Schedule: func(ctx context.Context, e *Env) error {
			e.Fault()
			for _, h := range e.Top.SentinelHosts {
				if err := e.Top.Kill("sentinel-" + h); err != nil {
					return err
				}
			}
			if err := e.Sleep(ctx, 15*time.Second); err != nil {
				return err
			}
			e.Heal()
			for _, h := range e.Top.SentinelHosts {
				if err := e.Top.StartSentinel(h); err != nil {
					return err
				}
			}
			return nil
		},
		// A write error is a write the client could not do on the master
		// (refused, connection lost, timed out, no master found). A WAIT
		// that counted fewer replicas than asked within its 100 ms after
		// the master executed the RPUSH is not one: it is replication
		// lag (§3.2's WAIT-all variant), the same with or without
		// sentinels, so it is counted apart (wait_short_during_outage).
		// go-redis's FailoverClient asks a sentinel for the master on
		// every new pool connection, so a write that needs the pool to
		// grow while every sentinel is down fails whichever sentinel
		// implementation is down: its errors are a property of
		// go-redis, reported apart (errors_during_outage_go_redis) and
		// not judged; the criterion judges our client's writers
		// (docs/reliability.md, H3).
		Post: func(r *RunResult, in *workload.Input, top *Topology) {
			bad, badGoRedis, ok, short := 0, 0, 0, 0
			for _, op := range in.Ops {
				if op.Invoke.Before(in.FaultAt) || op.Invoke.After(in.HealAt) {
					continue
				}
				switch {
				case op.Result == workload.ResultOK:
					ok++
				case op.Result == workload.ResultUnknown && op.Replicas >= 0:
					short++
				case r.ByWriter[op.Writer].Client == string(workload.ClientGoRedis):
					badGoRedis++
				default:
					bad++
				}
			}
			r.Extra["ok_during_outage"] = float64(ok)
			r.Extra["errors_during_outage"] = float64(bad)
			r.Extra["errors_during_outage_go_redis"] = float64(badGoRedis)
			r.Extra["wait_short_during_outage"] = float64(short)
		},
		Criteria: []Criterion{noFailover(), extraEquals("errors_during_outage", 0, "no write error of our client while the sentinels are down"),
			{Name: "writes continue", Check: func(r *RunResult) (bool, string) {
				return r.Extra["ok_during_outage"] > 0, fmt.Sprintf("ok_during_outage = %g", r.Extra["ok_during_outage"])
			}}},
	})
}
