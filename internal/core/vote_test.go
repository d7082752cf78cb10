package core

import (
	"errors"
	"strings"
	"testing"
)

const (
	peerB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	peerC = "cccccccccccccccccccccccccccccccccccccccc"
)

func persistOf(t *testing.T, effs []Effect) Persist {
	t.Helper()
	ps := effectsOf[Persist](effs)
	if len(ps) != 1 {
		t.Fatalf("want exactly one Persist, got %d in %v", len(ps), effs)
	}
	return ps[0]
}

// TestVotePersistedBeforeReply pins sentinelVoteLeader + the
// persist-before-reveal contract: the vote reply leaves only after the
// runtime reports the Persist that contains it.
func TestVotePersistedBeforeReply(t *testing.T) {
	s := newTestCore(t)
	seeMasterDown(s)
	resp, effs := request(s, 10, 1, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "5", peerB)
	if len(resp) != 0 {
		t.Fatalf("vote reply revealed before persist: %v", resp)
	}
	p := persistOf(t, effs)
	if p.State.CurrentEpoch != 5 || p.State.Masters[0].LeaderEpoch != 5 || p.State.Masters[0].Leader != peerB {
		t.Fatalf("persisted state lacks the vote: %+v", p.State)
	}
	// +new-epoch and +vote-for-leader reveal the vote too (issue 15 item
	// 6): held with the reply.
	if emits := effectsOf[Emit](effs); len(emits) != 0 {
		t.Fatalf("events revealed before persist: %+v", emits)
	}
	// A stale PersistDone does not release anything.
	if got := s.Step(11, PersistDone{Seq: p.Seq + 7}); len(effectsOf[Respond](got)) != 0 || len(effectsOf[Emit](got)) != 0 {
		t.Fatalf("released by a wrong seq: %v", got)
	}
	done := s.Step(12, PersistDone{Seq: p.Seq})
	got := effectsOf[Respond](done)
	if len(got) != 1 || renderValue(got[0].Value) != `[:1 "`+peerB+`" :5]` {
		t.Fatalf("reply after persist: %v", got)
	}
	// Released in their order, before the reply, with the time they
	// happened.
	emits := effectsOf[Emit](done)
	if len(emits) != 2 || emits[0].Type != "+new-epoch" || emits[0].Msg != "5" ||
		emits[1].Type != "+vote-for-leader" || emits[1].Msg != peerB+" 5" || emits[0].At != 10 || emits[1].At != 10 {
		t.Fatalf("events after persist: %+v", emits)
	}
	if _, ok := done[0].(Emit); !ok {
		t.Fatalf("reply before the events: %v", done)
	}
	if s.PersistedSeq() != p.Seq {
		t.Fatalf("PersistedSeq = %d", s.PersistedSeq())
	}
}

// TestOneVotePerEpoch: a second candidate in the same epoch gets the
// stored vote; a higher epoch gets a new vote.
func TestOneVotePerEpoch(t *testing.T) {
	s := newTestCore(t)
	seeMasterDown(s)
	_, effs := request(s, 10, 1, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "5", peerB)
	s.Step(11, PersistDone{Seq: persistOf(t, effs).Seq})

	tests := []struct {
		epoch, runid, want string
		persists           bool
	}{
		{"5", peerC, `[:1 "` + peerB + `" :5]`, false},
		{"4", peerC, `[:1 "` + peerB + `" :5]`, false},
		{"5", "*", `[:1 "*" :0]`, false},
		{"6", peerC, `[:1 "` + peerC + `" :6]`, true},
	}
	for k, tt := range tests {
		resp, effs := request(s, Millis(20+k), uint64(10+k), "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", tt.epoch, tt.runid)
		if ps := effectsOf[Persist](effs); len(ps) > 0 {
			if !tt.persists {
				t.Fatalf("case %d: unexpected persist", k)
			}
			resp = effectsOf[Respond](s.Step(Millis(20+k), PersistDone{Seq: ps[0].Seq}))
		}
		if len(resp) != 1 || renderValue(resp[0].Value) != tt.want {
			t.Fatalf("case %d: got %v, want %s", k, resp, tt.want)
		}
	}
	if s.CurrentEpoch() != 6 {
		t.Fatalf("epoch %d", s.CurrentEpoch())
	}
}

