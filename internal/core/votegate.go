package core

import (
	"strconv"
	"strings"
)

// The vote gate: a deliberate difference from sentinel.c (docs/core.md
// "Vote gate", docs/decisions.md). sentinel.c grants a vote request
// whatever it sees of the master, so a sentinel whose view is stale (one
// cut off from the master, or from everything, whose election reaches
// its peers at the heal) gets a healthy master failed over with the
// votes of sentinels that can see it answering. A gosentinel voter grants
// a vote only for a master it sees down itself: the Raft analogue is
// PreVote with leader stickiness (a follower that hears from a live
// leader does not vote for a challenger). A refused request is answered
// as "no vote" ([0, "*", 0]), adopts no epoch, persists nothing and emits
// no +new-epoch or +vote-for-leader.
//
// The one election that legitimately runs while the master answers is a
// COORDINATED failover (coordinated.go, Valkey 9: "peers vote whether or
// not they see the primary down"). The request does not say so, so the
// voter asks the requesting peer: SENTINEL MASTER <name> over the command
// link it already has, and while the peer's flags show
// coordinated_failover the requests of that peer in that epoch pass the
// gate (the requester re-asks every FastAskPeriod, fastdetect.go).

// coordGrantTTL is how long a peer's coordinated_failover flag, once
// seen, lets its vote requests pass the gate.
const coordGrantTTL = 5 * FastAskPeriod

// peerProbe is the vote gate's state about one peer sentinel.
type peerProbe struct {
	pending bool   // a SENTINEL MASTER is in flight to the peer
	epoch   uint64 // the refused request's epoch the probe is about
	// coordEpoch/coordSeen: the peer showed coordinated_failover at
	// coordSeen while asking for votes in coordEpoch.
	coordEpoch uint64
	coordSeen  Millis
	// refusedEpoch is the last epoch a refusal was logged for.
	refusedEpoch uint64
}

// seesMasterDown reports whether we see m down enough to vote for its
// failover: S_DOWN here, or m reports role:slave, and not in TILT (where
// our view of m is frozen and is-master-down-by-addr answers 0).
func (s *Sentinel) seesMasterDown(m *instance) bool {
	if s.tilt {
		return false
	}
	return m.flags&fSDown != 0 || m.roleReported == fSlave
}

// voteGateOpen reports whether a vote request of runid in epoch about m
// may be considered under sentinel.c's rules; when it may not, the
// refusal is logged and, for a known peer, a coordinated-failover probe
// is sent.
func (s *Sentinel) voteGateOpen(m *instance, runid string, epoch uint64) bool {
	if s.seesMasterDown(m) || m.m.ourVoteEpoch >= epoch {
		// Seen down; or the request cannot change our vote (we voted in
		// its epoch or a newer one), and sentinel.c's answer reveals it.
		return true
	}
	si := peerByRunID(m, runid)
	if si != nil && !s.tilt && si.probe.coordEpoch == epoch && s.now-si.probe.coordSeen <= coordGrantTTL {
		return true
	}
	s.refuseVoteMasterUp(m, si, runid, epoch)
	return false
}

// peerByRunID returns the known sentinel of m with that runid, or nil.
func peerByRunID(m *instance, runid string) *instance {
	for _, si := range m.sortedSentinels() {
		if strings.EqualFold(si.runid, runid) {
			return si
		}
	}
	return nil
}

// refuseVoteMasterUp logs a refused request (once per peer and epoch; at
// verbose level for runids we do not know, so that a client repeating
// requests cannot flood the log) and probes a known peer.
func (s *Sentinel) refuseVoteMasterUp(m, si *instance, runid string, epoch uint64) {
	why := "it is up here"
	if s.tilt {
		why = "we are in TILT"
	}
	if si == nil {
		s.logf(LevelVerbose, "Refused to vote for unknown sentinel %s in epoch %d: master %s %s",
			strings.ToLower(runid), epoch, m.name, why)
		return
	}
	if si.probe.refusedEpoch != epoch {
		si.probe.refusedEpoch = epoch
		s.logf(LevelNotice, "Refused to vote for %s in epoch %d: master %s %s (docs/core.md, vote gate)",
			si.runid, epoch, m.name, why)
	}
	if s.tilt || si.probe.pending {
		return
	}
	snd, ok := s.newSend(si, false, SendPeerMaster, s.mapCmd(si, "SENTINEL"), "master", m.name)
	if !ok {
		return
	}
	si.probe.pending = true
	si.probe.epoch = epoch
	s.emit(snd)
}

// onPeerMasterReply reads the flags of a peer's SENTINEL MASTER reply
// (flat key/value array, or a map under RESP3).
func (s *Sentinel) onPeerMasterReply(si *instance, v Value) {
	if v.Kind != KindArray && v.Kind != KindMap {
		return
	}
	for k := 0; k+1 < len(v.Elems); k += 2 {
		if v.Elems[k].Str != "flags" {
			continue
		}
		flags := strings.Split(v.Elems[k+1].Str, ",")
		coord, inProgress := false, false
		for _, f := range flags {
			coord = coord || f == "coordinated_failover"
			inProgress = inProgress || f == "failover_in_progress"
		}
		if coord && inProgress {
			first := si.probe.coordEpoch != si.probe.epoch
			si.probe.coordEpoch = si.probe.epoch
			si.probe.coordSeen = s.now
			if !first {
				return
			}
			s.logf(LevelNotice, "%s runs a coordinated failover in epoch %s: its vote requests pass the vote gate",
				si.runid, strconv.FormatUint(si.probe.epoch, 10))
		}
		return
	}
}
