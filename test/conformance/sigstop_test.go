package conformance

import (
	"strings"
	"testing"
	"time"
)

// autoFailoverEvents pauses the master of s with SIGSTOP and returns the
// events until +switch-master and the +slave events after it, then the
// events after SIGCONT until the old master is converted to a replica.
func autoFailoverEvents(t *testing.T, s *side) (failover, resumed []event) {
	t.Helper()
	sb := subscribe(t, s, 3) // RESP3 push messages (the forced failover test uses RESP2)
	s.waitFreshInfo(t, 600)
	s.top.Master.Stop()
	failover = sb.until(t, 30*time.Second, func(e event) bool { return e.typ == "+switch-master" })
	for n := 0; n < len(s.top.Replicas); n++ {
		failover = append(failover, sb.until(t, 10*time.Second, func(e event) bool { return e.typ == "+slave" })...)
	}
	s.top.Master.Cont()
	resumed = sb.until(t, 30*time.Second, func(e event) bool { return e.typ == "+convert-to-slave" })
	return failover, resumed
}

func TestSigstopFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("automatic failover: ~10 s")
	}
	t.Parallel()
	sp := spec{replicas: 2, replicaExtra: [][]string{{"replica-priority 10"}}, quorum: 1, downAfter: 1000, failover: 10000}
	ps := startPair(t, sp)
	var seqs, bodies, after [2][]string
	for i, s := range ps {
		s.waitDiscovered(t)
		dialSide(t, s).do("SENTINEL", "DEBUG", "info-period", "300", "publish-period", "200", "ping-period", "200")
		fo, res := autoFailoverEvents(t, s)
		for _, e := range fo {
			if e.typ == "+role-change" || e.typ == "-role-change" || e.typ == "+reboot" {
				continue
			}
			seqs[i] = append(seqs[i], e.typ)
			bodies[i] = append(bodies[i], e.typ+" "+e.body)
		}
		for _, e := range res {
			if e.typ == "-sdown" || e.typ == "+convert-to-slave" {
				after[i] = append(after[i], e.typ+" "+e.body)
			}
		}
	}
	if got := strings.Join(seqs[0], " "); !strings.HasPrefix(got, "+sdown +odown +new-epoch +try-failover") || !strings.Contains(got, "+switch-master") {
		t.Errorf("real sentinel's events do not look like an automatic failover: %s", got)
	}
	if d := diffLines(t, seqs[0], seqs[1]); d != "" {
		t.Errorf("automatic failover event sequence differs:\n%s", d)
	} else if d := diffLines(t, bodies[0], bodies[1]); d != "" {
		t.Errorf("automatic failover event messages differ:\n%s", d)
	}
	if d := diffLines(t, after[0], after[1]); d != "" {
		t.Errorf("events after SIGCONT differ:\n%s", d)
	}
	for _, s := range ps {
		s.waitDiscovered(t)
	}
	sq := seq{name: "after-sigstop", proto: 2, cmds: []cmd{
		c("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym"), c("SENTINEL", "MASTER", "mym"),
		u("SENTINEL", "REPLICAS", "mym"), c("INFO", "sentinel"),
	}}
	report(t, sq, compareSeq(t, ps, sq))
	compareConf(t, ps, "after an automatic failover", true)
}