// TestVoteReplyOnPersistFailure: the reply must not reveal a vote that is
// not on disk.
func TestVoteReplyOnPersistFailure(t *testing.T) {
	s := newTestCore(t)
	seeMasterDown(s)
	_, effs := request(s, 10, 1, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "3", peerB)
	p := persistOf(t, effs)
	effs = s.Step(11, PersistDone{Seq: p.Seq, Err: errors.New("disk full")})
	resp := effectsOf[Respond](effs)
	if len(resp) != 1 || renderValue(resp[0].Value) != `[:1 "*" :0]` {
		t.Fatalf("reply: %v", resp)
	}
	// The state is retried later, not before the back-off.
	if ps := effectsOf[Persist](s.Step(12, Tick{})); len(ps) != 0 {
		t.Fatalf("retried immediately")
	}
	if ps := effectsOf[Persist](s.Step(11+persistRetryDelay, Tick{})); len(ps) != 1 || ps[0].Seq != p.Seq+1 {
		t.Fatalf("no retry: %v", ps)
	}
}

// TestPersistCoalesces: at most one Persist in flight; changes made
// meanwhile go into one next Persist.
func TestPersistCoalesces(t *testing.T) {
	s := newTestCore(t)
	_, effs := request(s, 10, 1, "SENTINEL", "flushconfig")
	p1 := persistOf(t, effs)
	for k := 0; k < 3; k++ {
		_, effs = request(s, 11, uint64(2+k), "SENTINEL", "set", "mym", "quorum", "3")
		if len(effectsOf[Persist](effs)) != 0 || len(effectsOf[Respond](effs)) != 0 {
			t.Fatalf("persist or reply while one is in flight: %v", effs)
		}
	}
	effs = s.Step(12, PersistDone{Seq: p1.Seq})
	if r := effectsOf[Respond](effs); len(r) != 1 || r[0].ID != 1 {
		t.Fatalf("flushconfig reply: %v", r)
	}
	p2 := persistOf(t, effs)
	if p2.Seq != p1.Seq+1 || p2.State.Masters[0].Quorum != 3 {
		t.Fatalf("second persist: %+v", p2)
	}
	r := effectsOf[Respond](s.Step(13, PersistDone{Seq: p2.Seq}))
	if len(r) != 3 {
		t.Fatalf("want the 3 SET replies, got %v", r)
	}
}

// TestFlushconfigFailure replies the sentinel.c error when the write fails.
func TestFlushconfigFailure(t *testing.T) {
	s := newTestCore(t)
	_, effs := request(s, 10, 1, "SENTINEL", "flushconfig")
	r := effectsOf[Respond](s.Step(11, PersistDone{Seq: persistOf(t, effs).Seq, Err: errors.New("EACCES")}))
	if len(r) != 1 || renderValue(r[0].Value) != "-ERR Failed to save config file. Check server logs." {
		t.Fatalf("reply: %v", r)
	}
}

// TestIsMasterDownReplyParsing pins sentinelReceiveIsMasterDownReply: only
// [int, string, int] is accepted.
func TestIsMasterDownReplyParsing(t *testing.T) {
	s := newTestCore(t)
	si := s.masters["mym"].m.sentinels[peerB]
	tests := []struct {
		v          Value
		down       bool
		leader     string
		leaderEpoc uint64
	}{
		{Array(Int(1), Bulk("*"), Int(0)), true, "", 0},
		{Array(Int(1), Bulk(peerC), Int(4)), true, peerC, 4},
		{Array(Int(0), Bulk("*"), Int(9)), false, peerC, 4},
		{Array(Int(1), Int(2), Int(9)), false, peerC, 4}, // malformed: ignored
		{Bulk("garbage"), false, peerC, 4},
	}
	for k, tt := range tests {
		s.onIsMasterDownReply(si, tt.v)
		if (si.flags&fMasterDown != 0) != tt.down || si.votedLeader != tt.leader || si.votedLeaderEpoch != tt.leaderEpoc {
			t.Fatalf("case %d: down=%v leader=%q/%d", k, si.flags&fMasterDown != 0, si.votedLeader, si.votedLeaderEpoch)
		}
	}
}

