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
			cfg := Config{Port: port, State: State{MyID: strings.Repeat(string(rune('1'+k)), 40), Masters: []MasterConfig{{
				Name: "mym", Addr: Addr{Host: "127.0.0.1", Port: 6379}, Quorum: 2, DownAfter: 3000}}}}
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
