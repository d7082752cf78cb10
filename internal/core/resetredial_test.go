package core

import "testing"

// masterConnects counts the Connect effects of the test core's master link.
func masterConnects(s *Sentinel, effs []Effect) int {
	n := 0
	for _, c := range effectsOf[Connect](effs) {
		if c.Link == s.masters["mym"].link.id {
			n++
		}
	}
	return n
}

// TestResetLoopRedialsOncePerBurst: a SENTINEL RESET loop (a RESET of the
// master between every two ticks) redials the master's links once per
// ping-period, as sentinel.c paces them, and once more at the second tick
// after the last RESET at the latest (docs/core.md decision 14), instead
// of at every tick: 400 dials a tick under the hostile `events` load
// (docs/security.md, "Latency under these loads").
func TestResetLoopRedialsOncePerBurst(t *testing.T) {
	s := newTestCore(t)
	now := Millis(5000)
	id := uint64(1)
	reset := func() {
		if rs, _ := request(s, now, id, "SENTINEL", "RESET", "mym"); len(rs) != 1 {
			t.Fatalf("RESET: %v", rs)
		}
		id++
	}
	reset()
	connects, ticks := 0, 0
	for ; ticks < 30; ticks++ { // 3 s of ticks, a RESET 3 ms after each
		now += 97
		connects += masterConnects(s, s.Step(now, Tick{}))
		now += 3
		reset()
	}
	// Ticks at 5097, 5197, ...: the first redials (never attempted at
	// this time: pacing from 0), then one per ping-period (1000 ms).
	if connects < 2*2 || connects > 4*2 {
		t.Fatalf("%d master connects in %d ticks of a RESET loop, want 2 per ping-period (cmd+pubsub)", connects, ticks)
	}
	// The loop stops: the owed redial comes within two ticks.
	got := 0
	for i := 0; i < 2 && got == 0; i++ {
		now += 100
		got = masterConnects(s, s.Step(now, Tick{}))
	}
	if got != 2 {
		t.Fatalf("no redial of the master within two ticks of the last RESET (%d connects)", got)
	}
}

// TestResetOfConnectedMasterRedialsNextTick: an isolated SENTINEL RESET of
// a master whose links were up redials at the next tick (decision 14).
func TestResetOfConnectedMasterRedialsNextTick(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	s.Step(10, LinkConnected{Link: m.link.id, Conn: m.link.cc, LocalIP: "127.0.0.1"})
	s.Step(10, LinkConnected{Link: m.link.id, Conn: m.link.pc})
	s.Step(5000, Tick{})
	request(s, 5050, 1, "SENTINEL", "RESET", "mym")
	if got := masterConnects(s, s.Step(5100, Tick{})); got != 2 {
		t.Fatalf("%d master connects at the tick after RESET, want 2", got)
	}
}

// TestResetOfBareMasterKeepsSortedViews: a SENTINEL RESET of a master with
// no replicas and no known sentinels changes no dictionary, so it leaves
// the sorted views and the schedule as they are (dictGen): a RESET loop
// over 200 such masters re-sorted them and rebuilt the schedule at every
// RESET.
func TestResetOfBareMasterKeepsSortedViews(t *testing.T) {
	s := newTestCore(t, func(mc *MasterConfig) { mc.KnownReplicas, mc.KnownSentinels = nil, nil })
	gen := s.dictGen
	if rs, _ := request(s, 5000, 1, "SENTINEL", "RESET", "mym"); len(rs) != 1 {
		t.Fatalf("RESET: %v", rs)
	}
	if s.dictGen != gen {
		t.Fatalf("dictGen %d -> %d: a RESET that removed nothing invalidated every sorted view", gen, s.dictGen)
	}
	// With a replica it does change.
	s = newTestCore(t)
	gen = s.dictGen
	request(s, 5000, 1, "SENTINEL", "RESET", "mym")
	if s.dictGen == gen {
		t.Fatal("a RESET that removed a replica left dictGen as it was")
	}
}
