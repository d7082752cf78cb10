package faultlab

import (
	"context"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
	"path"
	"sort"
	"time"
)

// Scenario is one named, seeded, repeatable row of the scorecard: a setup,
// a fault schedule and the pass criteria of §4.
type Scenario struct {
	ID, Title string
	// Fault and Expected are the scorecard's columns, for docs and reports.
	Fault, Expected string
	Setup           Setup
	// Mixed: the scenario also runs on mixed quorums.
	Mixed bool
	// ExpectFailover says whether a failover is expected (see Expected
	// failovers); failovers beyond them are false failovers.
	ExpectFailover bool
	// Failovers is how many failovers the schedule provokes when
	// ExpectFailover (default 1).
	Failovers int
	// AnyFailovers: a random schedule (C7) may cause any number of
	// failovers, none included; none is false and none is missing.
	AnyFailovers bool
	// Schedule injects the faults. It calls Env.Fault at the fault instant
	// and Env.Heal when the last fault is healed.
	Schedule func(ctx context.Context, e *Env) error
	// Settle bounds the wait for L1 after the schedule (default 30 s).
	Settle time.Duration
	// Observe keeps recording this long after L1 (default 2 s), for
	// scenarios whose point is what does not happen.
	Observe time.Duration
	// Criteria are the pass criteria beyond the global ones (no invariant
	// violation, no phantom, no crash, converged).
	Criteria []Criterion
	// Post computes scenario figures from what was recorded (events,
	// samples, config files), after Check and before the criteria.
	Post func(r *RunResult, in *workload.Input, top *Topology)
	// NoConverge: L1 is not required at the end (the schedule leaves a
	// fault in place on purpose).
	NoConverge bool
	// NotYet, when set, says why the scenario cannot run yet.
	NotYet string
	// Smoke: part of make lab-smoke.
	Smoke bool
	// Runs is the number of runs in the full lab (default 3).
	Runs int
	// Solo: with Options.Parallel > 1, a run of this scenario waits until
	// no other run is in progress and none starts until it ends (its
	// figures depend on having the machine's CPUs: B9's 150 redis
	// processes and sentinel CPU).
	Solo bool
}

// Criterion is one pass criterion: Check returns whether the run passes
// it and the figures that decided.
type Criterion struct {
	Name  string
	Check func(r *RunResult) (bool, string)
}

var registry = map[string]*Scenario{}

// register adds scenarios to the registry (from the scenarios_*.go files).
func register(ss ...*Scenario) {
	for _, s := range ss {
		if _, dup := registry[s.ID]; dup {
			panic("faultlab: duplicate scenario " + s.ID)
		}
		registry[s.ID] = s
	}
}

// Scenarios returns every registered scenario in scorecard order.
func Scenarios() []*Scenario {
	var out []*Scenario
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return idLess(out[i].ID, out[j].ID) })
	return out
}

// Lookup returns the scenario with the given id.
func Lookup(id string) (*Scenario, bool) {
	s, ok := registry[id]
	return s, ok
}

// SmokeIDs are the scenarios of make lab-smoke.
func SmokeIDs() []string {
	var out []string
	for _, s := range Scenarios() {
		if s.Smoke {
			out = append(out, s.ID)
		}
	}
	return out
}

// Select returns the scenarios whose id matches one of the glob patterns
// (path.Match syntax: "A*", "C1", "C?"), in scorecard order.
func Select(patterns []string) ([]*Scenario, error) {
	var out []*Scenario
	for _, s := range Scenarios() {
		for _, p := range patterns {
			ok, err := path.Match(p, s.ID)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, s)
				break
			}
		}
	}
	return out, nil
}

// idLess orders "A2" before "A10" and variants ("C1m") after their base.
func idLess(a, b string) bool {
	ga, na, sa := splitID(a)
	gb, nb, sb := splitID(b)
	if ga != gb {
		return ga < gb
	}
	if na != nb {
		return na < nb
	}
	return sa < sb
}

func splitID(id string) (group string, num int, suffix string) {
	i := 0
	for i < len(id) && (id[i] < '0' || id[i] > '9') {
		i++
	}
	group = id[:i]
	for i < len(id) && id[i] >= '0' && id[i] <= '9' {
		num = num*10 + int(id[i]-'0')
		i++
	}
	return group, num, id[i:]
}

func (s *Scenario) kinds(wanted []Kind) []Kind {
	var out []Kind
	for _, k := range wanted {
		if k.mixed() && !s.Mixed {
			continue
		}
		out = append(out, k)
	}
	return out
}

func (s *Scenario) settle() time.Duration {
	if s.Settle > 0 {
		return s.Settle
	}
	return 30 * time.Second
}

func (s *Scenario) observe() time.Duration {
	if s.Observe > 0 {
		return s.Observe
	}
	return 2 * time.Second
}

func (s *Scenario) expectedFailovers() int {
	if s.AnyFailovers {
		return 1 << 30
	}
	if !s.ExpectFailover {
		return 0
	}
	if s.Failovers > 0 {
		return s.Failovers
	}
	return 1
}
