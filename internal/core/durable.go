package core

// Non-durable state (docs/core.md "Non-durable state"; fault-lab finding
// F1): once a Persist fails, the sentinel cannot promise that a vote or an
// epoch it gives survives a restart, so until a Persist succeeds it
//
//   - answers every IS-MASTER-DOWN-BY-ADDR vote request with leader "*"
//     (no vote) and does not adopt the requested epoch,
//   - starts no failover of its own and does not vote for itself in one
//     already started (it is aborted as not elected),
//   - refuses SENTINEL FAILOVER,
//
// while it keeps monitoring, answering down-state questions, following
// newer configurations from hellos, and retrying the Persist every
// persistRetryDelay (the failed change stays dirty). Safety over liveness:
// real Sentinel (sentinel.c sentinelFlushConfig) only logs the failure and
// keeps voting, so after a restart from the stale file it can vote twice
// in one epoch.

import "strings"

// durable reports whether the last Persist (if any) succeeded.
func (s *Sentinel) durable() bool { return s.persist.failedAt == 0 }

// Durable reports whether the sentinel's state is on disk as far as it
// knows: false from a failed Persist until the next successful one. A
// non-durable sentinel grants no vote and starts no failover.
func (s *Sentinel) Durable() bool { return s.durable() }

// Changes counts the changes of persisted state so far (each one is
// covered by a later Persist). A caller that inspects the state after
// steps (the simulator's checks) can skip steps that did not change it.
func (s *Sentinel) Changes() uint64 { return s.persist.changes }

// becomeNonDurable records a failed Persist.
func (s *Sentinel) becomeNonDurable(err error) {
	p := &s.persist
	if p.failedAt != 0 {
		return
	}
	p.failedAt = s.now
	s.logf(LevelWarning, "Sentinel is not durable: the configuration could not be saved (%v); "+
		"it grants no vote and starts no failover until a save succeeds (retried every %d ms)", err, persistRetryDelay)
}

// becomeDurable records a successful Persist.
func (s *Sentinel) becomeDurable() {
	p := &s.persist
	if p.failedAt == 0 {
		return
	}
	s.logf(LevelWarning, "Sentinel is durable again: configuration saved on disk %d ms after the first failure; voting and failovers resumed",
		s.now-p.failedAt)
	p.failedAt = 0
	p.refusedEpoch = 0
	for _, m := range s.sortedMasters() {
		if m.m.failoverDelayLogged == nonDurableLogged {
			m.m.failoverDelayLogged = 0
		}
	}
}

// nonDurableLogged marks failoverDelayLogged once the refusal to start a
// failover while non-durable has been logged.
const nonDurableLogged Millis = -2

// refuseVoteNonDurable logs (once per epoch) a vote request refused
// because the sentinel is non-durable.
func (s *Sentinel) refuseVoteNonDurable(runid string, epoch uint64) {
	p := &s.persist
	if p.refusedEpoch == epoch {
		return
	}
	p.refusedEpoch = epoch
	s.logf(LevelWarning, "Refused to vote for %s in epoch %d: the configuration could not be saved (not durable)",
		strings.ToLower(runid), epoch)
}

// mayStartFailover reports whether a failover of m may start now as far
// as durability goes, logging a refusal once.
func (s *Sentinel) mayStartFailover(m *instance) bool {
	if s.durable() {
		return true
	}
	if m.m.failoverDelayLogged != nonDurableLogged {
		m.m.failoverDelayLogged = nonDurableLogged
		s.logf(LevelWarning, "Not starting a failover of %s: the configuration could not be saved (not durable)", m.name)
	}
	return false
}
