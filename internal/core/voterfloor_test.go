package core

import (
	"testing"
)

// newQuorumOneCore is newTestCore with quorum 1 of 3 sentinels, the
// deployment of sim finding F12 (down-after 1000, failover-timeout 3000).
func newQuorumOneCore(t *testing.T) *Sentinel {
	t.Helper()
	return newTestCore(t, func(mc *MasterConfig) {
		mc.Quorum, mc.DownAfter, mc.FailoverTimeout = 1, 1000, 3000
	})
}

// TestVoterFloorAfterReset (docs/core.md decision 33, sim finding F12): a
// sentinel that SENTINEL RESET made forget its two peers still needs 2 of
// 3 votes to lead, not its own vote alone, until as many sentinels are
// known again or down-after + 2 × failover-timeout has passed.
func TestVoterFloorAfterReset(t *testing.T) {
	s := newQuorumOneCore(t)
	m := s.masters["mym"]
	if resp, _ := request(s, 100, 1, "SENTINEL", "RESET", "*"); len(resp) != 1 || renderValue(resp[0].Value) != ":1" {
		t.Fatalf("RESET reply: %v", resp)
	}
	if len(m.m.sentinels) != 0 {
		t.Fatalf("RESET kept %d sentinels", len(m.m.sentinels))
	}
	// Cut from its peers, it sees the master down and runs an election in
	// epoch 1: its own vote is 1 of 3.
	s.now = timeBase + 1200
	s.currentEpoch = 1
	if w := s.getLeader(m, 1); w != "" {
		t.Fatalf("elected %q by its own vote alone right after RESET (voters %d)", w, s.voters(m))
	}
	if usable, _, noAuth := quorumReachable(m, s.voters(m)); usable != 1 || !noAuth {
		t.Fatalf("CKQUORUM counts %d usable, majority reachable %v", usable, !noAuth)
	}
	// One peer rediscovered and voting for it: 2 of 3, elected; the floor
	// (3) is not reached yet and stays.
	si := s.createSentinel(m, peerB, Addr{Host: "127.0.0.1", Port: 26380})
	si.votedLeader, si.votedLeaderEpoch = testMyID, 2
	s.currentEpoch = 2
	if w := s.getLeader(m, 2); w != testMyID {
		t.Fatalf("not elected with 2 of 3 votes: %q", w)
	}
	if m.m.floor.n != 3 {
		t.Fatalf("floor %+v after rediscovering 1 of 2 peers", m.m.floor)
	}
	// The second peer is back: the floor is gone.
	s.createSentinel(m, peerC, Addr{Host: "127.0.0.1", Port: 26381})
	if m.m.floor != (voterFloor{}) {
		t.Fatalf("floor %+v after rediscovering every peer", m.m.floor)
	}

	// A second RESET forgets both again; the window expires: the removal
	// procedure (RESET after stopping the peers) then counts 1 voter.
	request(s, 2000, 2, "SENTINEL", "RESET", "mym")
	if m.m.floor.n != 3 || m.m.floor.until != timeBase+2000+1000+2*3000 {
		t.Fatalf("floor after the second RESET: %+v", m.m.floor)
	}
	s.currentEpoch = 3
	s.now = timeBase + 2000 + 1000 + 2*3000 - 1
	if w := s.getLeader(m, 3); w != "" {
		t.Fatalf("elected %q alone 1 ms before the floor expires", w)
	}
	s.now++
	s.currentEpoch = 4
	if w := s.getLeader(m, 4); w != testMyID {
		t.Fatalf("not elected alone after the floor expired: %q (voters %d)", w, s.voters(m))
	}
}

// TestVoterFloorNotLowered: a RESET within the window of an earlier one
// keeps the earlier floor (the sentinels it forgot were not rediscovered).
func TestVoterFloorNotLowered(t *testing.T) {
	s := newQuorumOneCore(t)
	m := s.masters["mym"]
	request(s, 100, 1, "SENTINEL", "RESET", "*")
	request(s, 500, 2, "SENTINEL", "RESET", "*")
	if m.m.floor.n != 3 || m.m.floor.until != timeBase+500+1000+2*3000 {
		t.Fatalf("floor after two RESETs: %+v", m.m.floor)
	}
}
