package core

import (
	"strings"
	"testing"
)

func TestRankCandidates(t *testing.T) {
	p := selectParams{pingPeriod: 1000, infoPeriod: 10000, masterDownAfter: 5000}
	ok := func(key, runid string, prio int, off uint64) candidate {
		return candidate{key: key, runid: runid, priority: prio, priorityKnown: true, offset: off, lastAvailAge: 100, infoAge: 100}
	}
	tests := []struct {
		name string
		p    selectParams
		in   []candidate
		want []string
	}{
		{"priority first", p, []candidate{ok("a", "1", 100, 900), ok("b", "2", 10, 1)}, []string{"b", "a"}},
		{"offset second", p, []candidate{ok("a", "1", 100, 10), ok("b", "2", 100, 20)}, []string{"b", "a"}},
		{"runid third, case-insensitive", p, []candidate{ok("a", "BB", 100, 5), ok("b", "aa", 100, 5)}, []string{"b", "a"}},
		{"missing runid last", p, []candidate{ok("a", "", 100, 5), ok("b", "zz", 100, 5)}, []string{"b", "a"}},
		{"priority 0 never", p, []candidate{ok("a", "1", 0, 99), ok("b", "2", 100, 1)}, []string{"b"}},
		{"sdown excluded", p, []candidate{func() candidate { c := ok("a", "1", 1, 1); c.down = true; return c }()}, nil},
		{"disconnected excluded", p, []candidate{func() candidate { c := ok("a", "1", 1, 1); c.disconnected = true; return c }()}, nil},
		{"not seen for 5 pings", p, []candidate{func() candidate { c := ok("a", "1", 1, 1); c.lastAvailAge = 5001; return c }()}, nil},
		{"seen exactly 5 pings ago", p, []candidate{func() candidate { c := ok("a", "1", 1, 1); c.lastAvailAge = 5000; return c }()}, []string{"a"}},
		{"stale INFO with master up (3 info periods)", p, []candidate{func() candidate { c := ok("a", "1", 1, 1); c.infoAge = 30001; return c }()}, nil},
		{"INFO validity is 5 pings when master SDOWN",
			selectParams{pingPeriod: 1000, infoPeriod: 10000, masterDownAfter: 5000, masterSDown: true, masterDownAge: 1000},
			[]candidate{func() candidate { c := ok("a", "1", 1, 1); c.infoAge = 5001; return c }(), ok("b", "2", 2, 1)}, []string{"b"}},
		{"link down too long",
			selectParams{pingPeriod: 1000, infoPeriod: 10000, masterDownAfter: 5000, masterSDown: true, masterDownAge: 1000},
			[]candidate{func() candidate { c := ok("a", "1", 1, 1); c.linkDownTime = 51001; return c }(),
				func() candidate { c := ok("b", "2", 2, 1); c.linkDownTime = 51000; return c }()}, []string{"b"}},
		{"priority never seen", p, []candidate{func() candidate { c := ok("a", "1", 100, 1); c.priorityKnown = false; return c }(), ok("b", "2", 100, 0)}, []string{"b"}},
		{"priority unknown but running as master, ranked after known", p, []candidate{
			func() candidate {
				c := ok("a", "1", 1, 9)
				c.priorityKnown, c.reportsMaster = false, true
				return c
			}(),
			ok("b", "2", 100, 0)}, []string{"b", "a"}},

		{"empty", p, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := rankCandidates(tt.p, tt.in)
			var keys []string
			for _, c := range got {
				keys = append(keys, c.key)
			}
			if len(keys) != len(tt.want) {
				t.Fatalf("got %v, want %v", keys, tt.want)
			}
			for i := range keys {
				if keys[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", keys, tt.want)
				}
			}
		})
	}
}

func TestLeaderThreshold(t *testing.T) {
	tests := []struct{ known, quorum, want int }{
		{0, 1, 1}, // alone: majority of 1 is 1
		{1, 1, 2}, // two sentinels: need both
		{2, 2, 2}, // three sentinels, quorum 2
		{2, 3, 3}, // quorum above majority wins
		{4, 2, 3}, // five sentinels
		{5, 1, 4}, // six sentinels: (6)/2+1
	}
	for _, tt := range tests {
		if got := leaderThreshold(tt.known, tt.quorum); got != tt.want {
			t.Errorf("leaderThreshold(%d, %d) = %d, want %d", tt.known, tt.quorum, got, tt.want)
		}
	}
}

