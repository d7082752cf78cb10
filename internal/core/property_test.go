package core

import (
	"math/rand/v2"
	"testing"
)

// TestPropertyGetLeader checks getLeader against the rules it must obey,
// over random vote configurations: a winner has at least
// max(quorum, majority) votes of the election's own epoch, counting ours;
// we never change a vote already given in that epoch.
func TestPropertyGetLeader(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	ids := []string{testMyID, peerB, peerC, "dddddddddddddddddddddddddddddddddddddddd", "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"}
	for iter := 0; iter < 5000; iter++ {
		s := newTestCore(t)
		m := s.masters["mym"]
		for _, si := range m.sortedSentinels() {
			delete(m.m.sentinels, si.name)
			s.dictChanged()
		}
		n := rng.IntN(5)
		for k := 0; k < n; k++ {
			runid := ids[1+k%4]
			if k >= 4 {
				break
			}
			si := s.createSentinel(m, runid, Addr{Host: "127.0.0.1", IP: "127.0.0.1", Port: 30000 + k})
			if rng.IntN(4) > 0 {
				si.votedLeader = ids[rng.IntN(len(ids))]
				si.votedLeaderEpoch = uint64(4 + rng.IntN(2)) // 4 or 5
			}
		}
		m.m.quorum = 1 + rng.IntN(len(m.m.sentinels)+1)
		const epoch = 5
		s.currentEpoch = uint64(4 + rng.IntN(2))
		if rng.IntN(2) == 0 {
			m.m.ourVote, m.m.ourVoteEpoch = ids[rng.IntN(len(ids))], uint64(4+rng.IntN(2))
		} else {
			m.m.ourVote, m.m.ourVoteEpoch = "", 0
		}
		before := struct {
			leader string
			epoch  uint64
		}{m.m.ourVote, m.m.ourVoteEpoch}

		w := s.getLeader(m, epoch)

		if before.epoch == epoch && (m.m.ourVote != before.leader || m.m.ourVoteEpoch != epoch) {
			t.Fatalf("iter %d: vote changed within epoch %d: %q -> %q", iter, epoch, before.leader, m.m.ourVote)
		}
		if m.m.ourVoteEpoch < before.epoch {
			t.Fatalf("iter %d: leader epoch decreased", iter)
		}
		if w == "" {
			continue
		}
		votes := 0
		for _, si := range m.sortedSentinels() {
			if si.votedLeader == w && si.votedLeaderEpoch == epoch {
				votes++
			}
		}
		if m.m.ourVote == w && m.m.ourVoteEpoch == epoch {
			votes++
		}
		if need := leaderThreshold(len(m.m.sentinels), m.m.quorum); votes < need {
			t.Fatalf("iter %d: winner %s has %d epoch-%d votes, needs %d", iter, w[:4], votes, epoch, need)
		}
	}
}

// TestPropertyRanking checks rankCandidates against a dumb oracle: the
// result holds exactly the eligible candidates, and no candidate ranks
// after one it beats on (priority asc, offset desc, runid asc).
func TestPropertyRanking(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	runids := []string{"", "AA", "aa", "bb", "cc"}
	for iter := 0; iter < 5000; iter++ {
		p := selectParams{pingPeriod: 1000, infoPeriod: 10000, masterDownAfter: 5000,
			masterSDown: rng.IntN(2) == 0, masterDownAge: Millis(rng.IntN(20000))}
		var cs []candidate
		for k := 0; k < rng.IntN(7); k++ {
			cs = append(cs, candidate{
				key:           string(rune('a' + k)),
				runid:         runids[rng.IntN(len(runids))],
				priority:      rng.IntN(3) * 50,
				priorityKnown: rng.IntN(6) > 0,
				reportsMaster: rng.IntN(4) == 0,
				offset:        uint64(rng.IntN(3)),
				down:          rng.IntN(8) == 0,
				disconnected:  rng.IntN(8) == 0,
				lastAvailAge:  Millis(rng.IntN(7000)),
				infoAge:       Millis(rng.IntN(40000)),
				linkDownTime:  Millis(rng.IntN(80000)),
			})
		}
		got := rankCandidates(p, cs)
		eligible := 0
		for _, c := range cs {
			ok := !c.down && !c.disconnected && c.priority != 0 && (c.priorityKnown || c.reportsMaster) && c.lastAvailAge <= 5000
			validity := Millis(30000)
			maxDown := Millis(50000)
			if p.masterSDown {
				validity = 5000
				maxDown += p.masterDownAge
			}
			ok = ok && c.infoAge <= validity && c.linkDownTime <= maxDown
			if ok {
				eligible++
			}
		}
		if len(got) != eligible {
			t.Fatalf("iter %d: %d ranked, oracle says %d eligible", iter, len(got), eligible)
		}
		for i := 0; i < len(got); i++ {
			for j := i + 1; j < len(got); j++ {
				if beats(got[j], got[i]) {
					t.Fatalf("iter %d: %+v ranked after %+v", iter, got[j], got[i])
				}
			}
		}
	}
}

// beats is the oracle's strict "a must come before b".
func beats(a, b candidate) bool {
	if a.priorityKnown != b.priorityKnown {
		return a.priorityKnown
	}
	if a.priority != b.priority {
		return a.priority < b.priority
	}
	if a.offset != b.offset {
		return a.offset > b.offset
	}
	if (a.runid == "") != (b.runid == "") {
		return b.runid == ""
	}
	la, lb := lowerASCII(a.runid), lowerASCII(b.runid)
	return la < lb
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
