package core

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestHostnames pins §20: with resolve-hostnames a hostname is accepted and
// resolved; with announce-hostnames it is what replies, events and
// SLAVEOF show; without resolve-hostnames it is refused.
func TestHostnames(t *testing.T) {
	resolve := func(h string) (string, bool) {
		if h == "db.local" {
			return "10.1.1.1", true
		}
		return "", false
	}
	s, err := New(Config{State: State{MyID: testMyID, ResolveHostnames: true, AnnounceHostnames: true},
		ResolveIP: resolve}, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	resp, effs := request(s, 0, 1, "SENTINEL", "monitor", "h", "db.local", "6379", "1")
	if e := effectsOf[Emit](effs); len(e) != 1 || e[0].Msg != "master h db.local 6379 quorum 1" {
		t.Fatalf("event %+v", e)
	}
	_ = resp
	resp, _ = request(s, 1, 2, "SENTINEL", "get-master-addr-by-name", "h")
	if got := renderValue(resp[0].Value); got != `["db.local" "6379"]` {
		t.Fatalf("addr %s", got)
	}
	if v, _ := s.Master("h"); v.Addr.IP != "10.1.1.1" {
		t.Fatalf("not resolved: %+v", v.Addr)
	}
	resp, _ = request(s, 2, 3, "SENTINEL", "monitor", "x", "nowhere.local", "6379", "1")
	if got := renderValue(resp[0].Value); got != "-ERR Can't resolve instance hostname." {
		t.Fatalf("unresolvable: %s", got)
	}
	// Switching announce-hostnames off shows the IP again.
	request(s, 3, 4, "SENTINEL", "config", "set", "announce-hostnames", "no")
	resp, _ = request(s, 4, 5, "SENTINEL", "get-master-addr-by-name", "h")
	if got := renderValue(resp[0].Value); got != `["10.1.1.1" "6379"]` {
		t.Fatalf("addr %s", got)
	}
	resp, _ = request(s, 5, 6, "SENTINEL", "config", "get", "*hostnames")
	if got := renderValue(resp[0].Value); !strings.Contains(got, `"resolve-hostnames" "yes" "announce-hostnames" "no"`) {
		t.Fatalf("config get %s", got)
	}
	// A replica announced by hostname in INFO is accepted with resolve-hostnames.
	m := s.masters["h"]
	s.refreshInfo(m, "role:master\r\nslave0:ip=db.local,port=6380,state=online,offset=1,lag=0\r\n")
	if m.lookupReplica("db.local", 6380) == nil {
		t.Fatalf("hostname replica not added")
	}
}

// TestHostnameRefusedWithoutResolve: replicas announced by name are ignored
// unless resolve-hostnames is on.
func TestHostnameRefusedWithoutResolve(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	n := len(m.m.replicas)
	s.refreshInfo(m, "role:master\r\nslave0:ip=db.local,port=6380,state=online,offset=1,lag=0\r\n")
	if len(m.m.replicas) != n {
		t.Fatalf("hostname replica added")
	}
}

// TestReplicaNameUnderAnnounceHostnames is conformance F5 (§3, §20): the
// replica's name is made at creation with announceSentinelAddrAndPort, so
// it is hostname:port under announce-hostnames, ip:port otherwise, and it
// does not change when announce-hostnames is switched afterwards.
func TestReplicaNameUnderAnnounceHostnames(t *testing.T) {
	resolve := func(h string) (string, bool) {
		if h == "localhost" {
			return "127.0.0.1", true
		}
		return "", false
	}
	for _, tc := range []struct {
		announce  bool
		wantName  string
		wantEvent string
	}{
		{true, "localhost:6380", "slave localhost:6380 localhost 6380 @ h localhost 6379"},
		{false, "127.0.0.1:6380", "slave 127.0.0.1:6380 127.0.0.1 6380 @ h 127.0.0.1 6379"},
	} {
		s, err := New(Config{State: State{MyID: testMyID, ResolveHostnames: true, AnnounceHostnames: tc.announce},
			ResolveIP: resolve}, rand.New(rand.NewPCG(3, 3)))
		if err != nil {
			t.Fatal(err)
		}
		request(s, 0, 1, "SENTINEL", "monitor", "h", "localhost", "6379", "1")
		m := s.masters["h"]
		s.out = nil
		s.refreshInfo(m, "role:master\r\nslave0:ip=localhost,port=6380,state=online,offset=1,lag=0\r\n")
		if e := effectsOf[Emit](s.out); len(e) != 1 || e[0].Type != "+slave" || e[0].Msg != tc.wantEvent {
			t.Errorf("announce=%v: events %+v, want +slave %q", tc.announce, e, tc.wantEvent)
		}
		s.out = nil
		for _, flip := range []string{"no", "yes"} {
			request(s, 2, 2, "SENTINEL", "config", "set", "announce-hostnames", flip)
			resp, _ := request(s, 3, 3, "SENTINEL", "replicas", "h")
			got := renderValue(resp[0].Value)
			if !strings.Contains(got, `"name" "`+tc.wantName+`"`) {
				t.Errorf("announce=%v then %s: replicas %s, want name %s", tc.announce, flip, got, tc.wantName)
			}
		}
		// A second INFO naming the same replica by IP does not duplicate it.
		s.refreshInfo(m, "role:master\r\nslave0:ip=127.0.0.1,port=6380,state=online,offset=1,lag=0\r\n")
		if n := len(m.m.replicas); n != 1 {
			t.Errorf("announce=%v: %d replicas, want 1", tc.announce, n)
		}
	}
}

// TestAnnounceIPSetButEmpty is conformance F2: CONFIG SET announce-ip ""
// leaves announce-ip set (empty), which the State reports so the rewrite
// can write `sentinel announce-ip ""`; a State loaded without it is unset.
func TestAnnounceIPSetButEmpty(t *testing.T) {
	for _, tc := range []struct {
		name    string
		load    State
		set     []string // CONFIG SET announce-ip values, in order
		wantIP  string
		wantSet bool
	}{
		{"default", State{}, nil, "", false},
		{"loaded", State{AnnounceIP: "1.2.3.4"}, nil, "1.2.3.4", true},
		{"set then emptied", State{}, []string{"1.2.3.4", ""}, "", true},
		{"emptied from a loaded value", State{AnnounceIP: "1.2.3.4"}, []string{""}, "", true},
		{"loaded set-but-empty", State{AnnounceIPSet: true}, nil, "", true},
	} {
		st := tc.load
		st.MyID = testMyID
		s, err := New(Config{State: st}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range tc.set {
			request(s, Millis(k), uint64(k+1), "SENTINEL", "config", "set", "announce-ip", v)
		}
		got := s.Snapshot()
		if got.AnnounceIP != tc.wantIP || got.AnnounceIPSet != tc.wantSet {
			t.Errorf("%s: announce-ip %q set=%v, want %q set=%v", tc.name, got.AnnounceIP, got.AnnounceIPSet, tc.wantIP, tc.wantSet)
		}
	}
}
