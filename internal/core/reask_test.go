package core

import (
	"strings"
	"testing"
)

// TestReaskOnPeerAsk: while we see the master SDOWN but not ODOWN, a
// peer's IS-MASTER-DOWN-BY-ADDR (a peer asks only when it sees the master
// SDOWN) makes us ask the peers whose last answer said "not down" at once,
// instead of FastAskPeriod later (docs/core.md decision 22).
func TestReaskOnPeerAsk(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	for _, si := range m.m.sentinels {
		l := si.link
		s.Step(1, LinkConnected{Link: l.id, Conn: l.cc, LocalIP: "127.0.0.1"})
	}
	isAsk := func(e Send) bool {
		return len(e.Args) == 6 && strings.EqualFold(e.Args[1], "is-master-down-by-addr")
	}
	ask := func(now Millis, id uint64) []Send {
		var out []Send
		for _, e := range effectsOf[Send](s.Step(now, Request{ID: id,
			Args: []string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "0", "*"}})) {
			if isAsk(e) {
				out = append(out, e)
			}
		}
		return out
	}
	if got := ask(10, 1); len(got) != 0 {
		t.Fatalf("master not SDOWN: asked the peers %v", got)
	}
	// SDOWN, not ODOWN; peer B last said "not down" 10 ms ago, C said "down".
	m.flags |= fSDown
	m.sdownSince = 20 + timeBase
	b, c := m.m.sentinels[peerB], m.m.sentinels[peerC]
	b.lastMDReplyTime, c.lastMDReplyTime = 10+timeBase, 10+timeBase
	c.flags |= fMasterDown
	got := ask(20, 2)
	if len(got) != 1 || got[0].Link != b.link.id || got[0].Args[5] != "*" {
		t.Fatalf("want one \"*\" ask to peer B, got %v", got)
	}
	if !b.askPending {
		t.Fatal("ask to B not marked pending")
	}
	if got := ask(21, 3); len(got) != 0 {
		t.Fatalf("asked again while an ask is pending: %v", got)
	}
	// ODOWN reached: the periodic asks take over.
	b.askPending = false
	m.flags |= fODown
	if got := ask(22, 4); len(got) != 0 {
		t.Fatalf("master ODOWN: asked the peers %v", got)
	}
}

// TestDownAskNotHeldBehindSave: a "*" IS-MASTER-DOWN-BY-ADDR (no vote
// requested) leaves in the step that asks, with the current epoch that is
// on disk, while a save of a newer epoch is in flight; a vote request
// still waits for it (docs/core.md decision 38; fault lab B9L: the ODOWN
// asks of 74 of 200 masters waited behind the saves of the first
// failovers' epochs).
func TestDownAskNotHeldBehindSave(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	for _, si := range m.m.sentinels {
		l := si.link
		s.Step(1, LinkConnected{Link: l.id, Conn: l.cc, LocalIP: "127.0.0.1"})
	}
	seeMasterDown(s)
	b, c := m.m.sentinels[peerB], m.m.sentinels[peerC]
	// Peer C asks for our vote in epoch 5: the vote is saved before it
	// is revealed, and the save is still in flight below.
	_, effs := request(s, 20, 1, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "5", peerC)
	p := persistOf(t, effs)
	if p.State.CurrentEpoch != 5 {
		t.Fatalf("persisted epoch %d, want 5", p.State.CurrentEpoch)
	}
	// Both peers answered "not down" and nothing is pending: peer B's
	// "*" ask makes us ask both again at once (reaskOnPeerAsk).
	for _, si := range []*instance{b, c} {
		si.askPending = false
		si.lastMDReplyTime = 20 + timeBase
		si.flags &^= fMasterDown
	}
	var asks []Send
	for _, e := range effectsOf[Send](s.Step(30, Request{ID: 2,
		Args: []string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "0", "*"}})) {
		if len(e.Args) == 6 && strings.EqualFold(e.Args[1], "is-master-down-by-addr") {
			asks = append(asks, e)
		}
	}
	if len(asks) != 2 {
		t.Fatalf("want two \"*\" asks sent at once while the save of epoch 5 is in flight, got %v", asks)
	}
	for _, a := range asks {
		if a.Args[5] != "*" || a.Args[4] != "0" {
			t.Fatalf("ask %v: want epoch 0 (the one on disk) and \"*\"", a.Args)
		}
	}
	s.Step(40, PersistDone{Seq: p.Seq})
	if s.persist.savedEpoch != 5 {
		t.Fatalf("saved epoch %d after the save, want 5", s.persist.savedEpoch)
	}
}