// TestLeaderCountsOnlyItsEpoch is the regression test for sim seed 763: a
// failover of epoch 4 must not be won with votes peers cast in epoch 5.
func TestLeaderCountsOnlyItsEpoch(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	s.currentEpoch = 5
	m.m.ourVote, m.m.ourVoteEpoch = testMyID, 4 // our own vote, epoch 4
	for _, si := range m.sortedSentinels() {
		si.votedLeader, si.votedLeaderEpoch = testMyID, 5
	}
	if w := s.getLeader(m, 4); w != "" {
		t.Fatalf("elected %q in epoch 4 with epoch-5 votes", w)
	}
	for _, si := range m.sortedSentinels() {
		si.votedLeaderEpoch = 4
	}
	if w := s.getLeader(m, 4); w != testMyID {
		t.Fatalf("not elected with 3 epoch-4 votes: %q", w)
	}
}

// TestNoVoteReplyNotHeld: a "*" request is answered at once even while a
// persist is pending, since the reply reveals no vote and no epoch.
func TestNoVoteReplyNotHeld(t *testing.T) {
	s := newTestCore(t)
	_, effs := request(s, 10, 1, "SENTINEL", "flushconfig") // a Persist in flight
	if len(effectsOf[Persist](effs)) != 1 {
		t.Fatal("no persist")
	}
	resp, _ := request(s, 11, 2, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "9", "*")
	if len(resp) != 1 || renderValue(resp[0].Value) != `[:0 "*" :0]` {
		t.Fatalf("reply %v", resp)
	}
	if s.CurrentEpoch() != 0 {
		t.Fatalf("a * request changed the epoch to %d", s.CurrentEpoch())
	}
}

