package core

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// staggerPeer is a peer sentinel of the stagger tests.
type staggerPeer struct {
	runid string
	sdown peerDown
}

// peerDown is how a stagger test's peer is down.
type peerDown int

const (
	alive    peerDown = iota
	downToo           // SDOWN since 100 ms before the master (lost with it)
	goneLong          // SDOWN since more than down-after before the master
)

// staggerODownAt is when the stagger tests' master is SDOWN and ODOWN.
const staggerODownAt Millis = 5000

func newStaggerCore(t *testing.T, myid string, peers []staggerPeer, stagger Millis) (*Sentinel, *instance) {
	t.Helper()
	var known []KnownSentinel
	for k, p := range peers {
		known = append(known, KnownSentinel{Addr: Addr{Host: "127.0.0.1", Port: 26380 + k}, RunID: p.runid})
	}
	timing := DefaultTiming()
	timing.FailoverStagger = stagger
	s, err := New(Config{
		State: State{
			MyID: myid,
			Masters: []MasterConfig{{
				Name: "mym", Addr: Addr{Host: "127.0.0.1", Port: 6379}, Quorum: 2,
				KnownSentinels: known,
			}},
		},
		Port:   26379,
		Timing: timing,
	}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	s.Step(0, Tick{})
	m := s.masters["mym"]
	m.sdownSince = staggerODownAt + timeBase
	for _, p := range peers {
		si := m.m.sentinels[p.runid]
		switch p.sdown {
		case downToo:
			si.flags |= fSDown
			si.sdownSince = m.sdownSince - 100
		case goneLong:
			si.flags |= fSDown
			si.sdownSince = m.sdownSince - m.downAfter - 1
		}
	}
	return s, m
}

func TestFailoverStagger(t *testing.T) {
	id := func(c byte) string { return strings.Repeat(string(c), 40) }
	const stagger Millis = 30 // rank×stagger stays below the 100 ms deadline cap
	tests := []struct {
		name  string
		myid  string
		peers []staggerPeer
		rank  int
	}{
		{"alone", id('5'), nil, 0},
		{"lowest runid", id('1'), []staggerPeer{{id('2'), alive}, {id('3'), alive}}, 0},
		{"middle", id('2'), []staggerPeer{{id('1'), alive}, {id('3'), alive}}, 1},
		{"highest runid", id('3'), []staggerPeer{{id('1'), alive}, {id('2'), alive}}, 2},
		{"lower peer gone long before", id('3'), []staggerPeer{{id('1'), goneLong}, {id('2'), alive}}, 1},
		{"all lower peers gone long before", id('3'), []staggerPeer{{id('1'), goneLong}, {id('2'), goneLong}, {id('4'), alive}}, 0},
		// Lost together with the master: every sentinel still counts it,
		// whatever its own PING phase made it see first (docs/core.md
		// decision 22).
		{"lower peer SDOWN with the master", id('3'), []staggerPeer{{id('1'), downToo}, {id('2'), alive}}, 2},
		{"higher peer SDOWN", id('2'), []staggerPeer{{id('1'), alive}, {id('3'), downToo}}, 1},
		{"lexicographic not numeric", id('a'), []staggerPeer{{id('9'), alive}, {id('b'), alive}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, m := newStaggerCore(t, tc.myid, tc.peers, stagger)
			if got := s.failoverRank(m, m.sdownSince); got != tc.rank {
				t.Fatalf("rank = %d, want %d", got, tc.rank)
			}
			const odownAt = staggerODownAt
			startAt := odownAt + Millis(tc.rank)*stagger
			m.flags |= fSDown | fODown
			m.odownSince = odownAt + timeBase
			s.now = odownAt + timeBase
			if tc.rank > 0 {
				if got := s.NextDeadline(odownAt); got != startAt {
					t.Errorf("NextDeadline(%d) = %d, want the staggered start %d", odownAt, got, startAt)
				}
				s.now = startAt - 1 + timeBase
				if s.startFailoverIfNeeded(m) {
					t.Fatalf("failover started at %d, before its turn %d", startAt-1, startAt)
				}
			}
			s.now = startAt + timeBase
			if !s.startFailoverIfNeeded(m) {
				t.Fatalf("failover not started at its turn %d", startAt)
			}
			if m.m.failoverEpoch != 1 || m.flags&fFailoverInProgress == 0 {
				t.Errorf("after start: epoch %d, flags %b", m.m.failoverEpoch, m.flags)
			}
		})
	}
}

// TestFailoverStaggerYieldsToVote checks that a sentinel waiting its turn
// does not start once it voted for a peer: the vote sets
// failover_start_time, which blocks a start for 2×failover-timeout.
func TestFailoverStaggerYieldsToVote(t *testing.T) {
	id := func(c byte) string { return strings.Repeat(string(c), 40) }
	s, m := newStaggerCore(t, id('2'), []staggerPeer{{id('1'), alive}}, 100)
	m.flags |= fSDown | fODown
	m.odownSince = 5000 + timeBase
	s.now = 5050 + timeBase
	if s.startFailoverIfNeeded(m) {
		t.Fatal("started before its turn")
	}
	if leader, _ := s.voteLeader(m, 1, id('1')); leader != id('1') {
		t.Fatalf("voted for %q, want the peer", leader)
	}
	for _, now := range []Millis{5100, 5100 + 2*m.m.failoverTimeout - MaxDesync} {
		s.now = now + timeBase
		if s.startFailoverIfNeeded(m) {
			t.Fatalf("started at %d after voting for the peer", now)
		}
	}
}

// TestFailoverStaggerYieldsLead: a sentinel restarted while the master was
// already down (lab B2) has seen it SDOWN for a few seconds only, so
// sentinelSelectSlave's link-down bound (10×down-after plus that time)
// drops every replica whose master link has been down since the crash. It
// must not take its rank-0 turn (it would win, abort with no good slave
// and block its voters for 2×failover-timeout, at every retry): it starts
// after every peer's turn, so the peer that watched the master die asks
// for votes first. Replicas that are unfit for everyone change no turn.
func TestFailoverStaggerYieldsLead(t *testing.T) {
	id := func(c byte) string { return strings.Repeat(string(c), 40) }
	const stagger Millis = 30
	tests := []struct {
		name     string
		linkDown Millis // the replica's master_link_down_since minus 10×down-after, ms
		priority int
		startAt  Millis // after ODOWN
	}{
		// Every peer's turn is over whatever its step (fast or slow
		// disk): 3 turns of maxStaggerStep, not of our own fast step.
		{"replica cut since the crash, 30 s before our SDOWN", 30000, 100, 3 * maxStaggerStep},
		{"replica cut just before our SDOWN", -500, 100, 0},
		{"replica unfit for everyone (priority 0)", 30000, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, m := newStaggerCore(t, id('1'), []staggerPeer{{id('2'), alive}, {id('3'), alive}}, stagger)
			const odownAt = staggerODownAt
			now := odownAt + timeBase
			r := s.createReplica(m, Addr{Host: "127.0.0.1", Port: 6380})
			r.link.ccState, r.link.pcState = connUp, connUp
			r.link.lastAvailTime = now
			r.infoRefresh = now
			r.priority, r.priorityKnown = tc.priority, true
			r.masterLinkDownTime = 10*m.downAfter + tc.linkDown
			m.flags |= fSDown | fODown
			m.sdownSince = now
			m.odownSince = now
			if got := s.failoverRank(m, m.sdownSince); got != 0 {
				t.Fatalf("rank = %d, want 0", got)
			}
			if tc.startAt > 0 {
				s.now = now
				if got := s.failoverStartAt(m) - timeBase; got != odownAt+tc.startAt {
					t.Errorf("failoverStartAt = %d, want the yielded start %d", got, odownAt+tc.startAt)
				}
				// The runtime wakes for it: no deadline later than the start
				// when asked just before it.
				if got := s.NextDeadline(odownAt + tc.startAt - 1); got > odownAt+tc.startAt {
					t.Errorf("NextDeadline(%d) = %d, after the yielded start %d", odownAt+tc.startAt-1, got, odownAt+tc.startAt)
				}
				s.now = now + tc.startAt - 1
				if s.startFailoverIfNeeded(m) {
					t.Fatalf("failover started at ODOWN+%d, before the peers' turns", tc.startAt-1)
				}
			}
			s.now = now + tc.startAt
			if !s.startFailoverIfNeeded(m) {
				t.Fatalf("failover not started at ODOWN+%d", tc.startAt)
			}
		})
	}
}

