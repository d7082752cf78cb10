package core

import (
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// pingRig drives one core the way the runtime does (wake at
// min(now+100 ms, NextDeadline)) against a master whose PING replies take
// a given latency, and records when PONGs arrive and events are emitted.
// Only the master's command connection is ever established.
type pingRig struct {
	t        *testing.T
	s        *Sentinel
	now      Millis
	latency  Millis // PING reply latency
	reply    Value  // what the master answers to PING
	paused   bool   // the master stops answering (SIGSTOP)
	cc       ConnID // the master's command connection, once connected
	ccLink   LinkID
	queue    []rigEvent
	lastPong Millis // delivery time of the last valid PING reply
	events   map[string]Millis
}

type rigEvent struct {
	at Millis
	ev Event
}

func newPingRig(t *testing.T, downAfter, latency Millis) *pingRig {
	t.Helper()
	s, err := New(Config{
		State: State{
			MyID: testMyID,
			Masters: []MasterConfig{{
				Name: "mym", Addr: Addr{Host: "127.0.0.1", Port: 6379}, Quorum: 1, DownAfter: downAfter,
			}},
		},
		Port: 26379,
	}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	r := &pingRig{t: t, s: s, latency: latency, reply: Status("PONG"), events: map[string]Millis{}}
	r.step(Tick{})
	return r
}

func (r *pingRig) schedule(at Millis, ev Event) {
	r.queue = append(r.queue, rigEvent{at, ev})
	sort.SliceStable(r.queue, func(a, b int) bool { return r.queue[a].at < r.queue[b].at })
}

func (r *pingRig) step(ev Event) {
	if rep, ok := ev.(Reply); ok && rep.Conn == r.cc && rep.Value.Kind == KindStatus && strings.HasPrefix(rep.Value.Str, "PONG") {
		r.lastPong = r.now
	}
	for _, e := range r.s.Step(r.now, ev) {
		switch e := e.(type) {
		case Connect:
			if e.Role == RoleMaster && e.Type == ConnCmd {
				r.cc, r.ccLink = e.Conn, e.Link
				r.schedule(r.now+1, LinkConnected{Link: e.Link, Conn: e.Conn, LocalIP: "127.0.0.1"})
			}
		case Send:
			if e.Conn == r.cc && e.Args[0] == "PING" && !r.paused {
				r.schedule(r.now+r.latency, Reply{Link: e.Link, Conn: e.Conn, Tag: e.Tag, Value: r.reply})
			}
		case Persist:
			r.schedule(r.now, PersistDone{Seq: e.Seq})
		case Emit:
			if _, seen := r.events[e.Type]; !seen && strings.Contains(e.Msg, "master mym") {
				r.events[e.Type] = r.now
			}
		}
	}
}

// run advances to end, waking for queued events and at the core's
// deadlines (never later than 100 ms), as internal/runtime does.
func (r *pingRig) run(end Millis) {
	for r.now < end {
		wake := min(r.now+100, r.s.NextDeadline(r.now))
		if len(r.queue) > 0 && r.queue[0].at <= wake {
			next := r.queue[0]
			r.queue = r.queue[1:]
			r.now = max(r.now, next.at)
			r.step(next.ev)
			continue
		}
		r.now = max(wake, r.now+1)
		r.step(Tick{})
	}
}

// TestSDownAtLastReplyPlusDownAfter: a paused master (connection open, no
// replies) is SDOWN the moment its last valid reply is down-after old,
// not down-after after the first unanswered PING.
func TestSDownAtLastReplyPlusDownAfter(t *testing.T) {
	tests := []struct {
		name      string
		downAfter Millis
		pauseAt   Millis
	}{
		{"D=1000", 1000, 5000},
		{"D=1000 odd phase", 1000, 5037},
		{"D=5000", 5000, 12345},
		{"D=30000 (ping-period pace)", 30000, 40000},
		{"D=50 (floor)", 50, 3000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newPingRig(t, tt.downAfter, 1)
			r.run(tt.pauseAt)
			if _, ok := r.events["+sdown"]; ok {
				t.Fatalf("+sdown before the pause")
			}
			r.paused = true
			r.run(tt.pauseAt + 3*tt.downAfter)
			at, ok := r.events["+sdown"]
			if !ok {
				t.Fatalf("no +sdown")
			}
			if got := at - r.lastPong; got <= tt.downAfter || got > tt.downAfter+2 {
				t.Errorf("+sdown %d ms after the last PONG, want (%d, %d]", got, tt.downAfter, tt.downAfter+2)
			}
		})
	}
}

// TestLowerDownAfterNoSDown: lowering down-after at runtime on a healthy
// master that was pinged every second flags nothing. Its last reply is
// already ~1 s old when the PING in flight is answered a millisecond
// (or 20 ms) later; sentinel.c counts from that PING and sees no silence, and so must
// we (the conformance test TestPeers caught +sdown here).
func TestLowerDownAfterNoSDown(t *testing.T) {
	for phase := Millis(0); phase < 1100; phase += 7 {
		t.Run(strconv.Itoa(int(phase)), func(t *testing.T) {
			r := newPingRig(t, 30000, 20)
			r.run(40000 + phase)
			r.step(Request{ID: 1, Args: []string{"SENTINEL", "SET", "mym", "down-after-milliseconds", "1000"}})
			r.run(45000)
			if at, ok := r.events["+sdown"]; ok {
				t.Fatalf("+sdown at %d after lowering down-after at %d (last PONG %d)", at, 40000+phase, r.lastPong)
			}
		})
	}
}

// TestSlowInstanceTolerance: PING latency up to ~0.9×down-after is
// tolerated on a young link; above down-after, or with invalid replies,
// the instance is SDOWN. Past MinLinkReconnectPeriod, sentinel.c's link
// recycling (no PONG for down-after/2 while a PING is pending) still
// applies: replies come in bursts one PING interval + latency apart, so
// the long-run tolerance is down-after/2 - PING interval (0.4 D at
// D=5000; sentinel.c: 0.3 D), and 0.8 D ends in SDOWN there as in
// sentinel.c.
func TestSlowInstanceTolerance(t *testing.T) {
	tests := []struct {
		name      string
		downAfter Millis
		latency   Millis
		reply     Value
		runFor    Millis
		wantSDown bool
	}{
		{"0.8 D, D=1000, young link", 1000, 800, Status("PONG"), 14000, false},
		{"0.88 D, D=5000, young link", 5000, 4400, Status("PONG"), 14500, false},
		{"LOADING is a valid reply", 1000, 800, ErrorValue("LOADING Redis is loading"), 14000, false},
		{"0.35 D, D=5000, old link", 5000, 1750, Status("PONG"), 120000, false},
		{"0.3 D, D=30000, old link", 30000, 9000, Status("PONG"), 300000, false},
		{"0.95 D, young link", 1000, 950, Status("PONG"), 14000, true},
		{"1.2 D", 1000, 1200, Status("PONG"), 14000, true},
		{"0.8 D, old link: recycled", 5000, 4000, Status("PONG"), 60000, true},
		{"fast but invalid reply", 1000, 1, ErrorValue("ERR unknown"), 14000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newPingRig(t, tt.downAfter, tt.latency)
			r.reply = tt.reply
			r.run(tt.runFor)
			_, got := r.events["+sdown"]
			if got != tt.wantSDown {
				t.Fatalf("+sdown %v, want %v (events %v)", got, tt.wantSDown, r.events)
			}
		})
	}
}

