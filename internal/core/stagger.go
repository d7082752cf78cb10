package core

// Staggered failover start (docs/core.md decision 21). With fast detection
// (fastdetect.go) the sentinels of a master reach ODOWN within a few ms of
// each other; if all of them start a failover in the same epoch, each votes
// for itself, nobody wins, and the retry waits 2×failover-timeout. An
// automatic failover therefore starts only rank×staggerStep after ODOWN,
// where rank counts the live peers that would start before us. The lowest
// ranked live sentinel starts at once; its vote request reaches the others
// before their turn, and voting for it sets failover_start_time, which
// blocks their own start. Nothing changes on the wire. A forced failover
// (SENTINEL FAILOVER) is not staggered.

// staggerStep is the delay per rank: FailoverStagger while this
// sentinel's config saves are fast, maxStaggerStep once one of its last
// persistSamples saves took more than a third of FailoverStagger
// (docs/core.md decision 29). A candidate's vote requests leave only
// once its new epoch and self-vote are on disk (persist.go), after a save
// already in flight if there is one; when that takes longer than the
// step, the next sentinel in turn starts before the request reaches it,
// in the same epoch, and votes for itself. On the fault lab's loaded
// machine fsync took p50 57 ms, p90 632 ms, and one C3 run ended its
// first election with three candidates and no leader (the retry came
// 2×failover-timeout later). Two levels rather than a step proportional
// to the saves: each sentinel measures its own saves, and with steps that
// differ a little a rank-2 turn (2×b) can land on a rank-1 turn (a) — in
// the simulator's split-vote experiment a proportional step split 2 of 60
// first elections with saves of 50–150 ms, where the fixed step split
// none. There (internal/sim, TestSplitVoteTwoCandidates,
// TestSplitVoteSlowDisk), with saves of 100–300 / 200–700 ms, the fixed
// 200 ms step left 17 / 52 of 60 first elections without a leader, this
// one 0 / 0; with saves under 67 ms nothing changes. The cost: a
// sentinel that waits for a lower-ranked peer that never starts (dead, or
// cut off with the master) starts up to rank×maxStaggerStep after ODOWN
// (first +odown → +elected-leader p95 486 → 1251 ms with 50–150 ms saves).
func (s *Sentinel) staggerStep() Millis {
	if 3*s.slowestRecentPersist() <= s.timing.FailoverStagger {
		return s.timing.FailoverStagger
	}
	return max(s.timing.FailoverStagger, maxStaggerStep)
}

// maxStaggerStep is staggerStep on a slow disk (SENTINEL_MAX_DESYNC, the
// spread sentinel.c itself puts on failover start times).
const maxStaggerStep = MaxDesync

// failoverRank is the number of known peer sentinels of m whose runid
// sorts before ours, except those gone well before since (goneBefore):
// m's SDOWN at a first attempt, the end of the block at a retry
// (retryBase).
func (s *Sentinel) failoverRank(m *instance, since Millis) int {
	rank := 0
	for _, si := range m.m.sentinels {
		if si.runid != "" && si.runid < s.myid && !goneBefore(m, si, since) {
			rank++
		}
	}
	return rank
}

// goneBefore reports a peer that was SDOWN already down-after before
// since (m's SDOWN, or the end of the block for a retry): every sentinel
// of m sees it gone by now, so none waits for it. A peer lost together
// with m (the master's host died, or was cut off with its sentinel, lab
// C1) still counts at the first attempt: the sentinels' SDOWN times of the
// same failure differ by their PING phases, and a rank that depends on
// them let two sentinels with different views both take rank 1 and start
// in the same instant (docs/core.md decision 22). At a retry, 2 ×
// failover-timeout later, a leader that died after its election (lab B3k)
// is skipped by every survivor alike.
func goneBefore(m, si *instance, since Millis) bool {
	return si.flags&fSDown != 0 && si.sdownSince < since-m.downAfter
}

// blockEnd is when the 2×failover-timeout that follows our last failover
// attempt or our last vote for another sentinel of m ends (sentinel.c
// sentinelStartFailoverIfNeeded), counted without the random desync that
// sentinel.c adds to failover_start_time: the retry is ordered by rank
// instead (retryBase). blocked is false when there was none.
func (s *Sentinel) blockEnd(m *instance) (end Millis, blocked bool) {
	ms := m.m
	if ms.failoverStartTime == 0 {
		return 0, false
	}
	return ms.failoverStartTime - ms.startDesync + 2*ms.failoverTimeout, true
}

// retryBase returns the instant from which the turns of a retry count:
// the end of the block when it ends after m became ODOWN (docs/core.md
// decision 32). sentinel.c spreads retries only by the random
// 0..999 ms of failover_start_time, so two survivors whose leader died
// after its election (lab B3k), or two candidates that split an epoch,
// retried within a few hundred ms of each other, and with a slow disk (a
// candidate's vote requests wait for its save) split again. Counting
// the turns from the block's end orders the retry by rank like the first
// attempt: the voters of one request voted within a round trip of each
// other, and candidates that split started within a save of each other.
// A retry's step is maxStaggerStep (1 s) whatever the disk: the first
// ordering failed or its leader died, a latency or a save above the
// 200 ms step may be why (split_vote.txt: 250 ms), and the random spread
// it replaces is 1 s wide too.
func (s *Sentinel) retryBase(m *instance) (Millis, bool) {
	end, blocked := s.blockEnd(m)
	if !blocked || end <= m.odownSince {
		return 0, false
	}
	return end, true
}

