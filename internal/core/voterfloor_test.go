package core

import (
	"math/rand/v2"
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

// floorDriver runs a test core for the voter floor's persistence and
// pauses: connections connect at once, every Persist succeeds at once
// (and is recorded), commands get no reply.
type floorDriver struct {
	s        *Sentinel
	now      Millis
	persists []Persist
}

// step feeds ev at d.now and answers Connect and Persist effects.
func (d *floorDriver) step(ev Event) {
	queue := []Event{ev}
	for len(queue) > 0 {
		effs := d.s.Step(d.now, queue[0])
		queue = queue[1:]
		for _, e := range effs {
			switch e := e.(type) {
			case Connect:
				queue = append(queue, LinkConnected{Link: e.Link, Conn: e.Conn})
			case Persist:
				d.persists = append(d.persists, e)
				queue = append(queue, PersistDone{Seq: e.Seq})
			}
		}
	}
}

// run ticks every 100 ms until to; hello, if set, is called before each
// tick and reports whether a hello arrives on the master's pub/sub link.
func (d *floorDriver) run(to Millis, hello func(now Millis) bool) {
	m := d.s.masters["mym"]
	for d.now+100 <= to {
		d.now += 100
		if hello != nil && hello(d.now) && m.link.pcState == connUp {
			d.step(Message{Link: m.link.id, Conn: m.link.pc, Channel: HelloChannel,
				Payload: "127.0.0.1,26379," + testMyID + ",0,mym,127.0.0.1,6379,0"})
		}
		d.step(Tick{})
	}
}

// lastFloor is the floor of the last Persist: count and window left.
func (d *floorDriver) lastFloor(t *testing.T) (int, Millis) {
	t.Helper()
	if len(d.persists) == 0 {
		t.Fatalf("no Persist")
	}
	mc := d.persists[len(d.persists)-1].State.Masters[0]
	return mc.VoterFloor, mc.VoterFloorLeft
}

// TestVoterFloorSurvivesRestart (sim finding F13, seed 1601788): the
// floor is part of the persisted State, with the part of its window left
// when the State was taken; a sentinel restarted from the file after the
// RESET keeps it, and the window goes on from the restart: the time the
// sentinel was down, in which it could not hear its peers, does not use
// it up (sim seed 1652531: restarted past an absolute expiry and elected
// alone).
func TestVoterFloorSurvivesRestart(t *testing.T) {
	s := newQuorumOneCore(t)
	d := &floorDriver{s: s, now: 100}
	d.step(Request{ID: 1, Args: []string{"SENTINEL", "RESET", "mym"}})
	// RESET flushes nothing (as in sentinel.c): the file still lists the
	// two peers. Any later write carries the floor.
	d.now = 200
	d.step(Request{ID: 2, Args: []string{"SENTINEL", "SET", "mym", "parallel-syncs", "2"}})
	n, left := d.lastFloor(t)
	if n != 3 || left != 100+1000+2*3000-200 {
		t.Fatalf("persisted floor %d with %d ms left, want 3 with %d", n, left, 100+1000+2*3000-200)
	}
	st := d.persists[len(d.persists)-1].State
	if len(st.Masters[0].KnownSentinels) != 0 {
		t.Fatalf("the file still lists %d peers", len(st.Masters[0].KnownSentinels))
	}

	// Crash, restart from the file at 20000, after the floor would have
	// expired had the sentinel been running (the clock goes on).
	r, err := New(Config{State: st, Port: 26379}, rand.New(rand.NewPCG(1, 3)))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	r.Step(20000, Tick{})
	m := r.masters["mym"]
	if v := r.voters(m); v != 3 {
		t.Fatalf("restarted with %d voters, want the floor's 3", v)
	}
	r.currentEpoch = 1
	if w := r.getLeader(m, 1); w != "" {
		t.Fatalf("restarted sentinel elected %q by its own vote alone", w)
	}
	r.now = timeBase + 20000 + 6900 - 1
	if v := r.voters(m); v != 3 {
		t.Fatalf("floor gone 1 ms before its expiry: %d voters", v)
	}
	r.now++
	if v := r.voters(m); v != 1 {
		t.Fatalf("floor still in force at its expiry: %d voters", v)
	}
	if mc := r.snapshot().Masters[0]; mc.VoterFloor != 0 {
		t.Fatalf("expired floor still saved: %+v", mc)
	}

	// A file whose floor has nothing left, or more than one window (a
	// hand-written line, or an expiry in Unix ms as an older gosentinel
	// wrote it).
	st.Masters[0].VoterFloorLeft = 0
	r, _ = New(Config{State: st, Port: 26379}, rand.New(rand.NewPCG(1, 4)))
	r.Step(3000, Tick{})
	if v := r.voters(r.masters["mym"]); v != 1 {
		t.Fatalf("expired floor loaded: %d voters", v)
	}
	st.Masters[0].VoterFloorLeft = 1764800000000
	r, _ = New(Config{State: st, Port: 26379}, rand.New(rand.NewPCG(1, 5)))
	r.Step(3000, Tick{})
	if f := r.masters["mym"].m.floor; f.n != 3 || f.until != timeBase+3000+7000 {
		t.Fatalf("far floor not cut to one window: %+v", f)
	}
}

// TestVoterFloorPausedWhileDeaf (sim finding F13, seed 1507811): the
// window runs only while the sentinel could hear its peers. Without a
// hello on the master's pub/sub link for 3 hello periods, and in TILT,
// the expiry moves on with the clock, so the window left stays what it
// was when the pause began: the file's value, written before, is never
// less than it, and nothing needs saving when hellos are heard again.
func TestVoterFloorPausedWhileDeaf(t *testing.T) {
	d, s, m := resetAt100(t, 20000, 1000) // window 22 s
	every := func(from, to Millis) func(Millis) bool {
		return func(now Millis) bool { return now >= from && now <= to && now%1000 == 0 }
	}
	// Hellos until 3000, then none: deaf from 9000 (3 hello periods).
	d.run(30000, every(0, 3000))
	if v := s.voters(m); v != 3 {
		t.Fatalf("floor expired while deaf: %d voters at 30 s (window until 22.1 s)", v)
	}
	if got, want := m.m.floor.until, timeBase+22100+(30000-9000); got != want {
		t.Fatalf("expiry %d, want %d", got-timeBase, want-timeBase)
	}
	if mc := s.snapshot().Masters[0]; mc.VoterFloor != 3 || mc.VoterFloorLeft != 22100-9000 {
		t.Fatalf("floor %d with %d ms left while deaf, want 3 with %d (as when it went deaf)",
			mc.VoterFloor, mc.VoterFloorLeft, 22100-9000)
	}
	// Hellos again: nothing to save.
	saved := len(d.persists)
	d.run(30100, func(Millis) bool { return true })
	if len(d.persists) != saved {
		t.Fatalf("%d Persists when hearing resumed, want none", len(d.persists)-saved)
	}
	d.run(43000, every(30000, 1<<40))
	if v := s.voters(m); v != 3 {
		t.Fatalf("floor gone before its expiry while hearing: %d voters", v)
	}
	d.run(43100, every(30000, 1<<40))
	if v := s.voters(m); v != 1 {
		t.Fatalf("floor in force after its expiry: %d voters", v)
	}
}

// TestVoterFloorPausedInTilt: in TILT (here entered after a 3 s stall)
// the window does not run even while hellos are heard (the stall that
// triggered it included); it runs down after TILT.
func TestVoterFloorPausedInTilt(t *testing.T) {
	d, s, m := resetAt100(t, 20000, 1000) // window 22 s
	always := func(now Millis) bool { return now%1000 == 0 }
	d.run(1000, always)
	d.now = 4000 // the process stalled for 3 s
	d.step(Tick{})
	if !s.tilt {
		t.Fatalf("no TILT after a 3 s stall")
	}
	if got, want := m.m.floor.until, timeBase+22100+3000; got != want {
		t.Fatalf("expiry %d after the stall, want %d", got-timeBase, want-timeBase)
	}
	d.run(30000, always)
	// 21.1 s of the window were left when the stall began; they still are.
	if got, want := m.m.floor.until, timeBase+30000+21100; got != want {
		t.Fatalf("expiry %d in TILT, want %d", got-timeBase, want-timeBase)
	}
	d.run(34100, always) // TILT ends at 34 s
	if s.tilt {
		t.Fatalf("still in TILT at 34.1 s")
	}
	until := m.m.floor.until
	if until < timeBase+34000+21100 || until > timeBase+34100+21100 {
		t.Fatalf("expiry %d after TILT, want 21.1 s after its end", until-timeBase)
	}
	d.run(until-timeBase-100, always)
	if v := s.voters(m); v != 3 {
		t.Fatalf("floor gone before its expiry: %d voters", v)
	}
	d.run(until-timeBase, always)
	if v := s.voters(m); v != 1 {
		t.Fatalf("floor in force after its expiry: %d voters", v)
	}
}

// TestVoterFloorSurvivesLongStall (sim seed 1654493): a stall or clock
// jump longer than what is left of the window enters TILT at the tick
// after it, and that tick moves the expiry on before it looks at it; the
// floor used to be found expired by the jump itself and dropped.
func TestVoterFloorSurvivesLongStall(t *testing.T) {
	d, s, m := resetAt100(t, 2000, 1000) // window 4 s
	always := func(now Millis) bool { return now%1000 == 0 }
	d.run(3000, always) // 1.1 s of the window left
	d.now = 6000        // a 3 s stall
	d.step(Tick{})
	if !s.tilt {
		t.Fatalf("no TILT after a 3 s stall")
	}
	if v := s.voters(m); v != 3 {
		t.Fatalf("floor dropped by the stall: %d voters", v)
	}
	if got, want := m.m.floor.until, timeBase+4100+3000; got != want {
		t.Fatalf("expiry %d after the stall, want %d", got-timeBase, want-timeBase)
	}
}

// resetAt100 is a quorum-1 core with the given down-after and
// failover-timeout that knows two peers and is reset at 100 ms.
func resetAt100(t *testing.T, downAfter, failoverTimeout Millis) (*floorDriver, *Sentinel, *instance) {
	t.Helper()
	s := newTestCore(t, func(mc *MasterConfig) {
		mc.Quorum, mc.DownAfter, mc.FailoverTimeout = 1, downAfter, failoverTimeout
	})
	d := &floorDriver{s: s, now: 100}
	d.step(Request{ID: 1, Args: []string{"SENTINEL", "RESET", "mym"}})
	return d, s, s.masters["mym"]
}