// TestPingInterval: min(ping-period, down-after, max(down-after/10, 10)).
func TestPingInterval(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	for _, tt := range []struct{ downAfter, want Millis }{
		{30000, 1000}, {10000, 1000}, {5000, 500}, {1000, 100}, {100, 10}, {50, 10}, {5, 5},
	} {
		m.downAfter = tt.downAfter
		if got := s.pingInterval(m); got != tt.want {
			t.Errorf("down-after %d: interval %d, want %d", tt.downAfter, got, tt.want)
		}
	}
}

// TestODownSoonAfterSecondSDown: with quorum 2, ODOWN needs the second
// sentinel's SDOWN. The first one re-asks every FastAskPeriod instead of
// every ask-period, and an answer is acted on at once, so both reach ODOWN
// within ~100 ms of the second +sdown (sentinel.c: up to ask-period plus
// a tick).
func TestODownSoonAfterSecondSDown(t *testing.T) {
	tests := []struct {
		name       string
		downAfters [3]Millis // s1, s2, s3
	}{
		{"second SDOWN 500 ms later", [3]Millis{1000, 1500, 5000}},
		{"second SDOWN 2 s later", [3]Millis{1000, 3000, 8000}},
		{"second SDOWN 4.3 s later", [3]Millis{5000, 9300, 20000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			// No replica: the failover aborts (no good slave), so the
			// master stays ODOWN-able and s1 must learn s2's SDOWN by
			// asking, not from a config update.
			m := w.addRedis("m", 6379)
			for k, port := range []int{26379, 26380, 26381} {
				cfg := Config{Port: port, State: State{MyID: strings.Repeat(string(rune('1'+k)), 40), Masters: []MasterConfig{{
					Name: "mym", Addr: Addr{Host: "127.0.0.1", Port: 6379}, Quorum: 2, DownAfter: tt.downAfters[k]}}}}
				w.addSentinel("s"+string(rune('1'+k)), port, cfg)
			}
			w.run(4000)
			m.paused = true // SIGSTOP: connections stay open, nothing answers
			w.run(tt.downAfters[2])
			at := func(who, typ string) Millis {
				t.Helper()
				for _, line := range w.out {
					f := strings.Fields(line)
					if len(f) >= 4 && f[1] == who && f[2] == typ && f[3] == "master" {
						sec, ms, _ := strings.Cut(f[0], ".")
						a, _ := strconv.Atoi(sec)
						b, _ := strconv.Atoi(ms)
						return Millis(a*1000 + b)
					}
				}
				t.Fatalf("no %s from %s:\n%s", typ, who, strings.Join(w.out, "\n"))
				return 0
			}
			sdown1, sdown2 := at("s1", "+sdown"), at("s2", "+sdown")
			if sdown2-sdown1 < 400 {
				t.Fatalf("SDOWNs %d and %d too close for the test", sdown1, sdown2)
			}
			for _, who := range []string{"s1", "s2"} {
				if d := at(who, "+odown") - sdown2; d < 0 || d > FastAskPeriod {
					t.Errorf("%s +odown %d ms after s2's +sdown, want [0, %d]", who, d, FastAskPeriod)
				}
			}
		})
	}
}

// TestODownInfoRefreshAge: at ODOWN, replicas are asked INFO again when
// their INFO is older than half of what selection accepts (5×ping-period),
// and at least every FailingReplicaInfoPeriod.
func TestODownInfoRefreshAge(t *testing.T) {
	tests := []struct {
		pingPeriod, want Millis
	}{
		{1000, FailingReplicaInfoPeriod}, // default: INFO every second is fresh enough
		{400, FailingReplicaInfoPeriod},
		{200, 500},
		{100, 250}, // the Tcl suite's SENTINEL DEBUG ping-period 100
		{10, 25},
	}
	for _, tt := range tests {
		if got := odownInfoRefreshAge(tt.pingPeriod); got != tt.want {
			t.Errorf("odownInfoRefreshAge(%d) = %d, want %d", tt.pingPeriod, got, tt.want)
		}
		if got := odownInfoRefreshAge(tt.pingPeriod); got > 5*tt.pingPeriod {
			t.Errorf("ping-period %d: refresh age %d above selection's validity %d", tt.pingPeriod, got, 5*tt.pingPeriod)
		}
	}
}
