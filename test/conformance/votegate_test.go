package conformance

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// gateQuorum is a quorum no single sentinel reaches: S_DOWN without ODOWN,
// so no failover starts (and no epoch moves) while a test votes.
const gateQuorum = "9"

// seeMasterDown makes s see its master S_DOWN, so that a vote request is
// granted by both implementations: gosentinel deliberately refuses a vote
// for a master it sees up (the vote gate, docs/core.md and
// docs/decisions.md), where real Sentinel votes whatever it sees. It
// raises the quorum out of reach, lowers down-after to 1 s, pauses the
// master with SIGSTOP and waits for the s_down flag. The returned func
// resumes the master, waits for the flag to clear and restores quorum and
// down-after.
func (s *side) seeMasterDown(t *testing.T) (resume func()) {
	t.Helper()
	cl := dialSide(t, s)
	p := pairs(cl.do("SENTINEL", "MASTER", "mym"))
	quorum, downAfter := p["quorum"], p["down-after-milliseconds"]
	cl.do("SENTINEL", "SET", "mym", "quorum", gateQuorum, "down-after-milliseconds", "1000")
	s.top.Master.Stop()
	t.Cleanup(s.top.Master.Cont)
	s.waitMasterFlag(t, "s_down", true)
	return func() {
		t.Helper()
		s.top.Master.Cont()
		s.waitMasterFlag(t, "s_down", false)
		dialSide(t, s).do("SENTINEL", "SET", "mym", "quorum", quorum, "down-after-milliseconds", downAfter)
	}
}

// waitMasterFlag waits until mym's flags on s contain flag (or do not).
func (s *side) waitMasterFlag(t *testing.T, flag string, want bool) {
	t.Helper()
	testutil.WaitFor(t, 15*time.Second, s.name+" master flag "+flag+" "+strconv.FormatBool(want), func() bool {
		c, err := dialQuiet(s.addr())
		if err != nil {
			return false
		}
		defer c.close()
		if s.password != "" {
			if _, err := c.try("AUTH", s.password); err != nil {
				return false
			}
		}
		m, err := c.try("SENTINEL", "MASTER", "mym")
		if err != nil {
			return false
		}
		has := false
		for _, f := range strings.Split(pairs(m)["flags"], ",") {
			has = has || f == flag
		}
		return has == want
	})
}

// healthyMasterVoteRefused is the deliberate difference itself: asked for
// a vote in a new epoch while it sees the master up, real Sentinel 7.0.15
// votes and adopts the epoch (reference G5: it votes whatever it sees of
// the master); gosentinel answers "no vote" and keeps its epoch. It runs
// after the compared sequences, like negativeEpochRefused.
func healthyMasterVoteRefused(t *testing.T, ps [2]*side, epoch int, runid string) {
	t.Helper()
	ep := strconv.Itoa(epoch)
	for _, s := range ps {
		cl := dialSide(t, s)
		got := s.render(cl.do("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", s.expand("{M}"), ep, runid))
		conf := s.confText(t)
		switch s.name {
		case "ours":
			if got != `*[:0, $"*", :0]` || strings.Contains(conf, "current-epoch "+ep+"\n") {
				t.Errorf("ours: vote for a master it sees up: %s; config:\n%s", got, conf)
			}
		default:
			if got != `*[:0, $"<runid>", :`+ep+`]` || !strings.Contains(conf, "current-epoch "+ep+"\n") {
				t.Errorf("real: expected 7.0.15 to vote for a master it sees up (reference G5), got %s; config:\n%s", got, conf)
			}
		}
	}
}
