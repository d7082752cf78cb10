package core

import (
	"strings"
	"testing"
	"unsafe"
)

// inside reports whether s points into the memory of buf.
func inside(s, buf string) bool {
	if len(s) == 0 || len(buf) == 0 {
		return false
	}
	p, b := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(buf)))
	return p >= b && p < b+uintptr(len(buf))
}

// TestInfoRepliesNotPinned: after a second INFO, nothing the instances keep
// points into the first reply, so each instance holds one INFO reply, not
// two (the first one was kept alive by the run ID, the replica's
// master_host and the replica's address, sliced out of it).
func TestInfoRepliesNotPinned(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	pad := strings.Repeat("# filler:0\r\n", 300) // an INFO reply is ~5 KiB
	masterInfo := func() string {
		return "# Server\r\nrun_id:" + strings.Repeat("1", 40) + "\r\n" + pad +
			"# Replication\r\nrole:master\r\nconnected_slaves:1\r\n" +
			"slave0:ip=127.0.0.9,port=6390,state=online,offset=1,lag=0\r\n"
	}
	replicaInfo := func() string {
		return "# Server\r\nrun_id:" + strings.Repeat("2", 40) + "\r\n" + pad +
			"# Replication\r\nrole:slave\r\nmaster_host:127.0.0.1\r\nmaster_port:6379\r\n" +
			"master_link_status:up\r\nslave_priority:100\r\n"
	}
	m1 := masterInfo()
	s.refreshInfo(m, m1)
	r := m.lookupReplica("127.0.0.9", 6390)
	if r == nil {
		t.Fatal("replica from INFO not added")
	}
	r1 := replicaInfo()
	s.refreshInfo(r, r1)
	m2, r2 := masterInfo(), replicaInfo()
	s.refreshInfo(m, m2)
	s.refreshInfo(r, r2)
	if m.info != m2 || r.info != r2 {
		t.Fatal("INFO not recorded")
	}
	if r.slaveMasterHost != "127.0.0.1" || m.runid != strings.Repeat("1", 40) || r.runid != strings.Repeat("2", 40) {
		t.Fatalf("fields: master host %q, run IDs %q %q", r.slaveMasterHost, m.runid, r.runid)
	}
	for _, f := range []struct{ name, v string }{
		{"master run ID", m.runid},
		{"replica run ID", r.runid},
		{"replica's master host", r.slaveMasterHost},
		{"replica host", r.addr.Host},
		{"replica IP", r.addr.IP},
		{"replica name", r.name},
	} {
		if inside(f.v, m1) || inside(f.v, r1) {
			t.Errorf("%s %q points into the first INFO reply: it stays alive", f.name, f.v)
		}
	}
}