// TestFailoverStaggerFollowsSlowPersist: the step per rank is
// maxStaggerStep instead of FailoverStagger once one of the last
// persistSamples successful config saves took more than a third of
// FailoverStagger. A candidate's vote requests wait for its save, so a
// step shorter than the save let the next sentinel start in the same
// epoch before the request arrived (lab C3: three candidates, no leader;
// docs/core.md decision 29).
func TestFailoverStaggerFollowsSlowPersist(t *testing.T) {
	id := func(c byte) string { return strings.Repeat(string(c), 40) }
	s, m := newStaggerCore(t, id('3'), []staggerPeer{{id('1'), alive}, {id('2'), alive}}, 200)
	at := Millis(1000)
	save := func(took Millis, fail bool) {
		t.Helper()
		s.now = at + timeBase
		s.markDirty()
		s.flushPersist()
		seq := s.persist.inflight
		if seq == 0 {
			t.Fatal("no Persist in flight")
		}
		at += took
		s.now = at + timeBase
		var err error
		if fail {
			err = errors.New("disk full")
		}
		s.onPersistDone(PersistDone{Seq: seq, Err: err})
		at += 2000 // past persistRetryDelay
	}
	steps := []struct {
		name string
		do   func()
		want Millis
	}{
		{"no save yet", func() {}, 200},
		{"fast saves", func() { save(40, false); save(66, false) }, 200},
		{"a failed slow save does not count", func() { save(900, true) }, 200},
		{"one save over a third of the step", func() { save(67, false) }, maxStaggerStep},
		{"slow saves rolled out by fast ones", func() {
			for range persistSamples {
				save(10, false)
			}
		}, 200},
		{"slow again", func() { save(2500, false) }, maxStaggerStep},
	}
	for _, st := range steps {
		st.do()
		if got := s.staggerStep(); got != st.want {
			t.Fatalf("%s: staggerStep = %d, want %d", st.name, got, st.want)
		}
	}
	// Rank 2: not at the 200 ms step's turn, at its own.
	if !s.durable() {
		t.Fatal("not durable after the last save")
	}
	odownAt := at + 5000
	m.flags |= fSDown | fODown
	m.sdownSince = odownAt + timeBase
	m.odownSince = odownAt + timeBase
	for _, now := range []Millis{odownAt + 2*200, odownAt + 2*maxStaggerStep - 1} {
		s.now = now + timeBase
		if s.startFailoverIfNeeded(m) {
			t.Fatalf("started %d ms after ODOWN, before its turn at rank 2 × %d ms", now-odownAt, maxStaggerStep)
		}
	}
	s.now = odownAt + 2*maxStaggerStep + timeBase
	if !s.startFailoverIfNeeded(m) {
		t.Fatalf("not started at its turn, rank 2 × %d ms after ODOWN", maxStaggerStep)
	}
}

