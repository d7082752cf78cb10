package core

import (
	"math/rand/v2"
	"sort"
)

// Sentinel is one sentinel's algorithm state. It is not safe for concurrent
// use: one goroutine owns it (see the package doc).
type Sentinel struct {
	rng *rand.Rand

	myid         string
	currentEpoch uint64
	timing       Timing

	masters map[string]*master

	tilt bool

	persist persistState
}

type master struct {
	name string
}

type persistState struct {
	doneSeq uint64
}

func newSentinel(cfg Config, rng *rand.Rand) (*Sentinel, error) {
	s := &Sentinel{rng: rng, masters: map[string]*master{}}
	return s, nil
}

func (s *Sentinel) step(now Millis, ev Event) []Effect { return nil }

func (s *Sentinel) sortedMasters() []*master {
	out := make([]*master, 0, len(s.masters))
	for _, m := range s.masters {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func (s *Sentinel) masterView(m *master) MasterView { return MasterView{Name: m.name} }
func (s *Sentinel) snapshot() State                 { return State{} }
func (s *Sentinel) nextDeadline(now Millis) Millis  { return now + 100 }
func (s *Sentinel) infoSection(now Millis) string   { return "" }