// failoverStartAt is the earliest instant at which an automatic failover of
// the ODOWN master m may start: rank × staggerStep after m became ODOWN,
// or after the block of a previous attempt or vote ended (a retry). A
// sentinel that could select no replica
// only because it has seen the master down for less time than the
// replicas have been cut from it (yieldsLead) starts after every peer's
// turn (yieldStep), at the first attempt and at each retry.
func (s *Sentinel) failoverStartAt(m *instance) Millis {
	base, since, step := m.odownSince, m.sdownSince, s.staggerStep()
	b, retry := s.retryBase(m)
	if retry {
		base, since, step = b, b, max(step, maxStaggerStep)
	}
	rank := Millis(s.failoverRank(m, since))
	if !s.yieldsLead(m) && !(retry && s.cannotSelect(m)) {
		return base + rank*step
	}
	return base + (rank+Millis(len(m.m.sentinels))+1)*yieldStep(step)
}

// cannotSelect reports, at a retry, that our replica selection would fail
// now while peers might succeed: we go after every peer's turn, as
// yieldsLead does at the first attempt. With the retry ordered by rank
// (retryBase) a rank-0 sentinel whose selection fails for a reason of its
// own (its INFO of the replicas, its view of their links) would otherwise
// lead and abort with -failover-abort-no-good-slave at every retry, its
// voters blocked each time, while a peer that could promote a replica
// never got a turn (sim seed 279: seven aborts in a row, no convergence;
// sentinel.c's random desync let another sentinel win now and then).
// When no sentinel can select, each still starts, later. Knowing no
// replica at all counts too (sim seed 1615703: the rank-0 sentinel, whose
// SENTINEL RESET had forgotten the replicas while the master it monitors
// ran as a replica listing none, led and aborted at every retry; its
// peer that knew them never got a turn).
func (s *Sentinel) cannotSelect(m *instance) bool {
	return len(m.m.sentinels) > 0 && s.selectSlave(m) == nil
}

// yieldStep is the step per turn of a sentinel that yields the lead: never
// less than maxStaggerStep, whatever its own disk. Each sentinel chooses
// its step from its own saves (staggerStep), and a yielding sentinel must
// come after every peer's turn, not after the turns it would take with its
// own step: in fault lab B2 the restarted sentinel (fast saves since its
// restart, step 200 ms) yielded 3 × 200 ms after ODOWN, while the peer
// that watched the master die (slow saves, step 1 s) had its rank-1 turn
// 1 s after ODOWN; the restarted one asked first, won, aborted with no
// good replica, and did the same at the retry (docs/core.md decision 26).
// Yielding is rare (no replica is eligible for us), so the extra wait
// costs little, and the peers' vote desync (0..MaxDesync) after a retry
// delay is covered by the same margin.
func yieldStep(step Millis) Millis { return max(step, maxStaggerStep) }

// yieldsLead reports that no replica of m is eligible for us, but one
// would be for a sentinel that has seen m down longer. Selection drops a
// replica whose master link has been down for more than 10×down-after
// plus the time this sentinel has seen the master SDOWN (sentinelSelectSlave,
// reference §15). A sentinel restarted while the master was already down
// (lab B2: two of three sentinels restarted 30 s after the master's
// SIGKILL) has seen it SDOWN for a few seconds only, so it excludes every
// replica, while its peer that watched the master die accepts them. If it
// ran first (lowest runid, rank 0) it won the election, aborted with
// -failover-abort-no-good-slave and blocked its voters for
// 2×failover-timeout, and as its view and the replicas' link-down time
// grow at the same rate it did so at every retry: no failover at all.
// Yielding the turn lets the peer that can carry the failover out ask
// first; when every sentinel yields, each still starts, later.
func (s *Sentinel) yieldsLead(m *instance) bool {
	if m.flags&fSDown == 0 || len(m.m.replicas) == 0 || len(m.m.sentinels) == 0 {
		return false
	}
	p := selectParams{
		pingPeriod:      s.timing.PingPeriod,
		infoPeriod:      s.timing.InfoPeriod,
		masterSDown:     true,
		masterDownAge:   s.now - m.sdownSince,
		masterDownAfter: m.downAfter,
	}
	cs := make([]candidate, 0, len(m.m.replicas))
	for _, r := range m.sortedReplicas() {
		cs = append(cs, s.candidateOf(r))
	}
	if len(rankCandidates(p, cs)) > 0 {
		return false
	}
	p.masterDownAge = maxMasterDownAge
	return len(rankCandidates(p, cs)) > 0
}

// maxMasterDownAge stands for "the master has been down for ever" in
// yieldsLead: far above any link-down time, far below an overflow.
const maxMasterDownAge Millis = 1 << 50
