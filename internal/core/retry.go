package core

// Early retry after -failover-abort-no-good-slave (docs/core.md decision
// 27; fault lab A8). sentinel.c waits 2×failover-timeout after every
// attempt, whatever ended it. An attempt that aborted with no-good-slave
// was elected: it failed only because no replica could be promoted at
// that moment (every replica down, or cut from the master too long). When
// a replica comes back while the master is still ODOWN, waiting out the
// rest of 2×failover-timeout (6 min by default, 20 s in the lab) leaves
// the group without a master for no reason. The leader of that attempt
// may therefore start a new one (a new epoch) as soon as
//
//   - the master is still ODOWN and no failover is in progress (the
//     ordinary conditions of startFailoverIfNeeded),
//   - it has neither voted for another sentinel of this master (since its
//     attempt started) nor seen a newer failover of it since the abort (failover_start_time and the
//     master's leader epoch are still those of its own attempt),
//   - at least NoGoodSlaveRetryDelay plus its rank × staggerStep have
//     passed since the abort (stagger.go: a lower-ranked sentinel in the
//     same position asks first, and voting for it disqualifies us), and
//   - its own replica selection would now succeed (selectSlave, the very
//     function the attempt will use).
//
// Every other abort (not elected, slave timeout, superseded) and a forced
// failover (SENTINEL FAILOVER) keep the 2×failover-timeout of sentinel.c.
// No competing candidate appears: the voters of the aborted attempt voted
// for its leader, which set their own failover_start_time and blocks their
// start for 2×failover-timeout (in sentinel.c as here), and a sentinel that
// voted for anyone since is no longer entitled to the early retry. A real
// redis-sentinel voter grants the new request as any request with a higher
// epoch. The epoch rate stays bounded: one attempt per
// NoGoodSlaveRetryDelay at most, and only while the selection succeeds
// when the attempt starts and fails again when it selects.

// noGoodSlaveAbort records the last automatic attempt of a master that
// aborted with -failover-abort-no-good-slave (at == 0: none, or no longer
// entitled to an early retry).
type noGoodSlaveAbort struct {
	at    Millis // when it aborted
	start Millis // failover_start_time of that attempt
	epoch uint64 // its failover epoch (our self-vote's leader epoch)
}

// noteNoGoodSlave records an automatic attempt of m aborting with
// no-good-slave (called before abortFailover).
func (s *Sentinel) noteNoGoodSlave(m *instance) {
	ms := m.m
	if m.flags&fForceFailover != 0 || (ms.otherVoteAt != 0 && ms.otherVoteAt >= ms.attemptStart) {
		// A forced failover, or one during which we voted for another
		// sentinel (a request of an older epoch still passes the
		// per-master vote rule, sim seed 1109464): that candidate may be
		// failing over now, so no early retry.
		ms.noGoodSlave = noGoodSlaveAbort{}
		return
	}
	ms.noGoodSlave = noGoodSlaveAbort{at: s.now, start: ms.failoverStartTime, epoch: ms.failoverEpoch}
}

// earlyRetryAt returns the instant from which m may be retried before
// 2×failover-timeout, if our last attempt aborted with no-good-slave and
// nothing since (a vote for another sentinel, a newer failover of m)
// took the right away. The replica selection is checked by the caller.
func (s *Sentinel) earlyRetryAt(m *instance) (Millis, bool) {
	ms := m.m
	r := ms.noGoodSlave
	if r.at == 0 || ms.failoverStartTime != r.start || ms.ourVoteEpoch != r.epoch ||
		ms.configEpoch >= r.epoch || m.flags&fFailoverInProgress != 0 {
		return 0, false
	}
	return r.at + NoGoodSlaveRetryDelay + Millis(s.failoverRank(m, m.sdownSince))*s.staggerStep(), true
}

// earlyRetry returns the replica our selection would promote now if an
// automatic failover of m may start although 2×failover-timeout has not
// passed since our last attempt (see above); nil otherwise.
//
// A tick handles the master before its replicas, so their SDOWN flags are
// those of the previous tick: a replica silent for more than down-after
// may not be flagged yet (after a stall, sim seed 900917: the retry went
// out on a replica flagged SDOWN later in the same tick, and its selection
// would have failed again). Such a replica allows no retry; the next tick
// decides on fresh flags.
func (s *Sentinel) earlyRetry(m *instance) *instance {
	at, ok := s.earlyRetryAt(m)
	if !ok || s.now < at {
		return nil
	}
	r := s.selectSlave(m)
	if r == nil || s.silentFor(r) > r.downAfter {
		return nil
	}
	return r
}
