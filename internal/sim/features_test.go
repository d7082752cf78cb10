package sim

import (
	"strings"
	"testing"
)

// TestRoundThreeFeatures runs seeds with each round-three feature forced
// on (their fault kinds at a fixed weight; the rest of each seed as drawn):
// no violation, and the trace must show the feature at work — names moving
// and failing to resolve, NOAUTH/WRONGPASS between sentinels and both
// rotations completing, partial and full resyncs, SENTINEL RESET answered,
// peers dialed at their announced addresses — or the feature is not tested
// at all. (Rounds six and seven added operator-reset and
// sentinel-announce, round nine info-denied.)
func TestRoundThreeFeatures(t *testing.T) {
	n := 12
	if testing.Short() || raceEnabled {
		n = 4
	}
	for _, tc := range []struct {
		name  string
		set   func(o *Options)
		story []string
	}{
		{"hostnames", func(o *Options) {
			o.Hostnames, o.Misconfigured = true, false
			o.Faults.NameMove, o.Faults.NameUnresolvable = 3, 3
		}, []string{"moves from", "stops resolving", "resolves again"}},
		{"sentinel-auth", func(o *Options) {
			o.SentinelAuth = true
			o.Faults.SentinelAuthRotate, o.Faults.SentinelWrongPass = 2, 3
		}, []string{"-NOAUTH Authentication required.", "-WRONGPASS", "old sentinel passwords removed", "gets the right sentinel-pass again"}},
		{"psync", func(o *Options) {
			o.PSync, o.BacklogSize = true, o.ReplRate*1000
			o.Faults.ReplBurst = 3
		}, []string{"partial resync", "full resync", "output buffers overflow: true"}},
		// Round six and seven: SENTINEL RESET (O1) and the sentinels'
		// announce-ip / announce-port behind a NAT (N1): peers dialed and
		// discovered at the announced addresses.
		{"operator-reset", func(o *Options) {
			o.Faults.OperatorReset = 3
		}, []string{"+reset-master", "operator runs SENTINEL RESET *", "answers [\"SENTINEL\" \"RESET\""}},
		{"sentinel-announce", func(o *Options) {
			o.SentinelAnnounce, o.PreconfiguredPeers = true, false
		}, []string{"cmd sentinel 10.0.9.", "+sentinel sentinel", "10.0.9.2 30002 @"}},
		// Round nine: INFO denied (an ACL, -NOPERM) on every replica of
		// the first group before the healed-phase kill: the selection must
		// find no eligible replica (E1 checks a selection on the stale
		// INFO) and the failover must complete once INFO is allowed.
		{"info-denied", func(o *Options) {
			if !o.hasPromotable() {
				o.Priority[0] = 100
			}
			if o.InfoDenied == InfoDeniedNone {
				o.InfoDeniedFor = o.DownAfter + o.Timing.AskPeriod + 1000 + o.Timing.ElectionTimeout + 1000
				o.HealPhase += o.infoDenyLead() + o.InfoDeniedFor
			}
			o.InfoDenied, o.KillMasterAfterHeal = InfoDeniedAll, true
		}, []string{"operator's ACL denies INFO on redis", "-NOPERM this user has no permissions", "-failover-abort-no-good-slave",
			"operator's ACL allows INFO on redis", "liveness: failover done"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var all strings.Builder
			for seed := uint64(1); seed <= uint64(n); seed++ {
				o := NewOptions(seed)
				tc.set(&o)
				o.Plan = o.plan()
				r := RunOptions(o, Config{Trace: true})
				for _, v := range r.Violations {
					t.Errorf("%s", v)
				}
				all.WriteString(r.Trace)
			}
			for _, s := range tc.story {
				if !strings.Contains(all.String(), s) {
					t.Errorf("no trace of %q in %d seeds", s, n)
				}
			}
		})
	}
}
