package core

import (
	"math/rand/v2"
	"testing"
)

// testMyID is the myid of cores made by newTestCore.
const testMyID = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

// newTestCore returns a started core watching "mym" at 127.0.0.1:6379
// with quorum 2, one known replica and two known sentinels; tweaks change
// the master's configuration before the core starts.
func newTestCore(t testing.TB, tweaks ...func(*MasterConfig)) *Sentinel {
	t.Helper()
	mc := MasterConfig{
		Name: "mym", Addr: Addr{Host: "127.0.0.1", Port: 6379}, Quorum: 2,
		KnownReplicas: []Addr{{Host: "127.0.0.1", Port: 6380}},
		KnownSentinels: []KnownSentinel{
			{Addr: Addr{Host: "127.0.0.1", Port: 26380}, RunID: "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"},
			{Addr: Addr{Host: "127.0.0.1", Port: 26381}, RunID: "cccccccccccccccccccccccccccccccccccccccc"},
		},
	}
	for _, f := range tweaks {
		f(&mc)
	}
	s, err := New(Config{
		State: State{
			MyID:                testMyID,
			DenyScriptsReconfig: true,
			Masters:             []MasterConfig{mc},
		},
		Port: 26379,
	}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	s.Step(0, Tick{})
	return s
}

// effectsOf filters effects by type.
func effectsOf[T Effect](effs []Effect) []T {
	var out []T
	for _, e := range effs {
		if x, ok := e.(T); ok {
			out = append(out, x)
		}
	}
	return out
}

// reply runs a client request and returns the Respond effects.
func request(s *Sentinel, now Millis, id uint64, args ...string) ([]Respond, []Effect) {
	effs := s.Step(now, Request{ID: id, Args: args})
	return effectsOf[Respond](effs), effs
}

// seeMasterDown flags the test core's master S_DOWN, as if down-after had
// passed without a valid reply: a vote request is granted only then (the
// vote gate, votegate.go). The next Tick re-evaluates the flag.
func seeMasterDown(s *Sentinel) {
	m := s.masters["mym"]
	m.flags |= fSDown
	m.sdownSince = s.now
}

// andSaved answers the Persist in effs, and every one that follows, with
// success at now, and returns effs with what that released appended.
func andSaved(s *Sentinel, now Millis, effs []Effect) []Effect {
	for _, p := range effectsOf[Persist](effs) {
		effs = append(effs, s.Step(now, PersistDone{Seq: p.Seq})...)
	}
	for s.persist.inflight != 0 {
		effs = append(effs, s.Step(now, PersistDone{Seq: s.persist.inflight})...)
	}
	return effs
}
