package faultlab

import (
	"context"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// H6: the sentinels disagree. s1, the first sentinel in both clients'
// lists, is cut from everything but the old master h1 and keeps naming it;
// s2 and s3 lose h1 and fail over. h1 stays alive, reachable by the
// clients and role:master for 8 s after the switch, then s2 and s3 reach
// it again and demote it, while s1 (cut from h1 too by then, so that the
// hellos of s2 and s3 on h1 do not update it) still names it.
func init() {
	writers := []WriterSpec{
		{Name: "gs-plain", Host: "c1", Client: workload.ClientGosentinel, Mode: workload.ModePlain, Rate: 100},
		{Name: "gr-plain", Host: "c1", Client: workload.ClientGoRedis, Mode: workload.ModePlain, Rate: 100},
	}
	register(&Scenario{
		ID: "H6", Title: "sentinels disagree", ExpectFailover: true, Settle: 40 * time.Second,
		Setup: Setup{SeparateSentinels: true, Writers: writers},
		Fault: "s1 (first in the clients' lists) cut from h2, h3, s2, s3 but not h1; s2, s3 cut from h1 until 8 s after they fail over " +
			"(h1 alive and role:master meanwhile); then s1 cut from h1 too and s2, s3 healed: h1 demoted while s1 still names it; s1 healed 10 s later",
		Expected: "the client prefers the answer confirmed by ROLE, never caches an unverified master; 0 acked writes on a node reporting role:slave",
		Schedule: func(ctx context.Context, e *Env) error {
			s1, err := cutHosts(e, "s1", []string{"h2", "h3", "s2", "s3"}, true)
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
			switchAt := time.Now()
			// h1 keeps its role for a while: the clients that ask s1 get a
			// master that ROLE confirms, but that the majority left.
			if err := e.Sleep(ctx, 8*time.Second); err != nil {
				return err
			}
			if role, _, _, err := e.Top.Role(ctx, "h1"); err == nil {
				e.Set("h1_master_8s_after_switch", boolf(role == "master"))
			}
			// Now s1 loses h1 too, before s2 and s3 reach it again: else
			// their hellos on h1 would bring s1 the new configuration, and
			// s1 is to keep naming the old master.
			heal, err := e.Lab.CutBoth(e.Top.Host("s1"), e.Top.Host("h1"), netlab.Drop)
			if err != nil {
				return err
			}
			s1 = append(s1, e.Track(heal))
			if err := cut.run(); err != nil {
				return err
			}
			demoted := time.Time{}
			for end := time.Now().Add(30 * time.Second); time.Now().Before(end); {
				if role, _, _, err := e.Top.Role(ctx, "h1"); err == nil && role == "slave" {
					demoted = time.Now()
					break
				}
				if err := e.Sleep(ctx, 50*time.Millisecond); err != nil {
					return err
				}
			}
			if demoted.IsZero() {
				e.Note("h1 was not demoted within 30 s of the heal")
			} else {
				e.Set("h1_master_after_switch_s", secs(demoted.Sub(switchAt)))
				e.Set("demoted_at", unixAt(demoted))
			}
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
		Post: func(r *RunResult, in *workload.Input, top *Topology) {
			setAcksOnReplica(r, in, top)
			if at, ok := atUnix(r, "demoted_at"); ok && in.FinalMaster != "" {
				for w, d := range recoveryAfter(in, top, at, in.FinalMaster) {
					r.Extra["rto_after_demotion_"+w] = d
				}
			}
		},
		Criteria: []Criterion{noAckOnReplica(),
			extraEquals("s1_still_names_h1", 1, "s1 still names the old master after its demotion"),
			extraPerWriterAtMost("rto_after_demotion", []string{"gs-plain"}, 2, "our client: writes on the new master ≤ 2 s after the old master's demotion"),
			clientsRecoverWithin(2, true), ourClientNoLateStale()},
	})
}