// TestUnknownPriority: a replica whose INFO never showed slave_priority is
// not promoted on the default priority 100 while it reports role:slave
// (its real priority may be 0, sim S6 seed 3018). One that already runs
// as master (a master's INFO has no priority) stays eligible, after any
// replica with a known priority, or a master demoted behind the
// sentinels' back could never be replaced (sim L1).
func TestUnknownPriority(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	r := m.lookupReplica("127.0.0.1", 6380)
	s.Step(1, LinkConnected{Link: r.link.id, Conn: r.link.cc})
	s.Step(1, LinkConnected{Link: r.link.id, Conn: r.link.pc})
	s.refreshInfo(r, "run_id:"+strings.Repeat("9", 40)+"\r\nrole:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:6379\r\n")
	if got := s.selectSlave(m); got != nil {
		t.Fatalf("selected %s with unknown priority", got.name)
	}
	s.refreshInfo(r, "role:master\r\n")
	if got := s.selectSlave(m); got != r {
		t.Fatalf("a replica running as master is not selected: %v", got)
	}
	s.refreshInfo(r, replicaInfo) // role:slave, slave_priority:7
	if got := s.selectSlave(m); got != r || !r.priorityKnown {
		t.Fatalf("not selected once the priority is known: %v", got)
	}
}

// TestOldMasterPriorityCarried: a master that reported role:slave with
// slave_priority 0 (an operator made it a replica) and is then replaced
// by +switch-master keeps that priority in the replica object it becomes:
// restarted as a master (whose INFO has no priority) it must not be
// promoted on the default 100 (sim E1, seed 500358). The master object
// does not pass the old address's priority on to the next switch.
func TestOldMasterPriorityCarried(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	s.refreshInfo(m, "role:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:6380\r\nslave_priority:0\r\n")
	if !s.resetMasterAndChangeAddress(m, "127.0.0.1", 6380) {
		t.Fatal("reset failed")
	}
	old := m.lookupReplica("127.0.0.1", 6379)
	if old == nil || !old.priorityKnown || old.priority != 0 {
		t.Fatalf("the old master's replica object lost its priority 0: %+v", old)
	}
	if m.priorityKnown {
		t.Fatalf("the new master inherited the old address's priority %d", m.priority)
	}
	s.Step(1, LinkConnected{Link: old.link.id, Conn: old.link.cc})
	s.Step(1, LinkConnected{Link: old.link.id, Conn: old.link.pc})
	s.refreshInfo(old, "run_id:"+strings.Repeat("9", 40)+"\r\nrole:master\r\n") // restarted as master
	if got := s.selectSlave(m); got != nil {
		t.Fatalf("selected %s, last seen with slave_priority 0", got.name)
	}
}

// TestUnconvertedOldMasterNotPromoted: the old master after +switch-master,
// still running as master and never seen as a replica since (isolated,
// not converted yet: fault lab C7), is not promoted by a later failover —
// it lacks every write the new master acknowledged. It is eligible again
// once the new master reports role:slave (it replicates from the old
// master, which then holds everything, or from another node: its own
// writes are lost with that sync anyway), or once it was seen as a replica
// (a later promotion of it by a peer's failover is then an ordinary
// promoted replica).
func TestUnconvertedOldMasterNotPromoted(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	if !s.resetMasterAndChangeAddress(m, "127.0.0.1", 6380) {
		t.Fatal("reset failed")
	}
	s.Step(100, Tick{}) // connects the new replica objects
	old := m.lookupReplica("127.0.0.1", 6379)
	s.Step(101, LinkConnected{Link: old.link.id, Conn: old.link.cc})
	s.Step(101, LinkConnected{Link: old.link.id, Conn: old.link.pc})
	if old.link.disconnected() {
		t.Fatal("the old master's link is not up")
	}
	s.refreshInfo(old, "run_id:"+strings.Repeat("9", 40)+"\r\nrole:master\r\n")
	if got := s.selectSlave(m); got != nil {
		t.Fatalf("selected %s, the old master not converted yet", got.name)
	}
	s.refreshInfo(m, "role:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:6379\r\n")
	if got := s.selectSlave(m); got != old {
		t.Fatalf("the master replicates from the old master, which holds all its data, but it was not selected: %v", got)
	}
	s.refreshInfo(m, "role:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:6381\r\n")
	if got := s.selectSlave(m); got != old {
		t.Fatalf("the master replicates from a third node (its own writes are lost with the next sync), but the old master was not selected: %v", got)
	}
	s.refreshInfo(m, "role:master\r\n")
	if got := s.selectSlave(m); got != nil {
		t.Fatalf("selected %s, the old master not converted yet, the master back as master", got.name)
	}
	s.refreshInfo(old, "role:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:6380\r\nslave_priority:7\r\n") // converted
	s.refreshInfo(old, "role:master\r\n")                                                                 // then promoted by a peer
	if got := s.selectSlave(m); got != old {
		t.Fatalf("a converted old master promoted later is not selected: %v", got)
	}
}
