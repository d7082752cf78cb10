package core

import (
	"strings"
	"testing"
)

// connectAll delivers LinkConnected for every Connect and returns the
// effects of doing so.
func connectAll(s *Sentinel, now Millis, effs []Effect) []Effect {
	var out []Effect
	for _, c := range effectsOf[Connect](effs) {
		out = append(out, s.Step(now, LinkConnected{Link: c.Link, Conn: c.Conn, LocalIP: "127.0.0.1"})...)
	}
	return out
}

// answer replies to every Send with a fixed answer function and returns
// all effects produced.
func answer(s *Sentinel, now Millis, effs []Effect, f func(Send) (Value, bool)) []Effect {
	var out []Effect
	for _, snd := range effectsOf[Send](effs) {
		if v, ok := f(snd); ok {
			out = append(out, s.Step(now, Reply{Link: snd.Link, Conn: snd.Conn, Tag: snd.Tag, Value: v})...)
		}
	}
	return out
}

// TestScripts covers the script queue (§18): notification script for
// warnings, retry with doubling delay on exit 1, -script-error otherwise,
// SIGKILL after script-max-runtime, PENDING-SCRIPTS.
func TestScripts(t *testing.T) {
	s := newTestCore(t)
	s.masters["mym"].m.notificationScript = "/bin/notify"
	s.scheduleScript("/bin/notify", "+test", "x")
	run := effectsOf[RunScript](s.Step(100, Tick{}))
	if len(run) != 1 || run[0].Path != "/bin/notify" || strings.Join(run[0].Args, " ") != "+test x" {
		t.Fatalf("run %+v", run)
	}
	id := run[0].ID
	s.Step(101, ScriptStarted{ID: id, PID: 4242})
	resp, _ := request(s, 102, 1, "SENTINEL", "pending-scripts")
	if got := renderValue(resp[0].Value); !strings.Contains(got, `"flags" "running" "pid" "4242"`) {
		t.Fatalf("pending-scripts %s", got)
	}
	// Exit 1: retried after script-retry-delay (30 s), then 60 s.
	s.Step(200, ScriptDone{ID: id, ExitCode: 1})
	if r := effectsOf[RunScript](s.Step(300, Tick{})); len(r) != 0 {
		t.Fatalf("retried too early")
	}
	if r := effectsOf[RunScript](s.Step(30200, Tick{})); len(r) != 1 {
		t.Fatalf("no retry after 30 s")
	}
	s.Step(30300, ScriptDone{ID: id, Signal: 9})
	if r := effectsOf[RunScript](s.Step(30400+30000, Tick{})); len(r) != 0 {
		t.Fatalf("second retry must wait 60 s")
	}
	if r := effectsOf[RunScript](s.Step(30300+60000, Tick{})); len(r) != 1 {
		t.Fatalf("no second retry")
	}
	// Runs too long: killed with -script-timeout.
	effs := s.Step(30300+60000+60001, Tick{})
	k := effectsOf[KillScript](effs)
	if len(k) != 1 || k[0].ID != id || !strings.HasSuffix(emitTypes(effs), "-script-timeout") {
		t.Fatalf("kill %v events %q", k, emitTypes(effs))
	}
	// Exit 2: -script-error, dropped.
	effs = s.Step(200000, ScriptDone{ID: id, ExitCode: 2})
	if got := emitTypes(effs); !strings.HasSuffix(got, "-script-error") {
		t.Fatalf("events %q", got)
	}
	if len(s.scripts.jobs) != 0 || s.scripts.running != 0 {
		t.Fatalf("queue %d running %d", len(s.scripts.jobs), s.scripts.running)
	}
	// A warning event about an instance of the master queues the script.
	s.event(LevelWarning, "+sdown", s.masters["mym"], "x")
	s.event(LevelNotice, "+slave", s.masters["mym"], "x")
	if len(s.scripts.jobs) != 1 {
		t.Fatalf("jobs %d", len(s.scripts.jobs))
	}
	// Queue limit: the oldest non-running job is dropped.
	for k := 0; k < ScriptMaxQueue+10; k++ {
		s.scheduleScript("/bin/x")
	}
	if len(s.scripts.jobs) != ScriptMaxQueue {
		t.Fatalf("queue %d", len(s.scripts.jobs))
	}
}

