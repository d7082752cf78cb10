package sim

import (
	"testing"

	"github.com/gosentinel/gosentinel/internal/core"
)

func TestParseQuorum(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		n, q int
		ok   bool
	}{
		{"master m 1.2.3.4 6379 #quorum 2/3", 2, 3, true},
		{"master m 1.2.3.4 6379 #quorum 5/5", 5, 5, true},
		{"master m 1.2.3.4 6379", 0, 0, false},
		{"master m 1.2.3.4 6379 #quorum x/3", 0, 3, false},
		{"master m 1.2.3.4 6379 #quorum 3", 0, 0, false},
	} {
		n, q, ok := parseQuorum(tc.msg)
		if ok != tc.ok || ok && (n != tc.n || q != tc.q) {
			t.Errorf("parseQuorum(%q) = %d, %d, %v; want %d, %d, %v", tc.msg, n, q, ok, tc.n, tc.q, tc.ok)
		}
	}
}

func TestRanksBefore(t *testing.T) {
	r := func(prio int, off int64, id string) *core.ReplicaView {
		return &core.ReplicaView{Priority: prio, ReplOffset: off, RunID: id}
	}
	for _, tc := range []struct {
		name string
		a, b *core.ReplicaView
		want bool
	}{
		{"lower priority first", r(1, 0, "b"), r(10, 100, "a"), true},
		{"higher priority after", r(10, 100, "a"), r(1, 0, "b"), false},
		{"same priority, larger offset first", r(5, 200, "b"), r(5, 100, "a"), true},
		{"same priority and offset, smaller run id first", r(5, 100, "A1"), r(5, 100, "a2"), true},
		{"case-insensitive run ids", r(5, 100, "B"), r(5, 100, "a"), false},
		{"missing run id last", r(5, 100, ""), r(5, 100, "z"), false},
		{"known run id before missing", r(5, 100, "z"), r(5, 100, ""), true},
		{"identical", r(5, 100, "a"), r(5, 100, "a"), false},
	} {
		if got := ranksBefore(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: ranksBefore = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSameAddr(t *testing.T) {
	for _, tc := range []struct {
		a, b core.Addr
		want bool
	}{
		{core.Addr{IP: "10.0.0.1", Port: 6379}, core.Addr{Host: "10.0.0.1", IP: "10.0.0.1", Port: 6379}, true},
		{core.Addr{Host: "10.0.0.1", Port: 6379}, core.Addr{IP: "10.0.0.1", Port: 6379}, true},
		{core.Addr{IP: "10.0.0.1", Port: 6379}, core.Addr{IP: "10.0.0.1", Port: 6380}, false},
		{core.Addr{IP: "10.0.0.1", Port: 6379}, core.Addr{IP: "10.0.0.2", Port: 6379}, false},
	} {
		if got := sameAddr(tc.a, tc.b); got != tc.want {
			t.Errorf("sameAddr(%v, %v) = %v", tc.a, tc.b, got)
		}
	}
}

// TestVoteBookkeeping: a second, different vote in one (sentinel, master,
// epoch) is S1; a vote lost in a crash before it reached disk or a peer is
// forgotten; a revealed one is not.
func TestVoteBookkeeping(t *testing.T) {
	w := newWorld(NewOptions(1), false)
	s := w.sent[0]
	c := &w.chk
	c.recordVote(w, s, MasterName, 3, "aaaa", false)
	c.recordVote(w, s, MasterName, 3, "AAAA", true) // same leader, case-insensitive
	c.recordVote(w, s, "other", 3, "bbbb", false)   // another master: its own record
	if len(c.violations) != 0 {
		t.Fatalf("unexpected violations %v", c.violations)
	}
	c.recordVote(w, s, MasterName, 4, "cccc", false) // not revealed, not on disk
	c.crashed(w, s)
	if _, ok := c.votes[voteKey{s.ident(), MasterName, 4}]; ok {
		t.Fatal("a vote that never left the process survived the crash")
	}
	if _, ok := c.votes[voteKey{s.ident(), MasterName, 3}]; !ok {
		t.Fatal("a revealed vote was forgotten at the crash")
	}
	c.recordVote(w, s, MasterName, 4, "dddd", false) // a new vote after restart is fine
	if len(c.violations) != 0 {
		t.Fatalf("unexpected violations %v", c.violations)
	}
	c.recordVote(w, s, MasterName, 3, "eeee", false)
	if len(c.violations) != 1 || c.violations[0].Invariant != "S1" {
		t.Fatalf("double vote not flagged: %v", c.violations)
	}
}

// TestLateSDownAfterReset: a +sdown the core held behind its vote and
// released after a later -sdown of the same instance, or after a
// +switch-master that re-created the replicas, no longer describes the
// core's state, so E1 must not hold the replica SDOWN (seeds 801153:
// -sdown published before the held +sdown; 816410: "+sdown slave
// 10.0.0.2 @ mymaster 10.0.0.1" released after the switch to 10.0.0.3,
// then 10.0.0.2 selected: "selected 10.0.0.2:6379, which it holds SDOWN").
func TestLateSDownAfterReset(t *testing.T) {
	sdown := func(sign string, late []stepRec) core.Emit {
		return core.Emit{Type: sign + "sdown", Level: core.LevelWarning, Master: MasterName,
			Subject: &core.Subject{Role: core.RoleReplica, Name: "10.0.0.2:6379", IP: "10.0.0.2", Port: 6379,
				Master: MasterName, MasterIP: "10.0.0.1", MasterPort: 6379}}
	}
	const key = "slave 10.0.0.2:6379"
	for _, tc := range []struct {
		name      string
		off       func(w *World, s *sentinel)
		lateStep  int
		wantSDown bool
	}{
		{"held +sdown released after the replicas were re-created", func(w *World, s *sentinel) { s.truth.slaveOff = 20 }, 10, false},
		{"held +sdown released after a later -sdown", func(w *World, s *sentinel) {
			w.steps = 20
			w.chk.ruleEmit(w, s, sdown("-", nil), 0, nil)
		}, 10, false},
		{"held +sdown from after the -sdown", func(w *World, s *sentinel) {
			w.steps = 20
			w.chk.ruleEmit(w, s, sdown("-", nil), 0, nil)
		}, 21, true},
		{"held +sdown from after the reset", func(w *World, s *sentinel) { s.truth.slaveOff = 20 }, 21, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(NewOptions(1), false)
			s := w.sent[0]
			s.truth = newTruth(0, 0)
			tc.off(w, s)
			w.steps = 30
			w.chk.ruleEmit(w, s, sdown("+", nil), 0, []stepRec{{step: tc.lateStep}})
			if got := s.truth.sdown[key]; got != tc.wantSDown {
				t.Fatalf("SDOWN recorded %v, want %v", got, tc.wantSDown)
			}
		})
	}
}
