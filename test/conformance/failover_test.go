package conformance

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// timingEvents are published at moments that depend on INFO/PING timing
// (role changes, reboots, conversions): they are left out of the ordered
// comparison.
var timingEvents = map[string]bool{
	"+role-change": true, "-role-change": true, "+sdown": true, "-sdown": true,
	"+reboot": true, "+convert-to-slave": true, "+fix-slave-config": true,
	"+odown": true, "-odown": true,
}

// failoverEvents runs SENTINEL FAILOVER on s and returns the events
// published until +switch-master and the +slave events that follow it.
func failoverEvents(t *testing.T, s *side, replicas int) (reply string, evs []event) {
	t.Helper()
	sb := subscribe(t, s, 2)
	s.waitFreshInfo(t, 600)
	cl := dialSide(t, s)
	reply = s.render(cl.do("SENTINEL", "FAILOVER", "mym"))
	if reply != "+OK" {
		t.Fatalf("%s: SENTINEL FAILOVER: %s", s.name, reply)
	}
	// A second one while the first runs.
	reply += " " + s.render(cl.do("SENTINEL", "FAILOVER", "mym"))
	evs = sb.until(t, 30*time.Second, func(e event) bool { return e.typ == "+switch-master" })
	for n := 0; n < replicas; {
		more := sb.until(t, 10*time.Second, func(e event) bool { return e.typ == "+slave" })
		evs = append(evs, more...)
		n++
	}
	return reply, evs
}

func TestFailoverEvents(t *testing.T) {
	t.Parallel()
	sp := spec{replicas: 2, replicaExtra: [][]string{{"replica-priority 10"}}, quorum: 1, failover: 30000}
	ps := startPair(t, sp)
	var seqs, bodies [2][]string
	for i, s := range ps {
		s.waitDiscovered(t)
		dialSide(t, s).do("SENTINEL", "DEBUG", "info-period", "300", "publish-period", "200")
		reply, evs := failoverEvents(t, s, 2)
		if want := "+OK -INPROG Failover already in progress"; reply != want {
			t.Errorf("%s: FAILOVER twice: %q, want %q", s.name, reply, want)
		}
		for _, e := range evs {
			if timingEvents[e.typ] {
				continue
			}
			seqs[i] = append(seqs[i], e.typ)
			bodies[i] = append(bodies[i], e.typ+" "+e.body)
		}
	}
	if d := diffLines(t, seqs[0], seqs[1]); d != "" {
		t.Errorf("failover event sequence differs:\n%s", d)
	} else if d := diffLines(t, bodies[0], bodies[1]); d != "" {
		t.Errorf("failover event messages differ:\n%s", d)
	}
	if len(seqs[0]) < 15 {
		t.Errorf("real sentinel published only %d events: %q", len(seqs[0]), seqs[0])
	}
	// After the failover: same view (replica0 is the master), same file.
	for _, s := range ps {
		s.waitDiscovered(t)
	}
	sq := seq{name: "after-failover", proto: 2, cmds: []cmd{
		c("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym"), c("SENTINEL", "MASTER", "mym"),
		u("SENTINEL", "REPLICAS", "mym"), c("SENTINEL", "CKQUORUM", "mym"), c("INFO", "sentinel"),
		c("SENTINEL", "FLUSHCONFIG"),
	}}
	report(t, sq, compareSeq(t, ps, sq))
	// Sorted (replicas are written in dict order) and without blank lines:
	// real Sentinel leaves one more blank line per appending rewrite
	// (§9 "blank-line quirk", explicitly not part of the contract).
	compareConf(t, ps, "after a failover", true)
	// Restart from the rewritten file: same view, same file.
	for _, s := range ps {
		s.proc.Term()
		s.proc = testutil.StartSentinelConf(t, s.bin, s.conf, s.port, filepath.Join(s.dir, "sentinel.log"))
		s.waitDiscovered(t)
	}
	sq.name = "after-failover-restart"
	sq.cmds = append(sq.cmds, c("SENTINEL", "MYID"))
	report(t, sq, compareSeq(t, ps, sq))
	compareConf(t, ps, "after a failover and a restart", true)
}

func TestFailoverNoGoodSlave(t *testing.T) {
	t.Parallel()
	sp := spec{replicas: 2, replicaExtra: [][]string{{"replica-priority 0"}, {"replica-priority 0"}}, quorum: 1}
	ps := startPair(t, sp)
	for _, s := range ps {
		s.waitDiscovered(t)
	}
	sq := seq{name: "nogoodslave", proto: 2, cmds: []cmd{
		c("SENTINEL", "FAILOVER", "mym"), c("SENTINEL", "FAILOVER", "mym"), c("SENTINEL", "MASTER", "mym"),
		u("SENTINEL", "REPLICAS", "mym"),
	}}
	report(t, sq, compareSeq(t, ps, sq))
}

// waitFreshInfo waits until every replica's INFO is younger than ms:
// replica selection rejects replicas whose INFO is older than 3×info-period,
// and the first INFO after `SENTINEL DEBUG info-period` may still be due
// on the old period (on both implementations).
func (s *side) waitFreshInfo(t *testing.T, ms int) {
	t.Helper()
	testutil.WaitFor(t, 15*time.Second, s.name+": fresh replica INFO", func() bool {
		cl, err := dialQuiet(s.addr())
		if err != nil {
			return false
		}
		defer cl.close()
		reps, err := cl.try("SENTINEL", "REPLICAS", "mym")
		if err != nil || len(reps.Elems) == 0 {
			return false
		}
		for _, r := range reps.Elems {
			age, err := strconv.Atoi(pairs(r)["info-refresh"])
			if err != nil || age == 0 || age > ms || pairs(r)["master-link-status"] != "ok" {
				return false
			}
		}
		return true
	})
}
