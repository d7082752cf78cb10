package core

import (
	"fmt"
	"strconv"
	"strings"
)

// voteLeader is sentinelVoteLeader: adopt a greater epoch, vote for
// reqRunID if we did not vote for this master in this epoch or a later one
// and no failover of it in this epoch or a later one is known, and return
// our vote.
//
// sentinel.c also refuses when its current epoch is greater than reqEpoch,
// which couples the elections of different masters: when many masters
// fail at once, a voter whose epoch moved on because of another master's
// election refuses this one, and the master waits 2×failover-timeout (the
// simulator's TestMassFailover: 50 masters, 128 elections, p95 22.5 s).
// Per master the rule is not needed: votes are one per master and epoch
// and persisted (leader-epoch) before the reply, and a stale request is
// refused by the master's own leader epoch or config epoch (docs/core.md
// "Votes are per master").
func (s *Sentinel) voteLeader(m *instance, reqEpoch uint64, reqRunID string) (string, uint64) {
	ms := m.m
	if reqEpoch > s.currentEpoch {
		s.currentEpoch = reqEpoch
		s.markDirty()
		s.revealEvent(LevelWarning, "+new-epoch", m, strconv.FormatUint(s.currentEpoch, 10))
	}
	if ms.ourVoteEpoch < reqEpoch && ms.configEpoch < reqEpoch {
		ms.ourVote = reqRunID
		ms.ourVoteEpoch = reqEpoch
		s.markDirty()
		s.revealEvent(LevelWarning, "+vote-for-leader", m, fmt.Sprintf("%s %d", ms.ourVote, ms.ourVoteEpoch))
		if !strings.EqualFold(ms.ourVote, s.myid) {
			ms.startDesync = s.desync()
			ms.failoverStartTime = s.now + ms.startDesync
			ms.otherVoteAt = s.now // retry.go
		}
	}
	return ms.ourVote, ms.ourVoteEpoch
}

// desync returns the random 0..999 ms added to failover start times.
func (s *Sentinel) desync() Millis { return Millis(s.rng.IntN(int(MaxDesync))) }

// electionResult is the outcome of counting votes (sentinelGetLeader).
type electionResult struct {
	winner string
	votes  int
}

// leaderThreshold returns the number of votes a leader needs: a majority
// of the sentinels we know plus ourselves, and at least the quorum. After
// a SENTINEL RESET the sentinels counted may include forgotten ones
// (voterfloor.go).
func leaderThreshold(knownSentinels, quorum int) int {
	t := (knownSentinels+1)/2 + 1
	if quorum > t {
		t = quorum
	}
	return t
}

// getLeader is sentinelGetLeader: count the votes of the peers in the
// current epoch, cast our own vote for the most voted (or ourselves), and
// return the winner if it has a majority and the quorum.
func (s *Sentinel) getLeader(m *instance, epoch uint64) string {
	counters := map[string]int{}
	var order []string
	for _, si := range m.sortedSentinels() {
		// sentinel.c counts votes of sentinel.current_epoch, which can be
		// newer than the failover epoch: a stale attempt could then win
		// with votes cast for a newer election (sim seed 763). Count only
		// votes of the election we run; when nothing was adopted
		// meanwhile, both epochs are equal.
		if si.votedLeader != "" && si.votedLeaderEpoch == epoch {
			if counters[si.votedLeader] == 0 {
				order = append(order, si.votedLeader)
			}
			counters[si.votedLeader]++
		}
	}
	winner, maxVotes := "", 0
	for _, c := range order { // first most voted in runid order of voters
		if counters[c] > maxVotes {
			winner, maxVotes = c, counters[c]
		}
	}
	candidate := winner
	if candidate == "" {
		candidate = s.myid
	}
	myVote, myEpoch := s.voteLeader(m, epoch, candidate)
	if myVote != "" && myEpoch == epoch {
		counters[myVote]++
		if counters[myVote] > maxVotes {
			winner, maxVotes = myVote, counters[myVote]
		}
	}
	if winner != "" && maxVotes < leaderThreshold(s.voters(m)-1, m.m.quorum) {
		winner = ""
	}
	return winner
}

// askMasterState is sentinelAskMasterStateToOtherSentinels.
func (s *Sentinel) askMasterState(m *instance, forced bool) {
	for _, si := range m.sortedSentinels() {
		s.expireMasterDownReply(si)
		if (m.flags&fSDown == 0 && !m.m.newer.coordinated) || si.link.disconnected() {
			continue
		}
		if !forced && (si.askPending || s.now-si.lastMDReplyTime < s.askPeriodFor(m, si)) {
			continue
		}
		s.askPeer(m, si)
	}
}