// TestRealSentinelTranscript replays requests sent to a real
// redis-sentinel 7.0.15 (fresh, epoch 0, healthy master) and the replies
// it gave, recorded with redis-cli. Real Sentinel votes for a master it
// sees healthy; gosentinel deliberately does not (the vote gate,
// votegate.go, docs/core.md): with the master up it answers the same
// requests "no vote" and keeps epoch 0, and once it sees the master
// S_DOWN it answers as the transcript does, but for the down bit (1: the
// transcript's master was up).
func TestRealSentinelTranscript(t *testing.T) {
	const cand = "abcdabcdabcdabcdabcdabcdabcdabcdabcdabcd"
	steps := []struct {
		args       []string
		real, upUs string
	}{
		{[]string{"0", "*"}, `[:0 "*" :0]`, `[:0 "*" :0]`},
		{[]string{"7", cand}, `[:0 "` + cand + `" :7]`, `[:0 "*" :0]`},
		{[]string{"7", peerB}, `[:0 "` + cand + `" :7]`, `[:0 "*" :0]`},
	}
	for _, down := range []bool{false, true} {
		s := newTestCore(t)
		if down {
			seeMasterDown(s)
		}
		for k, st := range steps {
			want := st.upUs
			if down {
				want = strings.Replace(st.real, "[:0", "[:1", 1)
			}
			args := append([]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379"}, st.args...)
			resp, effs := request(s, Millis(10+k), uint64(k+1), args...)
			for _, p := range effectsOf[Persist](effs) {
				resp = append(resp, effectsOf[Respond](s.Step(Millis(10+k), PersistDone{Seq: p.Seq}))...)
			}
			if len(resp) != 1 || renderValue(resp[0].Value) != want {
				t.Fatalf("master down %v, step %d: got %v, want %s", down, k, resp, want)
			}
		}
		if wantEpoch := map[bool]uint64{false: 0, true: 7}[down]; s.CurrentEpoch() != wantEpoch {
			t.Fatalf("master down %v: epoch %d, want %d", down, s.CurrentEpoch(), wantEpoch)
		}
	}
	// The hello the same sentinel published (captured on the master).
	h, ok := parseHello("127.0.0.1,55123,929d1bf748a15d5b7ac6300aeb6073745dac30f8,0,mym,127.0.0.1,56065,0")
	if !ok || h.port != 55123 || h.masterPort != 56065 || h.runid != "929d1bf748a15d5b7ac6300aeb6073745dac30f8" {
		t.Fatalf("hello %+v", h)
	}
}

// TestHeldFlagChangeKeepsOrder: a change of an instance's ODOWN flag held
// behind a vote (same step) holds the next change of that flag from a
// later step, so subscribers and scripts see the flag's changes in order
// and the last one tells its state; other events of later steps, and a
// change of another instance's flag, still leave at once (docs/core.md
// decision 30: a -odown held behind the vote came out after the +odown of
// a later step, the master ODOWN).
func TestHeldFlagChangeKeepsOrder(t *testing.T) {
	s := newTestCore(t)
	seeMasterDown(s)
	m := s.masters["mym"]
	r := m.sortedReplicas()[0]
	_, effs := request(s, 10, 1, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "5", peerB)
	p := persistOf(t, effs)
	s.out = nil
	s.eventAt(LevelWarning, "-odown", m, "") // the vote's step: held behind it
	s.now = 11 + timeBase
	s.persist.holdMaster = nil // a later step
	s.eventAt(LevelWarning, "+odown", m, "#quorum 2/2")
	s.eventAt(LevelWarning, "+sdown", r, "")
	s.event(LevelWarning, "+test-later", m, "x")
	if got := emitTypes(s.out); got != "+sdown +test-later" {
		t.Fatalf("events of the later step left at once: %q, want +sdown +test-later", got)
	}
	done := s.Step(12, PersistDone{Seq: p.Seq})
	if got := emitTypes(done); got != "+new-epoch +vote-for-leader -odown +odown" {
		t.Fatalf("released %q, want the vote's events, then -odown before +odown", got)
	}
	if e := effectsOf[Emit](done)[3]; e.At != 11 {
		t.Fatalf("+odown At = %d, want 11 (when it happened)", e.At)
	}
}

// TestVoteEventsOnPersistFailure: when the Persist of a vote fails, the
// held +new-epoch and +vote-for-leader are logged but never published (the
// vote reply says "no vote"); events of later steps are not held behind
// them.
func TestVoteEventsOnPersistFailure(t *testing.T) {
	s := newTestCore(t)
	seeMasterDown(s)
	_, effs := request(s, 10, 1, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "5", peerB)
	p := persistOf(t, effs)
	s.out = nil
	s.now = 11 + timeBase
	s.persist.holdMaster = nil // a later step
	s.event(LevelWarning, "+test-later", s.masters["mym"], "x")
	if got := emitTypes(s.out); got != "+test-later" {
		t.Fatalf("an event of a later step was held: %q", got)
	}
	done := s.Step(12, PersistDone{Seq: p.Seq, Err: errors.New("disk full")})
	if got := emitTypes(done); got != "" {
		t.Fatalf("published after a failed persist: %q", got)
	}
	logs := 0
	for _, l := range effectsOf[Log](done) {
		if strings.Contains(l.Msg, "not published") {
			logs++
		}
	}
	if logs != 2 {
		t.Fatalf("want the two vote events as unpublished log lines, got %v", done)
	}
	if r := effectsOf[Respond](done); len(r) != 1 || renderValue(r[0].Value) != `[:1 "*" :0]` {
		t.Fatalf("reply after a failed persist: %v", r)
	}
}
