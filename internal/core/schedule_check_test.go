package core

import (
	"fmt"
	"os"
	"reflect"
	"testing"
)

// TestMain runs every core test with the scheduler checked (schedule.go):
// each tick visits every group, a group the scheduler would have skipped
// must not act (no effect, no change of its instances, links or master
// state), and every NextDeadline is compared with a full scan. Set
// GOSENTINEL_SCHED_CHECK=0 to run the tests on the production path alone.
func TestMain(m *testing.M) {
	if os.Getenv("GOSENTINEL_SCHED_CHECK") != "0" {
		schedCheckSkip = checkSkippedGroup
		schedCheckDeadline = checkDeadline
	}
	os.Exit(m.Run())
}

// groupSnap is a shallow copy of everything handleGroup may change.
type groupSnap struct {
	insts []instance
	links []instanceLink
	ms    masterState
	epoch uint64
	gen   uint64
	tilt  bool
	npend int
}

func snapGroup(s *Sentinel, m *instance) groupSnap {
	g := groupSnap{ms: *m.m, epoch: s.currentEpoch, gen: s.dictGen, tilt: s.tilt, npend: len(s.pending)}
	add := func(i *instance) {
		g.insts = append(g.insts, *i)
		g.links = append(g.links, *i.link)
	}
	add(m)
	for _, r := range m.sortedReplicas() {
		add(r)
	}
	for _, si := range m.sortedSentinels() {
		add(si)
	}
	return g
}

func checkSkippedGroup(s *Sentinel, m *instance, handle func() bool) {
	before := snapGroup(s, m)
	n := len(s.out)
	sw := handle()
	if len(s.out) != n {
		panic(fmt.Sprintf("scheduler: master %s skipped at %d (wake %d) but handling it emitted %#v",
			m.name, s.now-timeBase, m.m.sched.wake-timeBase, s.out[n:]))
	}
	after := snapGroup(s, m)
	if sw || !reflect.DeepEqual(before, after) {
		panic(fmt.Sprintf("scheduler: master %s skipped at %d (wake %d) but handling it changed its state:\nbefore %+v\nafter  %+v",
			m.name, s.now-timeBase, m.m.sched.wake-timeBase, before, after))
	}
}

func checkDeadline(s *Sentinel, now, got Millis) {
	if want := nextDeadlineScan(s, now); got != want {
		panic(fmt.Sprintf("NextDeadline(%d) = %d, full scan gives %d", now, got, want))
	}
}

// nextDeadlineScan is NextDeadline as a scan of every instance (the code
// before the scheduler): the oracle of checkDeadline.
func nextDeadlineScan(s *Sentinel, now Millis) Millis {
	in := now + timeBase
	d := deadlineMin{after: in, best: in + maxTickGap}
	for _, m := range s.masters {
		if t := s.groupDeadline(m, in); t < d.best {
			d.best = t
		}
	}
	return d.best - timeBase
}