// TestBusyScriptKill: a BUSY reply while SDOWN sends one SCRIPT KILL.
func TestBusyScriptKill(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	connectAll(s, 1, s.Step(0, Tick{}))
	s.Step(2, LinkConnected{Link: m.link.id, Conn: m.link.cc})
	var kills int
	s.Step(10, Tick{})
	m.flags |= fSDown // as if down-after had passed
	for k := 0; k < 3; k++ {
		var effs []Effect
		if s.sendPing(m) {
			tag := s.nextTag
			effs = s.Step(Millis(11+k), Reply{Link: m.link.id, Conn: m.link.cc, Tag: tag, Value: ErrorValue("BUSY Redis is busy running a script")})
		}
		for _, a := range argsOf(effs) {
			if a == "SCRIPT KILL" {
				kills++
			}
		}
	}
	if kills != 1 || !strings.Contains(m.flagsString(), "script_kill_sent") {
		t.Fatalf("kills %d flags %q", kills, m.flagsString())
	}
}

// TestLinkRecycling: a connection older than min-link-reconnect-period
// with a PING pending for more than down-after/2 is closed; a pub/sub
// connection silent for 3*publish-period is closed.
func TestLinkRecycling(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	l := m.link
	s.Step(1, LinkConnected{Link: l.id, Conn: l.cc})
	s.Step(1, LinkConnected{Link: l.id, Conn: l.pc})
	// Nothing is answered from now on.
	var closed []Close
	for now := Millis(100); now <= 20000; now += 100 {
		closed = append(closed, effectsOf[Close](s.Step(now, Tick{}))...)
	}
	var cc, pc bool
	for _, c := range closed {
		if c.Link == l.id {
			cc = cc || c.Conn != 0
			pc = true
		}
	}
	if !cc || !pc {
		t.Fatalf("closes %+v", closed)
	}
}

// TestNextDeadline: the hint points at the moment a silent master's last
// valid reply becomes down-after old, and is never later than 100 ms.
func TestNextDeadline(t *testing.T) {
	s := newTestCore(t)
	if d := s.NextDeadline(0); d <= 0 || d > 100 {
		t.Fatalf("deadline %d", d)
	}
	m := s.masters["mym"]
	m.link.lastAvailTime = timeBase + 1000
	m.link.actPingTime = timeBase + 1500
	if d := s.NextDeadline(30950); d != 31001 {
		t.Fatalf("deadline %d, want 31001 (last reply + down-after + 1)", d)
	}
}

// TestSnapshotSubstitutesOldMaster: during RECONF_SLAVES the monitor line
// carries the promoted replica and the known replicas list the old master
// instead (rewriteConfigSentinelOption).
func TestSnapshotSubstitutesOldMaster(t *testing.T) {
	s := newTestCore(t)
	inReconf(t, s)
	st := s.Snapshot()
	mc := st.Masters[0]
	if mc.Addr.Port != 6380 || len(mc.KnownReplicas) != 1 || mc.KnownReplicas[0].Port != 6379 {
		t.Fatalf("snapshot %+v", mc)
	}
	if len(mc.KnownSentinels) != 2 || st.MyID != testMyID {
		t.Fatalf("snapshot %+v", st)
	}
	// A restart from this snapshot keeps the epochs.
	s2, err := New(Config{State: st}, s.rng)
	if err != nil || s2.CurrentEpoch() < mc.ConfigEpoch || s2.MyID() != testMyID {
		t.Fatalf("restart: %v epoch %d", err, s2.CurrentEpoch())
	}
}

// TestNewValidates: New rejects broken configs with ErrInvalidConfig and
// generates a myid when none is given (persisting it on the first Step).
func TestNewValidates(t *testing.T) {
	bad := []Config{
		{State: State{MyID: "short"}},
		{State: State{Masters: []MasterConfig{{Name: "", Quorum: 1}}}},
		{State: State{Masters: []MasterConfig{{Name: "a", Quorum: 0}}}},
		{State: State{Masters: []MasterConfig{{Name: "a", Quorum: 1}, {Name: "a", Quorum: 1}}}},
		{State: State{Masters: []MasterConfig{{Name: "a", Quorum: 1, Addr: Addr{Port: 70000}}}}},
	}
	for k, c := range bad {
		if _, err := New(c, newTestCore(t).rng); err == nil || !strings.Contains(err.Error(), "invalid config") {
			t.Errorf("case %d: err %v", k, err)
		}
	}
	if _, err := New(Config{}, nil); err != ErrNoRand {
		t.Errorf("nil rng: %v", err)
	}
	s, err := New(Config{}, newTestCore(t).rng)
	if err != nil || len(s.MyID()) != 40 {
		t.Fatalf("generated myid %q %v", s.MyID(), err)
	}
	if p := effectsOf[Persist](s.Step(0, Tick{})); len(p) != 1 || p[0].State.MyID != s.MyID() {
		t.Fatalf("myid not persisted: %v", p)
	}
}