// TestRetryStaggeredByRank (docs/core.md decision 32; lab B3k seed 1): the
// two survivors of a leader that died after its election voted for it in
// the same instant. sentinel.c retries 2×failover-timeout after the vote
// plus a random 0..999 ms, so they retried a few hundred ms apart and, with
// a slow disk holding the first one's vote requests, split again. The
// retry now goes by rank from the end of the block, in 1 s steps whatever
// the disk, and the dead leader (SDOWN long before) takes no turn: the
// lower runid retries exactly when the block ends, the other 1 s later.
func TestRetryStaggeredByRank(t *testing.T) {
	id := func(c byte) string { return strings.Repeat(string(c), 40) }
	const voteAt, leaderDownAt = staggerODownAt + 100, staggerODownAt + 3000
	for _, tc := range []struct {
		myid string
		peer string // the other survivor
		turn Millis // after the block's end
	}{
		{id('2'), id('3'), 0},
		{id('3'), id('2'), maxStaggerStep},
	} {
		t.Run(tc.myid[:1], func(t *testing.T) {
			leader := id('1')
			s, m := newStaggerCore(t, tc.myid, []staggerPeer{{leader, alive}, {tc.peer, alive}}, 200)
			m.flags |= fSDown | fODown
			m.odownSince = staggerODownAt + timeBase
			s.now = voteAt + timeBase
			if got, _ := s.voteLeader(m, 1, leader); got != leader {
				t.Fatalf("voted for %q", got)
			}
			if m.m.startDesync == 0 {
				t.Fatal("no desync drawn: the test would not tell the rule from sentinel.c")
			}
			l := m.m.sentinels[leader]
			l.flags |= fSDown
			l.sdownSince = leaderDownAt + timeBase
			// A replica it can promote: one that cannot select yields its
			// turn (TestRetryYieldsWhenSelectionFails,
			// TestRetryYieldsWithNoReplicaKnown).
			r := s.createReplica(m, Addr{Host: "127.0.0.1", Port: 6380})
			end := voteAt + 2*m.m.failoverTimeout
			turn := end + tc.turn
			s.now = end - 1 + timeBase
			selectable(s, r)
			if got := s.NextDeadline(end - 1); got != turn && got != end-1+100 {
				t.Errorf("NextDeadline(%d) = %d, want the retry turn %d (or the 100 ms cap)", end-1, got, turn)
			}
			s.now = turn - 1 + timeBase
			selectable(s, r)
			if s.startFailoverIfNeeded(m) {
				t.Fatalf("retried at block end + %d, before its turn (+%d)", turn-1-end, tc.turn)
			}
			s.now = turn + timeBase
			selectable(s, r)
			if s.selectSlave(m) != r {
				t.Fatal("the replica is not selectable: the test would not tell the turn from a yield")
			}
			if !s.startFailoverIfNeeded(m) {
				t.Fatalf("no retry at its turn, block end + %d (desync %d)", tc.turn, m.m.startDesync)
			}
		})
	}
}

