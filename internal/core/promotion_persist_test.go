package core

import (
	"errors"
	"testing"
)

// TestPromotionWaitsForElectionPersist (sim E2, FINDINGS F6): SLAVEOF NO
// ONE is not sent while the election is unpersisted, is not held and
// dropped when that Persist fails (the state machine must not reach
// WAIT_PROMOTION for a command that never left), and goes out as soon as
// a later Persist succeeds.
func TestPromotionWaitsForElectionPersist(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	var r *instance
	for _, x := range m.sortedReplicas() {
		r = x
	}
	l := r.link
	l.cc, l.ccState, l.pc, l.pcState = 900, connUp, 901, connUp
	now := Millis(1000)
	s.Step(now, Tick{}) // flush whatever the start left dirty
	for _, p := range effectsOf[Persist](s.Step(now, Tick{})) {
		s.Step(now, PersistDone{Seq: p.Seq})
	}
	for s.persist.inflight != 0 {
		s.Step(now, PersistDone{Seq: s.persist.inflight})
	}

	// The election changed persisted state (epoch, vote) just before the
	// replica was selected.
	s.now = now + timeBase
	m.flags |= fFailoverInProgress
	m.m.failoverState = FailoverSelectSlave
	m.m.failoverStateChange = s.now
	s.currentEpoch++
	m.m.failoverEpoch = s.currentEpoch
	s.markDirty()
	m.m.promoted = r
	r.flags |= fPromoted
	m.m.noOneAfter = s.persist.needSeq
	m.m.failoverState = FailoverSendSlaveofNoOne

	noOne := func(effs []Effect) bool {
		for _, snd := range effectsOf[Send](effs) {
			if len(snd.Args) == 3 && snd.Args[0] == "SLAVEOF" && snd.Args[1] == "NO" {
				return true
			}
		}
		return false
	}
	effs := s.Step(now+10, Tick{})
	if noOne(effs) {
		t.Fatal("SLAVEOF NO ONE sent before the election was persisted")
	}
	if m.m.failoverState != FailoverSendSlaveofNoOne {
		t.Fatalf("state %v, want SEND_SLAVEOF_NOONE while the election is unpersisted", m.m.failoverState)
	}
	ps := effectsOf[Persist](effs)
	if len(ps) != 1 {
		t.Fatalf("%d Persist effects, want 1", len(ps))
	}
	effs = s.Step(now+20, PersistDone{Seq: ps[0].Seq, Err: errors.New("disk full")})
	if noOne(effs) || m.m.failoverState != FailoverSendSlaveofNoOne {
		t.Fatalf("after a failed Persist: NO ONE sent %v, state %v (want not sent, SEND_SLAVEOF_NOONE)", noOne(effs), m.m.failoverState)
	}
	var retry []Persist
	for at := now + 100; len(retry) == 0 && at < now+3000; at += 100 {
		retry = effectsOf[Persist](s.Step(at, Tick{}))
	}
	if len(retry) != 1 {
		t.Fatal("no Persist retried after the failure")
	}
	effs = s.Step(now+2500, PersistDone{Seq: retry[0].Seq})
	if !noOne(effs) {
		t.Fatal("SLAVEOF NO ONE not sent once the election was persisted")
	}
	if m.m.failoverState != FailoverWaitPromotion {
		t.Fatalf("state %v, want WAIT_PROMOTION", m.m.failoverState)
	}
}
