package core

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// steadyWorld is a core watching n masters with one replica each and two
// peer sentinels, answered like a healthy deployment: role-correct INFO,
// PONG, peers' hellos on every pub/sub link every 2 s. It is the "idle"
// load of the scale goals (real Sentinel: 500 masters + 500 replicas).
type steadyWorld struct {
	s   *Sentinel
	now Millis
	n   int
	// sends counts Send effects answered, persists Persist effects seen.
	sends, persists int
}

func newSteadyWorld(tb testing.TB, n int, knownReplicas bool) *steadyWorld {
	masters := make([]MasterConfig, 0, n)
	for k := 0; k < n; k++ {
		mc := MasterConfig{
			Name: fmt.Sprintf("m%04d", k), Addr: Addr{Host: "10.0.0.1", Port: 10000 + k}, Quorum: 2,
			KnownSentinels: []KnownSentinel{{Addr: Addr{Host: "10.0.1.2", Port: 26379}, RunID: peerB},
				{Addr: Addr{Host: "10.0.1.3", Port: 26379}, RunID: peerC}},
		}
		if knownReplicas {
			mc.KnownReplicas = []Addr{{Host: "10.0.0.2", Port: 10000 + k}}
		}
		masters = append(masters, mc)
	}
	s, err := New(Config{State: State{MyID: testMyID, Masters: masters}, Port: 26379}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		tb.Fatal(err)
	}
	return &steadyWorld{s: s, n: n}
}

// feed executes effects: connects succeed, sends are answered, persists
// complete at once; replies may produce more effects, handled in turn.
func (w *steadyWorld) feed(effs []Effect) {
	for len(effs) > 0 {
		var next []Effect
		for _, e := range effs {
			switch e := e.(type) {
			case Connect:
				next = append(next, w.s.Step(w.now, LinkConnected{Link: e.Link, Conn: e.Conn, LocalIP: "10.0.1.1"})...)
			case Send:
				w.sends++
				next = append(next, w.s.Step(w.now, Reply{Link: e.Link, Conn: e.Conn, Tag: e.Tag, Value: w.reply(e)})...)
			case Persist:
				w.persists++
				next = append(next, w.s.Step(w.now, PersistDone{Seq: e.Seq})...)
			}
		}
		effs = next
	}
}

// reply is what a healthy instance answers.
func (w *steadyWorld) reply(e Send) Value {
	l := w.s.links[e.Link]
	if l == nil || len(l.users) == 0 {
		return Status("OK")
	}
	i := l.users[0]
	switch e.Args[0] {
	case "PING":
		return Status("PONG")
	case "INFO":
		if i.isMaster() {
			return Bulk("# Replication\r\nrole:master\r\nconnected_slaves:1\r\nslave0:ip=10.0.0.2,port=" +
				strconv.Itoa(i.addr.Port) + ",state=online,offset=100,lag=0\r\nmaster_repl_offset:100\r\n")
		}
		return Bulk("# Replication\r\nrole:slave\r\nmaster_host:10.0.0.1\r\nmaster_port:" + strconv.Itoa(i.addr.Port) +
			"\r\nmaster_link_status:up\r\nslave_repl_offset:100\r\nslave_priority:100\r\n")
	case "SENTINEL":
		return Array(Int(0), Bulk("*"), Int(0))
	case "PUBLISH":
		return Int(1)
	}
	return Status("OK")
}

// hellos delivers the peers' hellos for the masters whose turn it is
// (each master every 2 s, on the master's and the replicas' pub/sub).
func (w *steadyWorld) hellos(tick int) {
	for k := tick % 20; k < w.n; k += 20 {
		m := w.s.masters[fmt.Sprintf("m%04d", k)]
		if m == nil {
			continue
		}
		targets := append([]*instance{m}, m.sortedReplicas()...)
		for _, peer := range []struct {
			ip, id string
		}{{"10.0.1.2", peerB}, {"10.0.1.3", peerC}} {
			p := fmt.Sprintf("%s,26379,%s,0,%s,10.0.0.1,%d,0", peer.ip, peer.id, m.name, m.addr.Port)
			for _, i := range targets {
				if i.link.pcState == connUp {
					w.feed(w.s.Step(w.now, Message{Link: i.link.id, Conn: i.link.pc, Channel: HelloChannel, Payload: p}))
				}
			}
		}
	}
}

// tick advances 100 ms and runs one Tick with its consequences.
func (w *steadyWorld) tick(k int) {
	w.now += 100
	w.feed(w.s.Step(w.now, Tick{}))
	w.hellos(k)
	w.s.NextDeadline(w.now) // the runtime asks after every tick
}

// healthy reports whether every master and replica is known, connected
// and not SDOWN, and every master has its replica.
func (w *steadyWorld) healthy() bool {
	for _, m := range w.s.sortedMasters() {
		if m.flags&fSDown != 0 || m.link.disconnected() || len(m.m.replicas) != 1 {
			return false
		}
		for _, r := range m.sortedReplicas() {
			if r.flags&fSDown != 0 || r.link.disconnected() || r.infoRefresh == 0 {
				return false
			}
		}
	}
	return true
}