// TestQueryCommands covers MASTERS, SENTINELS, REPLICAS (replica_announced=0
// hidden), INFO-CACHE after INFO.
func TestQueryCommands(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	r := m.lookupReplica("127.0.0.1", 6380)
	s.refreshInfo(m, masterInfo)
	s.refreshInfo(r, replicaInfo) // replica_announced:0
	resp, _ := request(s, 100, 1, "SENTINEL", "masters")
	if len(resp[0].Value.Elems) != 1 {
		t.Fatalf("masters %s", renderValue(resp[0].Value))
	}
	resp, _ = request(s, 100, 2, "SENTINEL", "sentinels", "mym")
	if len(resp[0].Value.Elems) != 2 {
		t.Fatalf("sentinels %s", renderValue(resp[0].Value))
	}
	resp, _ = request(s, 100, 3, "SENTINEL", "replicas", "mym")
	for _, rep := range resp[0].Value.Elems {
		if rep.Elems[1].Str == "127.0.0.1:6380" {
			t.Fatalf("replica_announced=0 shown")
		}
	}
	resp, _ = request(s, 100, 4, "SENTINEL", "info-cache", "mym")
	got := renderValue(resp[0].Value)
	if !strings.Contains(got, "run_id:0123456789") || !strings.Contains(got, "role:slave") {
		t.Fatalf("info-cache %s", got)
	}
	// MASTER shows the replicas discovered from INFO.
	resp, _ = request(s, 100, 5, "SENTINEL", "master", "mym")
	v := resp[0].Value
	if v.Elems[30].Str != "num-slaves" || v.Elems[31].Str != "3" {
		t.Fatalf("num-slaves %q=%q", v.Elems[30].Str, v.Elems[31].Str)
	}
}

// TestRebootDetection: a changed run_id is +reboot; with
// master-reboot-down-after-period set the master is SDOWN until a PONG.
func TestRebootDetection(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	m.m.rebootDownAfter = 1000
	l := m.link
	s.Step(1, LinkConnected{Link: l.id, Conn: l.cc})
	s.Step(1, LinkConnected{Link: l.id, Conn: l.pc})
	s.refreshInfo(m, "run_id:"+strings.Repeat("1", 40)+"\r\nrole:master\r\n")
	s.out = nil
	s.refreshInfo(m, "run_id:"+strings.Repeat("2", 40)+"\r\nrole:master\r\n")
	if got := emitTypes(s.out); got != "+reboot" {
		t.Fatalf("events %q", got)
	}
	s.out = nil
	// Keep the link answering so only the reboot flag can cause SDOWN.
	var sdown bool
	for now := Millis(100); now < 3000; now += 100 {
		effs := s.Step(now, Tick{})
		answer(s, now, effs, func(snd Send) (Value, bool) {
			if snd.Args[0] == "PING" {
				return ErrorValue("LOADING Redis is loading the dataset in memory"), true
			}
			return Status("OK"), true
		})
		if strings.Contains(emitTypes(effs), "+sdown") {
			sdown = true
		}
	}
	if !sdown {
		t.Fatalf("no +sdown while rebooting (flags %q)", m.flagsString())
	}
	// A PONG clears the flag; SDOWN ends.
	s.onPingReply(m, Status("PONG"))
	if m.flags&fMasterReboot != 0 {
		t.Fatalf("reboot flag kept after PONG")
	}
}

// TestSwitchReconnectsAtOnce: after the master moves to a new address the
// link reconnects on the next tick, even if an attempt at the dead old
// address was made a moment ago. Otherwise the ping-period pacing delays
// the first PING to the healthy new master past a short down-after, and it
// turns SDOWN (found in a mixed-quorum run: down-after 1000 ms, quorum 1,
// a needless second failover).
func TestSwitchReconnectsAtOnce(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	m.downAfter = 1000
	// The old master is dead: its connections failed just now.
	s.Step(5000, LinkClosed{Link: m.link.id, Conn: m.link.cc})
	s.Step(5000, LinkClosed{Link: m.link.id, Conn: m.link.pc})
	s.Step(5010, Tick{}) // reconnect attempt at 5010
	s.Step(5010, LinkClosed{Link: m.link.id, Conn: m.link.cc})
	s.Step(5010, LinkClosed{Link: m.link.id, Conn: m.link.pc})
	s.now = timeBase + 5020
	if !s.resetMasterAndChangeAddress(m, "127.0.0.1", 6380) {
		t.Fatal("reset failed")
	}
	var got []Connect
	for _, c := range effectsOf[Connect](s.Step(5100, Tick{})) {
		if c.Link == m.link.id {
			got = append(got, c)
		}
	}
	if len(got) != 2 || got[0].Addr.Port != 6380 {
		t.Fatalf("no immediate reconnect to the new master: %+v", got)
	}
}
