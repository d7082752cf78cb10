package core

import (
	"strings"
	"testing"
)

// retryCore returns a core of rank 1 (peers '1' and '3', we are '2') whose
// master is SDOWN and ODOWN since staggerODownAt, with one known replica
// that is down (SDOWN, link disconnected), and whose automatic attempt in
// epoch 1 was elected and has reached SELECT_SLAVE at abortAt.
func retryCore(t *testing.T, abortAt Millis) (*Sentinel, *instance, *instance) {
	t.Helper()
	id := func(c byte) string { return strings.Repeat(string(c), 40) }
	s, m := newStaggerCore(t, id('2'), []staggerPeer{{id('1'), alive}, {id('3'), alive}}, retryStagger)
	m.m.failoverTimeout = 10000
	now := staggerODownAt + timeBase
	r := s.createReplica(m, Addr{Host: "127.0.0.1", Port: 6380})
	r.flags |= fSDown
	r.priority, r.priorityKnown = 100, true
	m.flags |= fSDown | fODown
	m.sdownSince, m.odownSince = now, now
	s.now = now + retryStagger // our turn (rank 1)
	if !s.startFailoverIfNeeded(m) {
		t.Fatal("first attempt not started at its turn")
	}
	s.voteLeader(m, m.m.failoverEpoch, s.myid) // the self-vote of getLeader
	s.persist.held = nil                       // as if the epoch and vote were on disk
	s.now = abortAt + timeBase
	m.m.failoverState = FailoverSelectSlave // elected
	return s, m, r
}

// retryStagger is FailoverStagger in the retry tests.
const retryStagger Millis = 30

// bringBack makes r eligible: connected, answering, fresh INFO, no SDOWN.
func bringBack(s *Sentinel, r *instance) {
	r.flags &^= fSDown
	r.link.ccState, r.link.pcState = connUp, connUp
	r.link.lastAvailTime = s.now
	r.infoRefresh = s.now
	r.masterLinkDownTime = 0
}

// TestNoGoodSlaveEarlyRetry: after -failover-abort-no-good-slave the
// leader retries as soon as its own selection would succeed, at least
// NoGoodSlaveRetryDelay + rank × FailoverStagger after the abort, instead
// of 2×failover-timeout after its attempt (docs/core.md decision 27, fault
// lab A8). Before the rule the retry waited 20 s here.
func TestNoGoodSlaveEarlyRetry(t *testing.T) {
	const abortAt = staggerODownAt + 100
	s, m, r := retryCore(t, abortAt)
	s.failoverSelectSlave(m)
	if m.flags&fFailoverInProgress != 0 || m.m.noGoodSlave.at == 0 {
		t.Fatalf("no no-good-slave abort: state %v, record %+v", m.m.failoverState, m.m.noGoodSlave)
	}
	retryAt := abortAt + NoGoodSlaveRetryDelay + retryStagger // rank 1
	// The replica is back before the minimum delay: no start before it.
	s.now = abortAt + 500 + timeBase
	bringBack(s, r)
	if s.startFailoverIfNeeded(m) {
		t.Fatal("retried 500 ms after the abort")
	}
	s.now = retryAt - 60 + timeBase
	bringBack(s, r)
	if got := s.NextDeadline(retryAt - 60); got != retryAt {
		t.Errorf("NextDeadline = %d, want the early retry at %d", got, retryAt)
	}
	s.now = retryAt - 1 + timeBase
	if s.startFailoverIfNeeded(m) {
		t.Fatalf("retried at %d, before %d", retryAt-1, retryAt)
	}
	s.now = retryAt + timeBase
	if !s.startFailoverIfNeeded(m) {
		t.Fatalf("no retry at %d with an eligible replica (2×failover-timeout would be %d)",
			retryAt, staggerODownAt+retryStagger+2*m.m.failoverTimeout)
	}
	if m.m.failoverEpoch != 2 || m.m.noGoodSlave.at != 0 {
		t.Errorf("retry: epoch %d, record %+v; want epoch 2, record cleared", m.m.failoverEpoch, m.m.noGoodSlave)
	}
}

// TestNoEarlyRetry: the early retry needs all its conditions; otherwise
// the 2×failover-timeout of sentinel.c holds (counted without the random
// desync, docs/core.md decision 32).
func TestNoEarlyRetry(t *testing.T) {
	const abortAt = staggerODownAt + 100
	tests := []struct {
		name  string
		abort func(s *Sentinel, m *instance) // ends the attempt at abortAt
		after func(s *Sentinel, m *instance, r *instance)
	}{
		{"no replica eligible", noGoodSlave, func(s *Sentinel, m, r *instance) {}},
		{"replica back with priority 0", noGoodSlave, func(s *Sentinel, m, r *instance) {
			bringBack(s, r)
			r.priority = 0
		}},
		{"not elected", func(s *Sentinel, m *instance) {
			m.m.failoverState = FailoverWaitStart
			s.now = m.m.failoverStartTime + s.electionTimeout(m) + 1
			s.failoverWaitStart(m)
		}, bringBackAfter},
		{"slave timeout", func(s *Sentinel, m *instance) {
			m.m.failoverState = FailoverWaitPromotion
			m.m.failoverStateChange = s.now - m.m.failoverTimeout - 1
			s.failoverWaitPromotion(m)
		}, bringBackAfter},
		{"forced failover", func(s *Sentinel, m *instance) {
			m.flags |= fForceFailover
			s.failoverSelectSlave(m)
		}, bringBackAfter},
		{"voted for a peer since", noGoodSlave, func(s *Sentinel, m, r *instance) {
			s.voteLeader(m, m.m.failoverEpoch+1, strings.Repeat("3", 40))
			bringBack(s, r)
		}},
		{"newer failover known", noGoodSlave, func(s *Sentinel, m, r *instance) {
			m.m.configEpoch = m.m.failoverEpoch + 1
			bringBack(s, r)
		}},
		// Silent for more than down-after but not flagged SDOWN yet (its
		// turn in this tick comes after the master's; sim seed 900917).
		{"replica silent past down-after, not yet flagged", noGoodSlave, func(s *Sentinel, m, r *instance) {
			bringBack(s, r)
			r.downAfter = 1000
			r.link.lastAvailTime = s.now - 1500
			r.link.actPingTime = s.now - 1400
		}},
		{"master no longer ODOWN", noGoodSlave, func(s *Sentinel, m, r *instance) {
			m.flags &^= fODown
			bringBack(s, r)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, m, r := retryCore(t, abortAt)
			tc.abort(s, m)
			if m.flags&fFailoverInProgress != 0 {
				t.Fatalf("attempt not aborted (state %v)", m.m.failoverState)
			}
			first := m.m.failoverStartTime - m.m.startDesync // the block has no desync (stagger.go)
			for _, at := range []Millis{abortAt + 2000, first - timeBase + 2*m.m.failoverTimeout - 1} {
				s.now = at + timeBase
				tc.after(s, m, r)
				if s.startFailoverIfNeeded(m) {
					t.Fatalf("retried at %d, %d ms after the abort (2×failover-timeout ends at %d)",
						at, at-abortAt, first-timeBase+2*m.m.failoverTimeout)
				}
			}
		})
	}
}

// noGoodSlave ends the attempt with -failover-abort-no-good-slave (the
// replica is down).
func noGoodSlave(s *Sentinel, m *instance) { s.failoverSelectSlave(m) }

// bringBackAfter makes the replica eligible after an abort for another reason.
func bringBackAfter(s *Sentinel, _ *instance, r *instance) { bringBack(s, r) }
