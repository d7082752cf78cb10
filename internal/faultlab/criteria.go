package faultlab

import (
	"fmt"
	"sort"
	"strings"
)

// rtoSwitchWithin: a +switch-master within max seconds of the fault.
func rtoSwitchWithin(max float64) Criterion {
	return Criterion{Name: fmt.Sprintf("RTO_switch <= %.0f s", max), Check: func(r *RunResult) (bool, string) {
		v := r.Figures.RTOSwitchS
		return v >= 0 && v <= max, fmt.Sprintf("RTO_switch %.2f s", v)
	}}
}

// rtoDetectWithin: a +odown within max seconds of the fault.
func rtoDetectWithin(max float64) Criterion {
	return Criterion{Name: fmt.Sprintf("RTO_detect <= %.1f s", max), Check: func(r *RunResult) (bool, string) {
		v := r.Figures.RTODetectS
		return v >= 0 && v <= max, fmt.Sprintf("RTO_detect %.2f s", v)
	}}
}

// convAfterHealWithin: L1 within max seconds of the heal.
func convAfterHealWithin(max float64) Criterion {
	return Criterion{Name: fmt.Sprintf("L1 <= %.0f s after heal", max), Check: func(r *RunResult) (bool, string) {
		v := r.Figures.ConvAfterHealS
		return v >= 0 && v <= max, fmt.Sprintf("L1 %.2f s after heal", v)
	}}
}

// oneSwitchPerSentinel: every sentinel that saw a switch saw exactly one.
func oneSwitchPerSentinel(skip ...string) Criterion {
	return Criterion{Name: "exactly 1 +switch-master per sentinel", Check: func(r *RunResult) (bool, string) {
		ok := true
		var parts []string
		var names []string
		for n := range r.Figures.SwitchesBy {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			c := r.Figures.SwitchesBy[n]
			parts = append(parts, fmt.Sprintf("%s:%d", n, c))
			if c != 1 && !contains(skip, n) {
				ok = false
			}
		}
		if len(names) == 0 {
			ok = false
		}
		return ok, strings.Join(parts, " ")
	}}
}

// noFailover: no promotion and no epoch burned.
func noFailover() Criterion {
	return Criterion{Name: "0 failovers, 0 epochs burned", Check: func(r *RunResult) (bool, string) {
		f := r.Figures
		return f.Failovers == 0 && f.EpochsBurned == 0, fmt.Sprintf("failovers %d, epochs burned %d", f.Failovers, f.EpochsBurned)
	}}
}

// noPromotion: no promotion (epochs may be burned).
func noPromotion() Criterion {
	return Criterion{Name: "0 promotions", Check: func(r *RunResult) (bool, string) {
		return r.Figures.Failovers == 0, fmt.Sprintf("failovers %d (epochs burned %d)", r.Figures.Failovers, r.Figures.EpochsBurned)
	}}
}

// extraAtMost: a schedule figure is present and ≤ max.
func extraAtMost(name string, max float64, label string) Criterion {
	return Criterion{Name: label, Check: func(r *RunResult) (bool, string) {
		v, ok := r.Extra[name]
		if !ok {
			return false, name + " not measured"
		}
		if v < 0 {
			// A time the schedule never measured is recorded as -1
			// ("never": B9 all_converged_s, A8 switch_after_eligible_s):
			// it fails a bound, it does not meet it.
			return false, name + " = never"
		}
		return v <= max, fmt.Sprintf("%s = %g", name, v)
	}}
}

// extraEquals: a schedule figure is present and equal to want.
func extraEquals(name string, want float64, label string) Criterion {
	return Criterion{Name: label, Check: func(r *RunResult) (bool, string) {
		v, ok := r.Extra[name]
		if !ok {
			return false, name + " not measured"
		}
		return v == want, fmt.Sprintf("%s = %g", name, v)
	}}
}

// ourClientNoLateStale: the gosentinel client's writers acknowledge no
// write from a node more than 1 s after the sentinels switched away from it.
func ourClientNoLateStale() Criterion {
	return Criterion{Name: "our client: 0 acks > 1 s after the switch", Check: func(r *RunResult) (bool, string) {
		n := 0
		var parts []string
		for name, w := range r.ByWriter {
			if w.Client == "gosentinel-client" {
				n += w.StaleAcksLate
				parts = append(parts, fmt.Sprintf("%s:%d", name, w.StaleAcksLate))
			}
		}
		sort.Strings(parts)
		return n == 0, "late stale acks " + strings.Join(parts, " ")
	}}
}

// clientsRecoverWithin: every writer has an ok write after the fault, at
// most slack seconds after L1 (RTO_conv).
func clientsRecoverWithin(slack float64, onlyOurs bool) Criterion {
	name := fmt.Sprintf("RTO_client <= RTO_conv + %.0f s", slack)
	if onlyOurs {
		name = "our client: " + name
	}
	return Criterion{Name: name, Check: func(r *RunResult) (bool, string) {
		ok := true
		var parts []string
		conv := r.Figures.RTOConvS
		for n, w := range r.ByWriter {
			if (onlyOurs && w.Client != "gosentinel-client") || w.Mode == "waitall" {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s:%.2f", n, w.RTOClientS))
			if w.RTOClientS < 0 || (conv >= 0 && w.RTOClientS > conv+slack) {
				ok = false
			}
		}
		sort.Strings(parts)
		return ok, fmt.Sprintf("RTO_conv %.2f; %s", conv, strings.Join(parts, " "))
	}}
}

// noMisclassified: no write recorded "fail" is in the final read (an
// in-flight write must be reported unknown, not failed).
func noMisclassified() Criterion {
	return Criterion{Name: "no failed write applied", Check: func(r *RunResult) (bool, string) {
		n := 0
		for _, w := range r.ByWriter {
			n += w.FailedApplied
		}
		return n == 0, fmt.Sprintf("failed-but-applied %d", n)
	}}
}