// askPeer sends one IS-MASTER-DOWN-BY-ADDR about m to si: a vote request
// in our failover's epoch while one runs, "*" otherwise.
func (s *Sentinel) askPeer(m, si *instance) {
	// A "*" ask requests no vote: it carries the current epoch that is
	// on disk and leaves at once, not after the saves of other masters'
	// votes and failover starts (docs/core.md decision 38).
	runid, epoch := "*", min(s.currentEpoch, s.persist.savedEpoch)
	if m.m.failoverState > FailoverNone {
		// Ask for votes in our failover's epoch (sentinel.c sends the
		// current epoch, see getLeader): peers that moved on to a
		// newer epoch then refuse, and the stale attempt times out.
		runid, epoch = s.myid, m.m.failoverEpoch
	}
	snd, ok := s.newSend(si, false, SendAskMasterDown, s.mapCmd(si, "SENTINEL"), "is-master-down-by-addr",
		s.announceHost(m.addr), strconv.Itoa(m.addr.Port), strconv.FormatUint(epoch, 10), runid)
	if !ok {
		return
	}
	si.askPending = true
	if runid == "*" {
		s.emit(snd)
		return
	}
	s.revealSend(snd)
}

// expireMasterDownReply forgets a peer's IS-MASTER-DOWN-BY-ADDR answer
// older than 5×ask-period (the first half of the loop in
// sentinelAskMasterStateToOtherSentinels).
func (s *Sentinel) expireMasterDownReply(si *instance) {
	if s.now-si.lastMDReplyTime > 5*s.timing.AskPeriod {
		si.flags &^= fMasterDown
		si.votedLeader = ""
	}
}

// onIsMasterDownReply is sentinelReceiveIsMasterDownReply.
func (s *Sentinel) onIsMasterDownReply(si *instance, v Value) {
	if v.Kind != KindArray || len(v.Elems) != 3 || v.Elems[0].Kind != KindInt ||
		(v.Elems[1].Kind != KindBulk && v.Elems[1].Kind != KindStatus) || v.Elems[2].Kind != KindInt {
		return
	}
	si.lastMDReplyTime = s.now
	if v.Elems[0].Int == 1 {
		si.flags |= fMasterDown
	} else {
		si.flags &^= fMasterDown
	}
	if leader := v.Elems[1].Str; leader != "*" {
		epoch := uint64(v.Elems[2].Int)
		if si.votedLeaderEpoch != epoch {
			s.logf(LevelNotice, "%s voted for %s %d", si.name, leader, epoch)
		}
		si.votedLeader = leader
		si.votedLeaderEpoch = epoch
	}
}

// cmdIsMasterDownByAddr answers SENTINEL IS-MASTER-DOWN-BY-ADDR
// <ip> <port> <current-epoch> <runid>. The reply reveals the vote, so it
// is held until the vote is persisted; if the persist fails the reply
// carries no vote.
func (s *Sentinel) cmdIsMasterDownByAddr(id uint64, args []string) {
	port, ok1 := parseLL(args[3])
	reqEpoch, ok2 := parseLL(args[4])
	if !ok1 || !ok2 {
		s.respond(id, ErrorValue("ERR value is not an integer or out of range"))
		return
	}
	if reqEpoch < 0 {
		s.respond(id, ErrorValue("ERR invalid epoch "+args[4]+": epochs are never negative (docs/security.md)"))
		return
	}
	var m *instance
	for _, x := range s.sortedMasters() {
		if addrEqualsHost(x.addr, args[2], int(port)) {
			m = x
			break
		}
	}
	down := int64(0)
	if !s.tilt && m != nil && m.flags&fSDown != 0 {
		down = 1
		s.reaskOnPeerAsk(m) // fastdetect.go
	}
	if args[5] == "*" {
		// No vote requested: the reply reveals neither a vote nor an epoch,
		// so it needs no persist (this is the path that gathers ODOWN).
		s.respond(id, Array(Int(down), Bulk("*"), Int(0)))
		return
	}
	if why := s.epochRefusal(uint64(reqEpoch)); why != "" {
		// epoch.go: a vote request implausibly far ahead would poison the
		// current epoch; a real peer reads the error as "no vote".
		s.logf(LevelWarning, "Refused a vote request for %s:%s: %s", args[2], args[3], why)
		s.respond(id, ErrorValue("ERR "+why+" (docs/security.md)"))
		return
	}
	if !s.durable() {
		// durable.go: a vote we could not keep across a restart is no vote.
		s.refuseVoteNonDurable(args[5], uint64(reqEpoch))
		s.respond(id, Array(Int(down), Bulk("*"), Int(0)))
		return
	}
	if m != nil && !s.voteGateOpen(m, args[5], uint64(reqEpoch)) {
		// votegate.go: no vote for a master we see up; the requester's
		// epoch is not adopted and nothing is persisted.
		s.respond(id, Array(Int(down), Bulk("*"), Int(0)))
		return
	}
	leader, leaderEpoch := "", uint64(0)
	if m != nil {
		leader, leaderEpoch = s.voteLeader(m, uint64(reqEpoch), args[5])
	}
	if leader == "" {
		leader = "*"
	}
	// The vote leaves only once it is on disk; if the save fails, the
	// peer is told no vote was given.
	s.respondPersisted(id, Array(Int(down), Bulk(leader), Int(int64(leaderEpoch))), Array(Int(down), Bulk("*"), Int(0)))
}

// parseLL parses a decimal integer strictly (string2ll).
func parseLL(str string) (int64, bool) {
	n, err := strconv.ParseInt(str, 10, 64)
	if err != nil || (len(str) > 1 && str[0] == '0') || strings.HasPrefix(str, "+") {
		return 0, false
	}
	return n, true
}
