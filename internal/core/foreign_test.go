package core

import (
	"strings"
	"testing"
)

// TestForeignHello pins decision 35: a hello that comes through a
// monitored instance from a sentinel not known under the master is taken
// only when the master address it announces belongs to this deployment
// (the master, a known replica, or the master the monitored master
// replicates from); one from a known sentinel, or PUBLISHed to this
// sentinel by a peer, is handled as sentinel.c does.
func TestForeignHello(t *testing.T) {
	const peerD = "dddddddddddddddddddddddddddddddddddddddd"
	foreignLogs := func(effs []Effect) int {
		n := 0
		for _, l := range effectsOf[Log](effs) {
			if strings.Contains(l.Msg, "Ignored a hello for master mym") {
				n++
			}
		}
		return n
	}
	// publish delivers a hello on the master's Pub/Sub link, as a leaked
	// hello arrives.
	publish := func(t *testing.T, s *Sentinel, now Millis, payload string) []Effect {
		t.Helper()
		m := s.masters["mym"]
		if m.link.pcState != connUp {
			s.Step(now, LinkConnected{Link: m.link.id, Conn: m.link.pc})
			if m.link.pcState != connUp {
				t.Fatalf("pub/sub link of the master not up")
			}
		}
		return andSaved(s, now, s.Step(now, Message{Link: m.link.id, Conn: m.link.pc, Channel: HelloChannel, Payload: payload}))
	}

	t.Run("unknown sentinel announcing another deployment's master is dropped", func(t *testing.T) {
		s := newTestCore(t)
		effs := publish(t, s, 100, helloFrom("10.9.9.2", 26379, peerD, 5, "10.9.9.1", 6379, 5))
		if got := emitTypes(effs); got != "" {
			t.Errorf("events %q, want none", got)
		}
		m := s.masters["mym"]
		if len(m.m.sentinels) != 2 || s.CurrentEpoch() != 0 || m.m.configEpoch != 0 || m.addr.Port != 6379 {
			t.Errorf("state changed: %d sentinels, epoch %d, config epoch %d, master %+v",
				len(m.m.sentinels), s.CurrentEpoch(), m.m.configEpoch, m.addr)
		}
		if n := foreignLogs(effs); n != 1 {
			t.Errorf("%d warnings, want 1", n)
		}
		if v := s.Masters()[0].ForeignHellos; v != 1 {
			t.Errorf("MasterView.ForeignHellos = %d, want 1", v)
		}
		// Logged once a minute per master, whatever the sender.
		if n := foreignLogs(publish(t, s, 30_000, helloFrom("10.9.9.3", 26379, strings.Repeat("e", 40), 5, "10.9.9.1", 6379, 5))); n != 0 {
			t.Errorf("%d warnings 30 s later, want 0", n)
		}
		if n := foreignLogs(publish(t, s, 60_200, helloFrom("10.9.9.2", 26379, peerD, 5, "10.9.9.1", 6379, 5))); n != 1 {
			t.Errorf("%d warnings 60 s later, want 1", n)
		}
	})
	t.Run("unknown sentinel announcing a known replica is taken", func(t *testing.T) {
		s := newTestCore(t)
		effs := publish(t, s, 100, helloFrom("127.0.0.1", 26390, peerD, 1, "127.0.0.1", 6380, 1))
		if got := emitTypes(effs); !strings.HasPrefix(got, "+sentinel ") || !strings.Contains(got, "+switch-master") {
			t.Errorf("events %q, want +sentinel … +switch-master", got)
		}
		if a := s.masters["mym"].addr; a.Port != 6380 {
			t.Errorf("master %+v, want the replica 127.0.0.1:6380", a)
		}
	})
	t.Run("unknown sentinel announcing the master ours replicates from is taken", func(t *testing.T) {
		s := newTestCore(t)
		m := s.masters["mym"]
		m.roleReported, m.slaveMasterHost, m.slaveMasterPort = fSlave, "10.0.0.9", 6379
		effs := publish(t, s, 100, helloFrom("127.0.0.1", 26390, peerD, 1, "10.0.0.9", 6379, 1))
		if got := emitTypes(effs); !strings.HasPrefix(got, "+sentinel ") || !strings.Contains(got, "+switch-master") {
			t.Errorf("events %q, want +sentinel … +switch-master", got)
		}
	})
	t.Run("a hello PUBLISHed to this sentinel by a peer is taken, as sentinel.c", func(t *testing.T) {
		// A sentinel that forgot its peers and replicas (SENTINEL RESET)
		// while its master was down learns the failover this way only
		// (simulator seed 1615703).
		s := newTestCore(t)
		resp, effs := request(s, 100, 1, "PUBLISH", HelloChannel, helloFrom("127.0.0.1", 26390, peerD, 1, "10.0.0.9", 6379, 1))
		if len(resp) != 1 {
			t.Fatalf("PUBLISH reply %v", resp)
		}
		effs = andSaved(s, 100, effs)
		if got := emitTypes(effs); !strings.HasPrefix(got, "+sentinel ") || !strings.Contains(got, "+switch-master") {
			t.Errorf("events %q, want +sentinel … +switch-master", got)
		}
	})
	t.Run("known sentinel is followed anywhere, as sentinel.c", func(t *testing.T) {
		s := newTestCore(t)
		effs := publish(t, s, 100, helloFrom("127.0.0.1", 26380, peerB, 3, "10.0.0.9", 6379, 3))
		if got := emitTypes(effs); !strings.Contains(got, "+config-update-from +switch-master") {
			t.Errorf("events %q, want +config-update-from +switch-master", got)
		}
		if n := foreignLogs(effs); n != 0 {
			t.Errorf("%d foreign-hello warnings for a known sentinel", n)
		}
	})
}
