package core

import (
	"fmt"
	"strings"
	"testing"
)

// directiveOf builds one scenario directive from its text (no expected
// output), for tests that drive the scenario world from Go.
func directiveOf(line string) directive {
	d := directive{kv: map[string]string{}}
	f := strings.Fields(line)
	d.cmd = f[0]
	for _, a := range f[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			d.kv[k] = v
		} else {
			d.args = append(d.args, a)
		}
	}
	return d
}

// leaderSequenceErrors checks the §10 leader sequence in a world log: every
// sentinel that emitted +elected-leader emits +failover-end (or
// +failover-end-for-timeout) before its next +switch-master, unless the
// failover was aborted (-failover-abort-*) first.
func leaderSequenceErrors(out []string) []string {
	var errs []string
	state := map[string]string{} // sentinel → "leader" | "ended"
	for _, l := range out {
		f := strings.Fields(l)
		if len(f) < 3 {
			continue
		}
		who, ev := f[1], f[2]
		switch {
		case ev == "+elected-leader":
			state[who] = "leader"
		case ev == "+failover-end" || ev == "+failover-end-for-timeout":
			if state[who] == "leader" {
				state[who] = "ended"
			}
		case strings.HasPrefix(ev, "-failover-abort"):
			delete(state, who)
		case ev == "+switch-master":
			if state[who] == "leader" {
				errs = append(errs, "+switch-master without +failover-end: "+l)
			}
			delete(state, who)
		}
	}
	return errs
}

// TestLeaderEmitsFailoverEnd is the operators' demo finding: 3 sentinels,
// down-after 1000, the master killed; the elected leader must always emit
// +failover-end before +switch-master. Desync jitter (seeded by port) and
// link latency vary between runs, so concurrent attempts happen.
func TestLeaderEmitsFailoverEnd(t *testing.T) {
	leaders := 0
	for run := 0; run < 40; run++ {
		w := newWorld(t)
		w.latency = Millis(run % 4 * 15)
		base := 26379 + run*3
		for _, l := range []string{
			"redis name=m port=6379",
			"replica name=r1 of=m offset=100 port=6380",
			"replica name=r2 of=m offset=200 port=6381",
		} {
			w.do(t, directiveOf(l))
		}
		for k := 0; k < 3; k++ {
			w.do(t, directiveOf(fmt.Sprintf("sentinel id=%d monitor=mym:m:2 name=s%d port=%d down-after=1000 failover-timeout=10000",
				k+1, k+1, base+k)))
		}
		w.run(5000)
		w.do(t, directiveOf("kill m"))
		w.run(20000)
		for _, l := range w.out {
			if strings.Contains(l, "+elected-leader") {
				leaders++
			}
		}
		if errs := leaderSequenceErrors(w.out); len(errs) > 0 {
			t.Errorf("run %d (latency %d): %s\n%s", run, w.latency, strings.Join(errs, "; "), strings.Join(w.out, "\n"))
		}
	}
	t.Logf("%d elections", leaders)
	if leaders == 0 {
		t.Fatal("no sentinel was ever elected: the test checks nothing")
	}
}

// TestLeaderSequenceErrors: the checker above flags what it must.
func TestLeaderSequenceErrors(t *testing.T) {
	for _, tc := range []struct {
		log  []string
		want int
	}{
		{[]string{"1 s1 +elected-leader", "1 s1 +failover-end", "1 s1 +switch-master"}, 0},
		{[]string{"1 s1 +elected-leader", "1 s1 +failover-end-for-timeout", "1 s1 +failover-end", "1 s1 +switch-master"}, 0},
		{[]string{"1 s1 +elected-leader", "1 s1 +switch-master"}, 1},
		{[]string{"1 s1 +elected-leader", "1 s1 -failover-abort-no-good-slave", "1 s1 +switch-master"}, 0},
		{[]string{"1 s2 +switch-master"}, 0},
	} {
		if got := len(leaderSequenceErrors(tc.log)); got != tc.want {
			t.Errorf("%q: %d errors, want %d", tc.log, got, tc.want)
		}
	}
}
