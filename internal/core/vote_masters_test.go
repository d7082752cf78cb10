package core

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// newTwoMasterCore is a core monitoring masters "a" (config epoch 0) and
// "b" (config epoch 8: b failed over in epoch 8), both seen S_DOWN.
func newTwoMasterCore(t *testing.T) *Sentinel {
	t.Helper()
	peers := []KnownSentinel{
		{Addr: Addr{Host: "127.0.0.1", Port: 26380}, RunID: peerB},
		{Addr: Addr{Host: "127.0.0.1", Port: 26381}, RunID: peerC},
	}
	s, err := New(Config{
		State: State{
			MyID: testMyID,
			Masters: []MasterConfig{
				{Name: "a", Addr: Addr{Host: "127.0.0.1", Port: 6379}, Quorum: 2, KnownSentinels: peers},
				{Name: "b", Addr: Addr{Host: "127.0.0.1", Port: 6479}, Quorum: 2, KnownSentinels: peers, ConfigEpoch: 8},
			},
		},
		Port: 26379,
	}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	s.Step(0, Tick{})
	// Both masters S_DOWN in our view: the vote gate (votegate.go) lets
	// the requests through.
	for _, m := range s.masters {
		m.flags |= fSDown
		m.sdownSince = s.now
	}
	return s
}

// TestVotesArePerMaster: when many masters fail at once, elections of
// different masters use different epochs; a vote for master a in epoch 20
// must not make us refuse master c's election in epoch 12 (sentinel.c
// does: its current epoch is 20 by then). One vote per master and epoch
// still holds, and a request no newer than a failover we know of (the
// master's config epoch) is refused.
func TestVotesArePerMaster(t *testing.T) {
	s := newTwoMasterCore(t)
	ask := func(now Millis, id uint64, port, epoch, runid string) string {
		t.Helper()
		resp, effs := request(s, now, id, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", port, epoch, runid)
		if ps := effectsOf[Persist](effs); len(ps) > 0 {
			resp = effectsOf[Respond](s.Step(now, PersistDone{Seq: ps[len(ps)-1].Seq}))
		}
		if len(resp) != 1 {
			t.Fatalf("ask %s epoch %s: %v", port, epoch, resp)
		}
		return renderValue(resp[0].Value)
	}
	steps := []struct {
		port, epoch, runid, want string
	}{
		{"6379", "20", peerB, `[:1 "` + peerB + `" :20]`},
		// b failed over in epoch 8: epoch 12 is newer, and a's epoch 20
		// does not matter.
		{"6479", "12", peerC, `[:1 "` + peerC + `" :12]`},
		// one vote per master and epoch
		{"6479", "12", peerB, `[:1 "` + peerC + `" :12]`},
		{"6479", "11", peerB, `[:1 "` + peerC + `" :12]`},
		{"6479", "13", peerB, `[:1 "` + peerB + `" :13]`},
		{"6379", "20", peerC, `[:1 "` + peerB + `" :20]`},
	}
	for k, st := range steps {
		if got := ask(Millis(10+k), uint64(k+1), st.port, st.epoch, st.runid); got != st.want {
			t.Errorf("step %d (%s epoch %s for %s): got %s, want %s", k, st.port, st.epoch, st.runid[:1], got, st.want)
		}
	}
	if s.CurrentEpoch() != 20 {
		t.Errorf("current epoch %d, want 20", s.CurrentEpoch())
	}
}

// TestVoteRefusedAtOrBelowConfigEpoch: a request for a master in an
// epoch no newer than its last failover (config epoch) comes from a stale
// candidate and gets no vote, even if we never voted for that master.
func TestVoteRefusedAtOrBelowConfigEpoch(t *testing.T) {
	s := newTwoMasterCore(t)
	for k, epoch := range []string{"5", "8"} {
		resp, effs := request(s, Millis(10+k), uint64(k+1), "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6479", epoch, peerB)
		if ps := effectsOf[Persist](effs); len(ps) > 0 {
			resp = effectsOf[Respond](s.Step(Millis(10+k), PersistDone{Seq: ps[len(ps)-1].Seq}))
		}
		if len(resp) != 1 || renderValue(resp[0].Value) != `[:1 "*" :0]` {
			t.Errorf("epoch %s: got %v, want no vote", epoch, resp)
		}
	}
}

// TestNewEpochEventsInOrder: an epoch adopted from a hello while the epoch
// of our vote waits for its Persist is published after it, so subscribers
// see +new-epoch rise (lab B9: 44 then 40 when many masters failed at
// once).
func TestNewEpochEventsInOrder(t *testing.T) {
	s := newTestCore(t)
	seeMasterDown(s)
	resp, effs := request(s, 10, 1, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "5", peerB)
	if len(resp) != 0 {
		t.Fatalf("vote reply before its Persist: %v", resp)
	}
	first := persistOf(t, effs)
	var published []string
	collect := func(effs []Effect) {
		for _, e := range effectsOf[Emit](effs) {
			if e.Type == "+new-epoch" {
				published = append(published, e.Msg)
			}
		}
	}
	collect(effs)
	_, effs = request(s, 11, 2, "PUBLISH", HelloChannel, helloFrom("127.0.0.1", 26380, peerB, 7, "127.0.0.1", 6379, 0))
	collect(effs)
	if len(published) != 0 {
		t.Fatalf("+new-epoch %v published before the held +new-epoch 5", published)
	}
	seq := first.Seq
	for k := 0; k < 3 && len(published) < 2; k++ {
		effs = s.Step(Millis(12+k), PersistDone{Seq: seq})
		collect(effs)
		for _, p := range effectsOf[Persist](effs) {
			seq = p.Seq
		}
	}
	if strings.Join(published, " ") != "5 7" {
		t.Fatalf("+new-epoch published as %v, want [5 7]", published)
	}
}