// BenchmarkTickSteady measures one 100 ms tick (with the replies and hellos
// it causes) of a healthy deployment after 30 s of warm-up: the per-tick
// cost of idle instances.
func BenchmarkTickSteady(b *testing.B) {
	for _, n := range []int{1, 10, 100, 500, 1000, 5000} {
		b.Run(fmt.Sprintf("masters=%d", n), func(b *testing.B) {
			w := newSteadyWorld(b, n, true)
			for k := 0; k < 300; k++ {
				w.tick(k)
			}
			if !w.healthy() {
				b.Fatal("not healthy after warm-up")
			}
			b.ReportAllocs()
			b.ResetTimer()
			for k := 0; k < b.N; k++ {
				w.tick(300 + k)
			}
			b.StopTimer()
			if !w.healthy() {
				b.Fatal("not healthy at the end")
			}
		})
	}
}

// BenchmarkDiscovery2000 is "2000 masters discovered": a core started with
// 2000 masters and no known replica, run until all masters and replicas are
// healthy. It reports the virtual time and ticks to healthy and the
// number of Persist effects (the core coalesces: one in flight, the rest
// folded into the next).
func BenchmarkDiscovery2000(b *testing.B) {
	for k := 0; k < b.N; k++ {
		w := newSteadyWorld(b, 2000, false)
		ticks := 0
		for ; !w.healthy(); ticks++ {
			if ticks > 600 {
				b.Fatal("not healthy after 60 s")
			}
			w.tick(ticks)
		}
		b.ReportMetric(float64(ticks), "ticks-to-healthy")
		b.ReportMetric(float64(w.persists), "persists")
	}
}

// BenchmarkTickScan measures the pure scan of a tick over healthy
// instances when nothing is due (a second Tick at the same instant: every
// periodic command was just sent, no deadline passed). This is the part of
// the tick cost that grows with idle instances.
func BenchmarkTickScan(b *testing.B) {
	for _, n := range []int{1, 10, 100, 500, 1000, 5000} {
		b.Run(fmt.Sprintf("masters=%d", n), func(b *testing.B) {
			w := newSteadyWorld(b, n, true)
			for k := 0; k < 300; k++ {
				w.tick(k)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for k := 0; k < b.N; k++ {
				if effs := w.s.Step(w.now, Tick{}); len(effs) != 0 {
					b.Fatalf("a tick at the same instant did something: %v", effs[0])
				}
			}
		})
	}
}

// TestDiscoveryBurstCoalescesPersists: 200 masters discover their replicas
// in the same tick; with the disk slow (PersistDone delivered only after
// the burst), the burst yields one Persist in flight and one coalesced
// Persist after it is done, not one per replica (sentinel.c: one fsync per
// +slave).
func TestDiscoveryBurstCoalescesPersists(t *testing.T) {
	w := newSteadyWorld(t, 200, false)
	var held []PersistDone
	var persists []Persist
	var run func(effs []Effect)
	run = func(effs []Effect) {
		for len(effs) > 0 {
			var next []Effect
			for _, e := range effs {
				switch e := e.(type) {
				case Connect:
					next = append(next, w.s.Step(w.now, LinkConnected{Link: e.Link, Conn: e.Conn, LocalIP: "10.0.1.1"})...)
				case Send:
					next = append(next, w.s.Step(w.now, Reply{Link: e.Link, Conn: e.Conn, Tag: e.Tag, Value: w.reply(e)})...)
				case Persist:
					persists = append(persists, e)
					held = append(held, PersistDone{Seq: e.Seq})
				}
			}
			effs = next
		}
	}
	slaves := 0
	for k := 0; k < 5 && slaves < 200; k++ {
		w.now += 100
		effs := w.s.Step(w.now, Tick{})
		run(effs)
		slaves = 0
		for _, m := range w.s.sortedMasters() {
			slaves += len(m.m.replicas)
		}
	}
	if slaves != 200 {
		t.Fatalf("%d replicas discovered, want 200", slaves)
	}
	if len(persists) != 1 {
		t.Fatalf("%d Persist effects during the burst with one in flight, want 1", len(persists))
	}
	for len(held) > 0 {
		pd := held[0]
		held = held[1:]
		w.now++
		run(w.s.Step(w.now, pd))
	}
	if len(persists) != 2 {
		t.Fatalf("%d Persist effects in total, want 2 (one in flight + one coalesced)", len(persists))
	}
	last := persists[len(persists)-1].State
	n := 0
	for _, mc := range last.Masters {
		n += len(mc.KnownReplicas)
	}
	if n != 200 {
		t.Fatalf("the coalesced Persist carries %d known replicas, want 200", n)
	}
}
