package conformance

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// subscribeAddr is subscribe for another sentinel of s's deployment
// (normalised with s's ports and ids).
func subscribeAddr(t *testing.T, s *side, addr string) *subscriber {
	t.Helper()
	cl, err := dialQuiet(addr)
	if err != nil {
		t.Fatal(err)
	}
	cl.t = t
	t.Cleanup(cl.close)
	cl.do("PSUBSCRIBE", "*")
	return &subscriber{s: s, cl: cl}
}

// role of a sentinel in a failover, from its events.
func failoverRole(evs []event) string {
	for _, e := range evs {
		if e.typ == "+elected-leader" {
			return "leader"
		}
	}
	return "observer"
}

// fromLeaderOn returns the types from +elected-leader on, without the
// timing-dependent ones.
func fromLeaderOn(evs []event) string {
	var out []string
	on := false
	for _, e := range evs {
		on = on || e.typ == "+elected-leader"
		if on && !timingEvents[e.typ] {
			out = append(out, e.typ)
		}
	}
	return strings.Join(out, " ")
}

// TestQuorumFailover: three sentinels per side, the master SIGSTOPped.
// Which sentinel leads is random (on both implementations), so this
// compares what must hold whatever the leader: one leader per side with
// the same sequence from +elected-leader to +switch-master, observers
// that switch after +config-update-from, and the same +switch-master
// message everywhere.
func TestQuorumFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("3 sentinels per side and an automatic failover: ~15 s")
	}
	t.Parallel()
	sp := spec{replicas: 2, replicaExtra: [][]string{{"replica-priority 10"}}, quorum: 2, downAfter: 1000, failover: 10000}
	ps := startPair(t, sp)
	var summary [2][]string
	for i, s := range ps {
		s.waitDiscovered(t)
		peers := s.addPeers(t, sp, 2)
		subs := []*subscriber{subscribe(t, s, 2)}
		for _, p := range peers {
			subs = append(subs, subscribeAddr(t, s, p.Addr()))
		}
		s.waitFreshInfo(t, 600)
		s.top.Master.Stop()
		leaders := 0
		for k, sb := range subs {
			evs := sb.until(t, 60*time.Second, func(e event) bool { return e.typ == "+switch-master" })
			sw := evs[len(evs)-1].body
			role := failoverRole(evs)
			switch role {
			case "leader":
				leaders++
				summary[i] = append(summary[i], "leader: "+fromLeaderOn(evs)+" | "+sw)
			default:
				types := " " + strings.Join(typesOf(evs), " ") + " "
				if !strings.Contains(types, " +config-update-from +switch-master ") {
					t.Errorf("%s sentinel %d (observer): +switch-master not right after +config-update-from: %s", s.name, k, types)
				}
				summary[i] = append(summary[i], "observer | "+sw)
			}
		}
		if leaders != 1 {
			t.Errorf("%s: %d leaders", s.name, leaders)
		}
		s.top.Master.Cont()
		testutil.WaitFor(t, 30*time.Second, s.name+": old master converted", func() bool {
			r, err := testutil.Role(s.top.Master.Addr())
			return err == nil && r == "slave"
		})
	}
	for i := range summary {
		sortStrings(summary[i])
	}
	if d := diffLines(t, summary[0], summary[1]); d != "" {
		t.Errorf("3-sentinel failover differs:\n%s", d)
	}
}

func typesOf(evs []event) []string {
	out := make([]string, 0, len(evs))
	for _, e := range evs {
		out = append(out, e.typ)
	}
	return out
}

func sortStrings(s []string) { sort.Strings(s) }
