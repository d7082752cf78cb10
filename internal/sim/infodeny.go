package sim

// This file is round nine's fault: an operator's ACL change denies INFO
// to the sentinels on the replicas of the first group (all of them, or
// the best-ranked one) while PING still gets through, just before the
// healed-phase failover, and allows it again later.
//
// It is the window replica selection's INFO rule (reference §15: a
// replica whose last INFO reply is older than 5×ping-period while the
// master is SDOWN, else 3×info-period, is not eligible) is about: the
// replica answers PING, so every other rule lets it through, and only its
// INFO age keeps it out. Without this fault the window opened only by
// chance (docs/sim.md, round eight: 1.3 % of seeds).
//
// In redis 7.0 `ACL SETUSER default -info` (or an ACL file pushed without
// +info) makes INFO answer -NOPERM on every connection of that user;
// PING, SLAVEOF, CONFIG, PUBLISH and the rest still run. sentinel.c's
// INFO callback refreshes info_refresh only on a string reply, and so
// does the core (reply.go); the checker's truth records only bulk INFO
// replies (truth.go).

import "math/rand/v2"

// InfoDenial says where the healed phase denies INFO (Options.InfoDenied).
type InfoDenial int

// Kinds of INFO denial.
const (
	InfoDeniedNone InfoDenial = iota
	// InfoDeniedAll denies INFO on every replica of the first group: no
	// replica is eligible until it is allowed again (the failover aborts
	// with no-good-slave and is retried).
	InfoDeniedAll
	// InfoDeniedBest denies INFO on the replica with the lowest non-zero
	// priority: another one must be selected, or none.
	InfoDeniedBest
)

// String names an INFO denial kind.
func (d InfoDenial) String() string {
	switch d {
	case InfoDeniedAll:
		return "every replica"
	case InfoDeniedBest:
		return "the best-priority replica"
	}
	return "none"
}

// noPermInfo is redis 7.0's reply to a command the user's ACL denies.
const noPermInfo = "NOPERM this user has no permissions to run the 'info' command or its subcommand"

// infoDenyLead is how long before the master is killed INFO is denied:
// the replicas' last INFO is then already older than selection's limit
// while the master is SDOWN (5×ping-period) when it dies.
func (o Options) infoDenyLead() int64 { return 5*o.Timing.PingPeriod + o.TickMax }

// drawFeatures9 draws round nine's INFO denial from a stream of its own,
// so every field drawn before keeps its value for every seed. A seed that
// draws it always kills the master in the healed phase (the denial is
// about that failover).
func (o *Options) drawFeatures9() {
	f := rand.New(rand.NewPCG(o.Seed, 0xfea7_0009))
	if f.IntN(4) != 0 || !o.hasPromotable() {
		return
	}
	o.InfoDenied = InfoDeniedAll
	if f.IntN(3) == 0 {
		o.InfoDenied = InfoDeniedBest
	}
	// Allowed again after the first election round is over: down-after,
	// the ODOWN asks, the start desync (< 1 s), the election, plus 0.5–2 s
	// and sometimes past a retry (2×failover-timeout later).
	o.InfoDeniedFor = o.DownAfter + o.Timing.AskPeriod + 1000 + o.Timing.ElectionTimeout + 500 + 500*int64(f.IntN(4))
	if f.IntN(4) == 0 {
		o.InfoDeniedFor += 2 * o.FailoverTimeout
	}
	o.KillMasterAfterHeal = true
}

// denyInfo starts the INFO denial on group 0 and returns the instances it
// touched (none when no replica qualifies).
func (w *World) denyInfo() []*instance {
	m := w.agreedMaster(0)
	if m == nil {
		return nil
	}
	var targets []*instance
	best := -1
	for _, r := range w.group(0) {
		if r == m || !r.isReplicaOf(m.addr) {
			continue
		}
		switch w.opt.InfoDenied {
		case InfoDeniedAll:
			targets = append(targets, r)
		case InfoDeniedBest:
			// The lowest non-zero priority, first in group order on a tie.
			if r.priority != 0 && (best < 0 || r.priority < best) {
				targets, best = []*instance{r}, r.priority
			}
		}
	}
	for _, r := range targets {
		w.tracef("fault: operator's ACL denies INFO on redis %s (PING still answered) for %dms after the kill", r.addr.IP, w.opt.InfoDeniedFor)
		r.infoDenied, r.infoDisturbed = true, w.sch.now
	}
	return targets
}

// allowInfo ends the INFO denial on the instances denyInfo touched.
func (w *World) allowInfo(targets []*instance) {
	for _, r := range targets {
		if r.infoDenied {
			w.tracef("operator's ACL allows INFO on redis %s again", r.addr.IP)
			r.infoDenied, r.infoDisturbed = false, w.sch.now
		}
	}
}
