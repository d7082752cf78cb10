package core

import (
	"strings"
	"testing"
)

func helloFrom(ip string, port int, runid string, epoch uint64, mip string, mport int, cepoch uint64) string {
	return formatHello(hello{ip: ip, port: port, runid: runid, epoch: epoch, masterName: "mym",
		masterIP: mip, masterPort: mport, configEpoch: cepoch})
}

func emitTypes(effs []Effect) string {
	var out []string
	for _, e := range effectsOf[Emit](effs) {
		out = append(out, e.Type)
	}
	return strings.Join(out, " ")
}

// TestHelloProcessing pins sentinelProcessHelloMessage (§11).
func TestHelloProcessing(t *testing.T) {
	const peerD = "dddddddddddddddddddddddddddddddddddddddd"
	tests := []struct {
		name    string
		payload string
		events  string
		check   func(t *testing.T, s *Sentinel)
	}{
		{"own myid ignored", helloFrom("127.0.0.1", 26379, testMyID, 9, "127.0.0.1", 6379, 9), "", nil},
		{"unknown master ignored", strings.Replace(helloFrom("127.0.0.1", 1, peerD, 0, "127.0.0.1", 6379, 0), "mym", "zzz", 1), "", nil},
		{"new sentinel", helloFrom("127.0.0.1", 26390, peerD, 0, "127.0.0.1", 6379, 0), "+sentinel", func(t *testing.T, s *Sentinel) {
			if len(s.masters["mym"].m.sentinels) != 3 {
				t.Errorf("sentinels %d", len(s.masters["mym"].m.sentinels))
			}
		}},
		{"address switch", helloFrom("127.0.0.1", 26399, peerB, 0, "127.0.0.1", 6379, 0), "+sentinel-address-switch", func(t *testing.T, s *Sentinel) {
			if a := s.masters["mym"].m.sentinels[peerB].addr; a.Port != 26399 {
				t.Errorf("addr %+v", a)
			}
		}},
		{"invalid addr: another runid at a known address", helloFrom("127.0.0.1", 26380, peerD, 0, "127.0.0.1", 6379, 0), "+sentinel-invalid-addr +sentinel", func(t *testing.T, s *Sentinel) {
			if _, ok := s.masters["mym"].m.sentinels[peerB]; ok {
				t.Errorf("old runid kept")
			}
		}},
		{"greater epoch adopted", helloFrom("127.0.0.1", 26380, peerB, 7, "127.0.0.1", 6379, 0), "+new-epoch", func(t *testing.T, s *Sentinel) {
			if s.CurrentEpoch() != 7 {
				t.Errorf("epoch %d", s.CurrentEpoch())
			}
		}},
		{"greater config epoch switches", helloFrom("127.0.0.1", 26380, peerB, 3, "127.0.0.1", 6380, 3), "+new-epoch +config-update-from +switch-master +slave", func(t *testing.T, s *Sentinel) {
			m := s.masters["mym"]
			if m.addr.Port != 6380 || m.m.configEpoch != 3 {
				t.Errorf("addr %+v epoch %d", m.addr, m.m.configEpoch)
			}
			if m.lookupReplica("127.0.0.1", 6379) == nil {
				t.Errorf("old master not a replica")
			}
		}},
		{"equal config epoch does not switch", helloFrom("127.0.0.1", 26380, peerB, 0, "127.0.0.1", 6380, 0), "", func(t *testing.T, s *Sentinel) {
			if s.masters["mym"].addr.Port != 6379 {
				t.Errorf("switched")
			}
		}},
		{"hostname rejected without resolve-hostnames", helloFrom("peer.example", 26390, peerD, 0, "127.0.0.1", 6379, 0), "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestCore(t)
			resp, effs := request(s, 100, 1, "PUBLISH", HelloChannel, tt.payload)
			effs = andSaved(s, 100, effs) // a followed switch is published once saved
			if len(resp) != 1 || resp[0].Value.Int != 1 {
				t.Fatalf("PUBLISH reply %v", resp)
			}
			if got := emitTypes(effs); got != tt.events {
				t.Fatalf("events %q, want %q", got, tt.events)
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
}

// TestDeterminism: the same scenario twice gives the same effects.
func TestDeterminism(t *testing.T) {
	run := func() []string {
		w := newWorld(t)
		w.showAll = true
		m := w.addRedis("m", 6379)
		r := w.addRedis("r1", 6380)
		r.master, r.ofHost, r.ofPort = false, m.ip, m.port
		for k, port := range []int{26379, 26380, 26381} {
			// The world ticks every sentinel in lockstep, so their last
			// PONGs coincide; SDOWN counts from the last PONG, and equal
			// down-afters would have all three reach ODOWN, and stand for
			// election, in the same tick (a split vote). Real sentinels
			// are desynchronised by their PING phases; 100 ms apart here.
			downAfter := Millis(3000 + 100*k)
			cfg := Config{Port: port, State: State{MyID: strings.Repeat(string(rune('1'+k)), 40), Masters: []MasterConfig{{
				Name: "mym", Addr: Addr{Host: "127.0.0.1", Port: 6379}, Quorum: 2, DownAfter: downAfter}}}}
			w.addSentinel(string(rune('a'+k)), port, cfg)
		}
		w.latency = 30
		w.run(4000)
		m.up = false
		w.killClients(m, ConnCmd, nil)
		w.killClients(m, ConnPubSub, nil)
		w.run(20000)
		return w.out
	}
	a, b := run(), run()
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("two runs differ")
	}
	if !strings.Contains(strings.Join(a, "\n"), "+switch-master") {
		t.Fatalf("scenario did not fail over:\n%s", strings.Join(a, "\n"))
	}
}

// inReconf puts the test core's master in RECONF_SLAVES of a failover in
// epoch 2 that promoted the replica at 6380.
func inReconf(t *testing.T, s *Sentinel) *instance {
	t.Helper()
	m := s.masters["mym"]
	r := m.lookupReplica("127.0.0.1", 6380)
	if r == nil {
		t.Fatal("no replica")
	}
	s.currentEpoch = 2
	m.flags |= fFailoverInProgress
	m.m.failoverState = FailoverReconfSlaves
	m.m.failoverEpoch = 2
	m.m.configEpoch = 2
	m.m.promoted = r
	r.flags |= fPromoted
	return m
}

// TestNewerConfigSupersedesOurFailover is the regression test for sim
// finding F2: a newer config epoch from a hello ends our stale failover
// even in RECONF_SLAVES, instead of letting it finish and switch to our
// promoted replica under the adopted epoch.
func TestNewerConfigSupersedesOurFailover(t *testing.T) {
	tests := []struct {
		name     string
		port     int // master port in the hello
		events   string
		wantAddr int
		wantMsg  string
	}{
		{"newer config keeps the old address", 6379, "+new-epoch -failover-abort-superseded", 6379, ""},
		{"newer config elsewhere", 6381, "+new-epoch -failover-abort-superseded +config-update-from +switch-master +slave +slave",
			6381, "mym 127.0.0.1 6379 127.0.0.1 6381"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestCore(t)
			m := inReconf(t, s)
			if s.currentMasterAddr(m).Port != 6380 {
				t.Fatalf("setup: shown %d", s.currentMasterAddr(m).Port)
			}
			_, effs := request(s, 100, 1, "PUBLISH", HelloChannel, helloFrom("127.0.0.1", 26380, peerB, 3, "127.0.0.1", tt.port, 3))
			effs = andSaved(s, 100, effs) // a followed switch is published once saved
			if got := emitTypes(effs); got != tt.events {
				t.Fatalf("events %q, want %q", got, tt.events)
			}
			for _, e := range effectsOf[Emit](effs) {
				if e.Type == "+switch-master" && e.Msg != tt.wantMsg {
					t.Fatalf("+switch-master %q, want %q", e.Msg, tt.wantMsg)
				}
			}
			v, _ := s.Master("mym")
			if v.FailoverState != FailoverNone || v.ConfigEpoch != 3 || v.CurrentAddr.Port != tt.wantAddr {
				t.Fatalf("view: state=%v epoch=%d addr=%d", v.FailoverState, v.ConfigEpoch, v.CurrentAddr.Port)
			}
			for _, r := range v.Replicas {
				if strings.Contains(r.Flags, "promoted") || strings.Contains(r.Flags, "reconf") {
					t.Fatalf("replica flags %q", r.Flags)
				}
			}
			// A later tick must not finish the dropped failover.
			for now := Millis(200); now < 60000; now += 100 {
				if strings.Contains(emitTypes(s.Step(now, Tick{})), "switch-master") {
					t.Fatalf("switched again at %d", now)
				}
			}
		})
	}
}

// TestOlderConfigDoesNotSupersede: a hello whose config epoch is greater
// than ours but smaller than our running failover's epoch only updates the
// epoch (sentinel.c behaviour); here the address is the same.
func TestOlderConfigDoesNotSupersede(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	s.currentEpoch = 5
	m.flags |= fFailoverInProgress
	m.m.failoverState = FailoverWaitStart
	m.m.failoverEpoch = 5
	request(s, 100, 1, "PUBLISH", HelloChannel, helloFrom("127.0.0.1", 26380, peerB, 5, "127.0.0.1", 6379, 3))
	if m.m.failoverState != FailoverWaitStart || m.m.configEpoch != 3 {
		t.Fatalf("state %v config epoch %d", m.m.failoverState, m.m.configEpoch)
	}
}
