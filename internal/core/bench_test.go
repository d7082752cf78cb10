package core

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchCore returns a core watching n masters, each with 3 replicas and 2
// peer sentinels, all connections up.
func benchCore(b *testing.B, n int) *Sentinel {
	var masters []MasterConfig
	for k := 0; k < n; k++ {
		masters = append(masters, MasterConfig{
			Name: fmt.Sprintf("m%03d", k), Addr: Addr{Host: "10.0.0.1", Port: 6000 + k}, Quorum: 2,
			KnownReplicas: []Addr{{Host: "10.0.0.2", Port: 6000 + k}, {Host: "10.0.0.3", Port: 6000 + k}, {Host: "10.0.0.4", Port: 6000 + k}},
			KnownSentinels: []KnownSentinel{{Addr: Addr{Host: "10.0.1.2", Port: 26379}, RunID: peerB},
				{Addr: Addr{Host: "10.0.1.3", Port: 26379}, RunID: peerC}},
		})
	}
	s, err := New(Config{State: State{MyID: testMyID, Masters: masters}, Port: 26379}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	connectAll(s, 0, s.Step(0, Tick{}))
	return s
}

// BenchmarkTick measures one timer tick with every instance connected and
// every command answered at once.
func BenchmarkTick(b *testing.B) {
	for _, n := range []int{1, 10, 100, 1000} {
		b.Run(fmt.Sprintf("masters=%d", n), func(b *testing.B) {
			s := benchCore(b, n)
			now := Millis(0)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				now += 100
				effs := s.Step(now, Tick{})
				answer(s, now, effs, func(snd Send) (Value, bool) {
					switch snd.Args[0] {
					case "PING":
						return Status("PONG"), true
					case "INFO":
						return Bulk(replicaInfo), true
					}
					return Status("OK"), true
				})
			}
		})
	}
}

// BenchmarkResetAll200 measures one SENTINEL RESET * of 200 masters
// without replicas or peers (the core's share of the hostile `events`
// load, docs/security.md), with a tick every 10 RESETs.
func BenchmarkResetAll200(b *testing.B) {
	var masters []MasterConfig
	for k := 0; k < 200; k++ {
		masters = append(masters, MasterConfig{Name: fmt.Sprintf("m%04d-xxxx", k), Addr: Addr{Host: "127.0.0.1", Port: 1 + k}, Quorum: 2})
	}
	s, err := New(Config{State: State{MyID: testMyID, Masters: masters}, Port: 26379}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	s.Step(0, Tick{})
	now := Millis(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now++
		s.Step(now, Request{ID: uint64(i + 1), Args: []string{"SENTINEL", "RESET", "*"}})
		if i%10 == 0 {
			s.Step(now, Tick{})
		}
	}
}