// selectable makes replica r eligible for promotion now (reference §15):
// connected, a valid PING reply and an INFO just now, priority 100.
func selectable(s *Sentinel, r *instance) {
	r.link.ccState, r.link.pcState = connUp, connUp
	r.link.lastAvailTime = s.now
	r.infoRefresh = s.now
	r.priority, r.priorityKnown = 100, true
	r.roleReported = fSlave
}

// TestRetryYieldsWhenSelectionFails (sim seed 279): at a retry, a sentinel
// whose own replica selection fails (here it holds the only replica SDOWN)
// goes after every peer's turn instead of taking its rank-0 turn at the
// block's end; with the ordered retry it would otherwise lead, abort with
// no good slave and block its voters at every retry, while a peer that
// can promote the replica never asked. At the first attempt it keeps its
// turn (yieldsLead alone decides there).
func TestRetryYieldsWhenSelectionFails(t *testing.T) {
	id := func(c byte) string { return strings.Repeat(string(c), 40) }
	s, m := newStaggerCore(t, id('1'), []staggerPeer{{id('2'), alive}, {id('3'), alive}}, 200)
	r := s.createReplica(m, Addr{Host: "127.0.0.1", Port: 6380})
	r.flags |= fSDown
	r.sdownSince = staggerODownAt + timeBase
	retryYieldsAfterPeers(t, s, m, "with no replica to select")
}

// TestRetryYieldsWithNoReplicaKnown: a sentinel that knows no replica at
// all (SENTINEL RESET forgot them, and its master, running as a replica,
// lists none in INFO) cannot select either, and must yield its retry turn
// like one whose selection fails (sim seed 1615703: the rank-0 sentinel,
// reset, led every retry and aborted with -failover-abort-no-good-slave,
// blocking its voters, while the peer that knew the replicas never got a
// turn; 6 aborts in 60 s, no convergence).
func TestRetryYieldsWithNoReplicaKnown(t *testing.T) {
	id := func(c byte) string { return strings.Repeat(string(c), 40) }
	s, m := newStaggerCore(t, id('1'), []staggerPeer{{id('2'), alive}, {id('3'), alive}}, 200)
	if len(m.m.replicas) != 0 {
		t.Fatalf("%d replicas known, want none", len(m.m.replicas))
	}
	retryYieldsAfterPeers(t, s, m, "knowing no replica")
}

// retryYieldsAfterPeers: m is ODOWN at staggerODownAt with s (rank 0)
// unable to select a replica (why); s votes for a peer, and after the
// 2 × failover-timeout block it must not retry before both peers' turns
// (maxStaggerStep each), and must retry at once after them.
func retryYieldsAfterPeers(t *testing.T, s *Sentinel, m *instance, why string) {
	t.Helper()
	id := func(c byte) string { return strings.Repeat(string(c), 40) }
	m.flags |= fSDown | fODown
	m.odownSince = staggerODownAt + timeBase
	s.now = staggerODownAt + timeBase
	if got := s.failoverStartAt(m) - timeBase; got != staggerODownAt {
		t.Fatalf("first attempt at %d, want its rank-0 turn at ODOWN %d", got, staggerODownAt)
	}
	voteAt := staggerODownAt + 100
	s.now = voteAt + timeBase
	if got, _ := s.voteLeader(m, 1, id('2')); got != id('2') {
		t.Fatalf("voted for %q", got)
	}
	end := voteAt + 2*m.m.failoverTimeout
	turn := end + 3*maxStaggerStep // after both peers' turns
	for _, at := range []Millis{end, turn - 1} {
		s.now = at + timeBase
		if s.startFailoverIfNeeded(m) {
			t.Fatalf("retried at block end + %d %s, before the peers' turns (+%d)", at-end, why, turn-end)
		}
	}
	s.now = turn + timeBase
	if !s.startFailoverIfNeeded(m) {
		t.Fatal("no retry after every peer's turn")
	}
}
