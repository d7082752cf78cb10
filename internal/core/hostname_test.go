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
	if got := renderValue(resp[0].Value); got != "-ERR Invalid IP address or hostname specified" {
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
