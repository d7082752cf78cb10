package core

import (
	"strings"
	"testing"
)

// voteReq sends IS-MASTER-DOWN-BY-ADDR about the test core's master and
// returns its reply, completing the Persist of a granted vote; persisted
// reports whether one was needed.
func voteReq(t *testing.T, s *Sentinel, now Millis, id uint64, epoch, runid string) (reply string, effs []Effect, persisted bool) {
	t.Helper()
	resp, effs := request(s, now, id, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", epoch, runid)
	for _, p := range effectsOf[Persist](effs) {
		persisted = true
		done := s.Step(now, PersistDone{Seq: p.Seq})
		effs = append(effs, done...)
		resp = append(resp, effectsOf[Respond](done)...)
	}
	if len(resp) != 1 {
		t.Fatalf("want one reply, got %v", effs)
	}
	return renderValue(resp[0].Value), effs, persisted
}

// TestVoteGateRefusesMasterUp: a vote request for a master we see up (no
// S_DOWN here: a valid reply within down-after) is answered "no vote" at
// once, adopts no epoch, persists nothing and publishes nothing; the same
// request once we see the master S_DOWN is granted as sentinel.c does.
// This is the C2 scenario of docs/reliability.md: a sentinel cut off from
// the others must not get a healthy master failed over at the heal.
func TestVoteGateRefusesMasterUp(t *testing.T) {
	s := newTestCore(t)
	got, effs, persisted := voteReq(t, s, 10, 1, "5", peerB)
	if got != `[:0 "*" :0]` || persisted {
		t.Fatalf("vote for a master seen up: %s (persisted %v)", got, persisted)
	}
	if e := emitTypes(effs); e != "" {
		t.Fatalf("events for a refused vote: %q", e)
	}
	if s.CurrentEpoch() != 0 {
		t.Fatalf("a refused request moved the epoch to %d", s.CurrentEpoch())
	}
	if v, _ := s.Master("mym"); v.Leader != "" || v.LeaderEpoch != 0 {
		t.Fatalf("voted in memory: %s/%d", v.Leader, v.LeaderEpoch)
	}
	refused := false
	for _, l := range effectsOf[Log](effs) {
		refused = refused || strings.Contains(l.Msg, "Refused to vote for "+peerB+" in epoch 5")
	}
	if !refused {
		t.Fatalf("no log line for the refusal: %v", effs)
	}

	seeMasterDown(s)
	got, _, persisted = voteReq(t, s, 20, 2, "5", peerB)
	if got != `[:1 "`+peerB+`" :5]` || !persisted || s.CurrentEpoch() != 5 {
		t.Fatalf("vote for a master seen S_DOWN: %s (persisted %v, epoch %d)", got, persisted, s.CurrentEpoch())
	}
}

// TestVoteGateRules: TILT refuses (our view is frozen, and the reply says
// 0 there anyway); a master reporting role:slave is not healthy; a
// request that cannot change our vote gets sentinel.c's answer; an
// unknown master is answered as before.
func TestVoteGateRules(t *testing.T) {
	t.Run("tilt", func(t *testing.T) {
		s := newTestCore(t)
		seeMasterDown(s)
		s.tilt = true
		if got, _, persisted := voteReq(t, s, 10, 1, "5", peerB); got != `[:0 "*" :0]` || persisted || s.CurrentEpoch() != 0 {
			t.Fatalf("vote in TILT: %s (persisted %v, epoch %d)", got, persisted, s.CurrentEpoch())
		}
	})
	t.Run("role slave", func(t *testing.T) {
		s := newTestCore(t)
		m := s.masters["mym"]
		m.roleReported, m.roleReportedTime = fSlave, s.now
		if got, _, _ := voteReq(t, s, 10, 1, "5", peerB); got != `[:0 "`+peerB+`" :5]` {
			t.Fatalf("vote for a master reporting role:slave: %s", got)
		}
	})
	t.Run("stored vote", func(t *testing.T) {
		s := newTestCore(t)
		seeMasterDown(s)
		voteReq(t, s, 10, 1, "5", peerB)
		s.Step(20, Tick{}) // S_DOWN re-evaluated: the master is up again
		if s.masters["mym"].flags&fSDown != 0 {
			t.Fatal("still S_DOWN")
		}
		for k, ep := range []string{"5", "4"} {
			if got, _, persisted := voteReq(t, s, Millis(21+k), uint64(2+k), ep, peerC); got != `[:0 "`+peerB+`" :5]` || persisted {
				t.Fatalf("epoch %s: %s (persisted %v)", ep, got, persisted)
			}
		}
		if got, _, persisted := voteReq(t, s, 30, 9, "6", peerC); got != `[:0 "*" :0]` || persisted || s.CurrentEpoch() != 5 {
			t.Fatalf("new epoch for a master seen up: %s (persisted %v, epoch %d)", got, persisted, s.CurrentEpoch())
		}
	})
	t.Run("unknown master", func(t *testing.T) {
		s := newTestCore(t)
		resp, _ := request(s, 10, 1, "SENTINEL", "is-master-down-by-addr", "127.0.0.1", "1", "5", peerB)
		if len(resp) != 1 || renderValue(resp[0].Value) != `[:0 "*" :0]` || s.CurrentEpoch() != 0 {
			t.Fatalf("unknown master: %v, epoch %d", resp, s.CurrentEpoch())
		}
	})
}

// TestVoteGateCoordinated: the one election held while the master answers
// is a COORDINATED failover (Valkey 9). A refused request of a known peer
// makes us ask that peer SENTINEL MASTER; while its flags show
// coordinated_failover and failover_in_progress, its requests in that
// epoch pass the gate. Requests of a peer without the flag, of an unknown
// runid, or in another epoch stay refused.
func TestVoteGateCoordinated(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	for _, si := range m.sortedSentinels() {
		s.Step(1, LinkConnected{Link: si.link.id, Conn: si.link.cc, LocalIP: "127.0.0.1"})
	}
	b, c := m.m.sentinels[peerB], m.m.sentinels[peerC]
	probeOf := func(effs []Effect, si *instance) []Send {
		var out []Send
		for _, snd := range effectsOf[Send](effs) {
			if snd.Link == si.link.id && strings.Join(snd.Args, " ") == "SENTINEL master mym" {
				out = append(out, snd)
			}
		}
		return out
	}
	flags := func(f string) Value {
		return Array(Bulk("name"), Bulk("mym"), Bulk("flags"), Bulk(f), Bulk("quorum"), Bulk("2"))
	}

	// An unknown runid is refused without a probe.
	got, effs, _ := voteReq(t, s, 10, 1, "3", "dddddddddddddddddddddddddddddddddddddddd")
	if got != `[:0 "*" :0]` || len(effectsOf[Send](effs)) != 0 {
		t.Fatalf("unknown runid: %s, sends %v", got, argsOf(effs))
	}
	// Peer C runs no coordinated failover: probed, still refused.
	got, effs, _ = voteReq(t, s, 11, 2, "3", peerC)
	pc := probeOf(effs, c)
	if got != `[:0 "*" :0]` || len(pc) != 1 {
		t.Fatalf("peer C: %s, probes %v", got, argsOf(effs))
	}
	s.Step(12, Reply{Link: pc[0].Link, Conn: pc[0].Conn, Tag: pc[0].Tag, Value: flags("master,failover_in_progress")})
	if got, _, persisted := voteReq(t, s, 13, 3, "3", peerC); got != `[:0 "*" :0]` || persisted {
		t.Fatalf("peer C after its probe: %s", got)
	}

	// Peer B runs one: probed once while the probe is in flight, then its
	// requests in that epoch are granted.
	got, effs, _ = voteReq(t, s, 20, 4, "4", peerB)
	pb := probeOf(effs, b)
	if got != `[:0 "*" :0]` || len(pb) != 1 {
		t.Fatalf("peer B: %s, probes %v", got, argsOf(effs))
	}
	if _, effs, _ = voteReq(t, s, 21, 5, "4", peerB); len(probeOf(effs, b)) != 0 {
		t.Fatalf("second probe while one is in flight: %v", argsOf(effs))
	}
	s.Step(22, Reply{Link: pb[0].Link, Conn: pb[0].Conn, Tag: pb[0].Tag, Value: flags("master,failover_in_progress,coordinated_failover")})
	if got, _, persisted := voteReq(t, s, 23, 6, "5", peerB); got != `[:0 "*" :0]` || persisted {
		t.Fatalf("another epoch than the probed one: %s", got)
	}
	if got, _, persisted := voteReq(t, s, 24, 7, "4", peerB); got != `[:0 "`+peerB+`" :4]` || !persisted || s.CurrentEpoch() != 4 {
		t.Fatalf("coordinated failover's request: %s (persisted %v, epoch %d)", got, persisted, s.CurrentEpoch())
	}
}

// TestElectionReask: while our election runs, a peer whose last answer
// said "not down" without a vote of this election is asked again every
// FastAskPeriod (it may see the master up for a few PING intervals more
// and refuse, votegate.go); one that voted is asked every ask-period.
func TestElectionReask(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	b := m.m.sentinels[peerB]
	if p := s.askPeriodFor(m, b); p != s.timing.AskPeriod {
		t.Fatalf("no election: ask period %d", p)
	}
	m.flags |= fSDown | fODown | fFailoverInProgress
	m.m.failoverState, m.m.failoverEpoch = FailoverWaitStart, 3
	if p := s.askPeriodFor(m, b); p != FastAskPeriod {
		t.Fatalf("refused peer during the election: ask period %d, want %d", p, FastAskPeriod)
	}
	b.votedLeader, b.votedLeaderEpoch = peerC, 3
	if p := s.askPeriodFor(m, b); p != s.timing.AskPeriod {
		t.Fatalf("peer that voted: ask period %d", p)
	}
	b.votedLeader, b.votedLeaderEpoch = "", 0
	m.m.failoverState = FailoverSelectSlave
	if p := s.askPeriodFor(m, b); p != s.timing.AskPeriod {
		t.Fatalf("after the election: ask period %d", p)
	}
}

// TestReaskOnPeerAskDuringElection: while our election runs, a peer's ask
// (it sees the master down now) makes us send our vote request at once to
// the peers that gave no vote of this election; not to one that voted.
func TestReaskOnPeerAskDuringElection(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	for _, si := range m.sortedSentinels() {
		s.Step(1, LinkConnected{Link: si.link.id, Conn: si.link.cc, LocalIP: "127.0.0.1"})
	}
	b, c := m.m.sentinels[peerB], m.m.sentinels[peerC]
	seeMasterDown(s)
	m.flags |= fODown | fFailoverInProgress
	m.m.failoverState, m.m.failoverEpoch = FailoverWaitStart, 1
	b.lastMDReplyTime, c.lastMDReplyTime = s.now, s.now // answered just now: no periodic ask due
	c.votedLeader, c.votedLeaderEpoch = testMyID, 1
	effs := s.Step(10, Request{ID: 1, Args: []string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "0", "*"}})
	var asks []string
	for _, snd := range effectsOf[Send](effs) {
		if len(snd.Args) == 6 && snd.Args[1] == "is-master-down-by-addr" {
			who := map[LinkID]string{b.link.id: "B", c.link.id: "C"}[snd.Link]
			asks = append(asks, who+" "+snd.Args[4]+" "+snd.Args[5])
		}
	}
	if strings.Join(asks, ",") != "B 1 "+testMyID {
		t.Fatalf("asks after a peer's ask during our election: %v", asks)
	}
}
