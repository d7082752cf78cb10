package core

import (
	"errors"
	"strings"
	"testing"
)

// mapField returns the value of key in a SENTINEL MASTER map.
func mapField(v Value, key string) string {
	for i := 0; i+1 < len(v.Elems); i += 2 {
		if v.Elems[i].Str == key {
			return v.Elems[i+1].Str
		}
	}
	return "<missing " + key + ">"
}

// shownView is what a client sees of master mym: SENTINEL MASTER's
// ip:port and config-epoch, GET-MASTER-ADDR-BY-NAME, and INFO's address.
func shownView(t *testing.T, s *Sentinel, now Millis) string {
	t.Helper()
	resp, _ := request(s, now, 900, "SENTINEL", "MASTER", "mym")
	if len(resp) != 1 {
		t.Fatalf("SENTINEL MASTER: %d replies", len(resp))
	}
	m := resp[0].Value
	resp, _ = request(s, now, 901, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym")
	if len(resp) != 1 || len(resp[0].Value.Elems) != 2 {
		t.Fatalf("GET-MASTER-ADDR-BY-NAME: %v", resp)
	}
	a := resp[0].Value.Elems
	info := ""
	for _, l := range strings.Split(s.InfoSection(now), "\r\n") {
		if i := strings.Index(l, "address="); i >= 0 {
			info = strings.SplitN(l[i+len("address="):], ",", 2)[0]
		}
	}
	return "master " + mapField(m, "ip") + ":" + mapField(m, "port") + " epoch " + mapField(m, "config-epoch") +
		", addr " + a[0].Str + ":" + a[1].Str + ", info " + info
}

// settle answers every Persist until nothing is in flight.
func settle(s *Sentinel, now Millis) {
	for _, p := range effectsOf[Persist](s.Step(now, Tick{})) {
		s.Step(now, PersistDone{Seq: p.Seq})
	}
	for s.persist.inflight != 0 {
		s.Step(now, PersistDone{Seq: s.persist.inflight})
	}
}

// TestRepliesShowSavedConfigEpochOnPromotion (docs/core.md decision 31,
// fault lab B3k): the leader's config epoch becomes its failover epoch
// when the promoted replica reports role:master. Until the Persist that
// saves it succeeds, a crash would bring the sentinel back with the old
// epoch, so replies show the old epoch and address; they show the new
// pair once it is on disk. Without the rule SENTINEL MASTER showed
// config-epoch 1 while 0 was on disk (S3: 1 → 0 across a SIGKILL).
func TestRepliesShowSavedConfigEpochOnPromotion(t *testing.T) {
	s := newTestCore(t)
	now := Millis(1000)
	settle(s, now)
	before := "master 127.0.0.1:6379 epoch 0, addr 127.0.0.1:6379, info 127.0.0.1:6379"
	if got := shownView(t, s, now); got != before {
		t.Fatalf("before the failover: %s", got)
	}
	// Our failover in epoch 1 (elected, on disk) is waiting for the
	// promotion.
	p := promotionBeingSaved(t, s, now, 0)
	if got := shownView(t, s, now+20); got != before {
		t.Fatalf("config epoch 1 not on disk yet, replies show %s, want %s", got, before)
	}
	// With no other replica to reconfigure, the failover ends at the save
	// of the promotion (decision 37), and its +switch-master with it
	// (decision 34: not before the replies show the new address).
	if effs := s.Step(now+30, PersistDone{Seq: p.Seq}); emitTypes(effs) != "+failover-end +switch-master +slave" {
		t.Fatalf("events at the save: %q, want +failover-end +switch-master +slave", emitTypes(effs))
	}
	want := "master 127.0.0.1:6380 epoch 1, addr 127.0.0.1:6380, info 127.0.0.1:6380"
	if got := shownView(t, s, now+30); got != want {
		t.Fatalf("config epoch 1 on disk, replies show %s, want %s", got, want)
	}
}

// promotionBeingSaved builds our failover in epoch 1 (elected, on disk)
// whose replica has just reported role:master, with failover-timeout
// timeout (0: the default), and returns the Persist of the promotion's
// config epoch, not completed yet.
func promotionBeingSaved(t *testing.T, s *Sentinel, now Millis, timeout Millis) Persist {
	t.Helper()
	m := s.masters["mym"]
	var r *instance
	for _, x := range m.sortedReplicas() {
		r = x
	}
	s.now = now + timeBase
	m.flags |= fFailoverInProgress
	s.currentEpoch = 1
	m.m.failoverEpoch = 1
	m.m.failoverState = FailoverWaitPromotion
	m.m.failoverStateChange = s.now
	if timeout > 0 {
		m.m.failoverTimeout = timeout
	}
	m.m.promoted = r
	r.flags |= fPromoted
	s.markDirty()
	settle(s, now)

	s.now = now + 10 + timeBase
	s.replicaReportsMaster(r)
	if m.m.configEpoch != 1 || m.m.failoverState != FailoverReconfSlaves {
		t.Fatalf("promotion not taken: config epoch %d, state %v", m.m.configEpoch, m.m.failoverState)
	}
	ps := effectsOf[Persist](s.Step(now+10, Tick{}))
	if len(ps) != 1 {
		t.Fatalf("%d Persist effects, want 1", len(ps))
	}
	return ps[0]
}

// TestFailoverTimeoutSwitchWaitsForPromotionSave: when the failover
// timeout ends our failover while the promotion's config epoch is still
// being saved (a stalled disk), the failover ends without that save
// (+failover-end-for-timeout) but its +switch-master still waits for it
// (switchToPromoted's holdUntilShown; decision 34): replies show the old
// address until then.
func TestFailoverTimeoutSwitchWaitsForPromotionSave(t *testing.T) {
	s := newTestCore(t)
	now := Millis(1000)
	settle(s, now)
	p := promotionBeingSaved(t, s, now, 500)
	// The save stalls past the failover timeout.
	var events []string
	for at := now + 110; at <= now+1510; at += 100 {
		if ev := emitTypes(s.Step(at, Tick{})); ev != "" {
			events = append(events, ev)
		}
	}
	all := strings.Join(events, " ")
	if !strings.Contains(all, "+failover-end-for-timeout") {
		t.Fatalf("events while the save stalls: %q, want +failover-end-for-timeout", all)
	}
	if strings.Contains(all, "+switch-master") {
		t.Fatalf("+switch-master before the promotion's config epoch is saved: %q", all)
	}
	before := "master 127.0.0.1:6379 epoch 0, addr 127.0.0.1:6379, info 127.0.0.1:6379"
	if got := shownView(t, s, now+1510); got != before {
		t.Fatalf("config epoch 1 not on disk yet, replies show %s, want %s", got, before)
	}
	if ev := emitTypes(s.Step(now+1520, PersistDone{Seq: p.Seq})); !strings.Contains(ev, "+switch-master") {
		t.Fatalf("events at the save: %q, want +switch-master", ev)
	}
}

// TestRepliesShowSavedConfigEpochFromHello: a config adopted from a hello
// (epoch and address together) is shown once saved; a second adoption
// before the save keeps showing the pair on disk, and a failed save keeps
// it until a retry succeeds.
func TestRepliesShowSavedConfigEpochFromHello(t *testing.T) {
	s := newTestCore(t)
	now := Millis(1000)
	settle(s, now)
	before := "master 127.0.0.1:6379 epoch 0, addr 127.0.0.1:6379, info 127.0.0.1:6379"
	_, effs := request(s, now, 1, "PUBLISH", HelloChannel, helloFrom("127.0.0.1", 26380, peerB, 3, "127.0.0.1", 6380, 3))
	ps := effectsOf[Persist](effs)
	if len(ps) != 1 {
		t.Fatalf("%d Persist effects, want 1", len(ps))
	}
	if got := shownView(t, s, now); got != before {
		t.Fatalf("adopted config not on disk yet, replies show %s, want %s", got, before)
	}
	// A newer one arrives while the first save is in flight.
	request(s, now+5, 2, "PUBLISH", HelloChannel, helloFrom("127.0.0.1", 26381, peerC, 4, "127.0.0.1", 6381, 4))
	// The first switch (to 6380) is not published while the replies show
	// 6379 (decision 34).
	if got := emitTypes(s.Step(now+10, PersistDone{Seq: ps[0].Seq})); got != "" {
		t.Fatalf("published while replies show the saved pair: %q", got)
	}
	if got := shownView(t, s, now+10); got != before {
		t.Fatalf("config epoch 4 not on disk yet, replies show %s, want %s", got, before)
	}
	s.Step(now+10, Tick{})
	if s.persist.inflight == 0 {
		t.Fatal("no Persist for config epoch 4")
	}
	s.Step(now+20, PersistDone{Seq: s.persist.inflight, Err: errors.New("disk full")})
	if got := shownView(t, s, now+20); got != before {
		t.Fatalf("after a failed save, replies show %s, want %s", got, before)
	}
	var retry []Persist
	for at := now + 100; len(retry) == 0 && at < now+3000; at += 100 {
		retry = effectsOf[Persist](s.Step(at, Tick{}))
	}
	if len(retry) != 1 {
		t.Fatal("no Persist retried after the failure")
	}
	var switches []string
	for _, e := range effectsOf[Emit](s.Step(now+3000, PersistDone{Seq: retry[0].Seq})) {
		if e.Type == "+switch-master" {
			switches = append(switches, e.Msg)
		}
	}
	if got, want := strings.Join(switches, ", "), "mym 127.0.0.1 6379 127.0.0.1 6380, mym 127.0.0.1 6380 127.0.0.1 6381"; got != want {
		t.Fatalf("+switch-master at the save: %q, want %q", got, want)
	}
	want := "master 127.0.0.1:6381 epoch 4, addr 127.0.0.1:6381, info 127.0.0.1:6381"
	if got := shownView(t, s, now+3000); got != want {
		t.Fatalf("config epoch 4 on disk, replies show %s, want %s", got, want)
	}
}

// TestFollowedSwitchPublishedOnceSaved (docs/core.md decision 34; fault
// lab C3, test/interop TestDrillCoordinated/go-redis): a sentinel that
// follows a switch from a hello shows the new address only once the
// adopted config epoch is saved (decision 31), so +config-update-from and
// +switch-master wait for the same save, and the events of the master
// that follow in that step wait behind them. Before, the events left at once: go-redis switched
// on +switch-master, asked GET-MASTER-ADDR-BY-NAME for its next pool
// connection, got the old master back and went back to it.
func TestFollowedSwitchPublishedOnceSaved(t *testing.T) {
	for _, failFirst := range []bool{false, true} {
		name := "saved"
		if failFirst {
			name = "first save fails"
		}
		t.Run(name, func(t *testing.T) {
			s := newTestCore(t)
			now := Millis(1000)
			settle(s, now)
			before := "master 127.0.0.1:6379 epoch 0, addr 127.0.0.1:6379, info 127.0.0.1:6379"
			after := "master 127.0.0.1:6380 epoch 3, addr 127.0.0.1:6380, info 127.0.0.1:6380"
			_, effs := request(s, now, 1, "PUBLISH", HelloChannel, helloFrom("127.0.0.1", 26380, peerB, 3, "127.0.0.1", 6380, 3))
			if got := emitTypes(effs); got != "+new-epoch" {
				t.Fatalf("events before the save %q, want only +new-epoch", got)
			}
			ps := effectsOf[Persist](effs)
			if len(ps) != 1 {
				t.Fatalf("%d Persist effects, want 1", len(ps))
			}
			var released []Effect
			at := now + 20
			if failFirst {
				released = s.Step(now+10, PersistDone{Seq: ps[0].Seq, Err: errors.New("disk full")})
				if got := emitTypes(released); got != "" {
					t.Fatalf("published after a failed save: %q", got)
				}
				if got := shownView(t, s, now+10); got != before {
					t.Fatalf("after a failed save, replies show %s, want %s", got, before)
				}
				var retry []Persist
				for ; len(retry) == 0 && at < now+3000; at += 100 {
					retry = effectsOf[Persist](s.Step(at, Tick{}))
				}
				if len(retry) != 1 {
					t.Fatal("no Persist retried after the failure")
				}
				ps = retry
			}
			if got := shownView(t, s, at); got != before {
				t.Fatalf("not on disk yet, replies show %s, want %s", got, before)
			}
			released = s.Step(at, PersistDone{Seq: ps[0].Seq})
			// The moment +switch-master is out, replies name the new
			// master.
			if got := shownView(t, s, at); got != after {
				t.Fatalf("at +switch-master, replies show %s, want %s", got, after)
			}
			released = andSaved(s, at+100, append(released, s.Step(at+100, Tick{})...))
			if got, want := emitTypes(released), "+config-update-from +switch-master +slave"; got != want {
				t.Fatalf("released %q, want %q", got, want)
			}
			for _, e := range effectsOf[Emit](released) {
				if e.Type == "+switch-master" && (e.Msg != "mym 127.0.0.1 6379 127.0.0.1 6380" || e.At != now) {
					t.Fatalf("+switch-master %q at %d", e.Msg, e.At)
				}
			}
		})
	}
}
