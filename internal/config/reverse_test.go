package config

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestRealLoadsOurOutput is the reverse direction: a file we rewrite, with
// several masters and every per-master option, is accepted by the real
// redis-sentinel, which keeps the same sentinel state when it rewrites it.
func TestRealLoadsOurOutput(t *testing.T) {
	needReal(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "notify.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	m1, m2, port := freePort(t), freePort(t), freePort(t)
	in := `# ours
sentinel monitor a 127.0.0.1 ` + strconv.Itoa(m1) + ` 2
sentinel monitor b 127.0.0.1 ` + strconv.Itoa(m2) + ` 1
logfile "s.log"
`
	c := mustParse(t, in)
	c.Server.AbsDir = dir
	c.Server.Port = port
	c.Sentinel.MyID = fixedID
	c.Sentinel.CurrentEpoch = 7
	c.Sentinel.AnnounceIP = "10.1.2.3"
	c.Sentinel.SentinelPass = "sp"
	a := c.Master("a")
	a.DownAfterMillis, a.FailoverTimeoutMillis, a.ParallelSyncs = 4000, 20000, 2
	a.NotificationScript, a.ClientReconfigScript = script, script
	a.AuthUser, a.AuthPass = "u", "p"
	a.MasterRebootDownAfterMillis = 100
	a.ConfigEpoch, a.LeaderEpoch = 7, 7
	a.KnownReplicas = []Addr{{"127.0.0.2", 7001}, {"127.0.0.3", 7002}}
	a.KnownSentinels = []Peer{{"127.0.0.4", 26379, strings.Repeat("c", 40)}}
	a.RenameCommands = []Rename{{"CONFIG", "cfg"}}
	b := c.Master("b")
	b.ConfigEpoch = 3
	conf := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(conf, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Rewrite(conf, c); err != nil {
		t.Fatal(err)
	}
	ours, _ := os.ReadFile(conf)
	real := runReal(t, dir, port, nil, "", "")
	back, err := Parse(strings.NewReader(real), "real.conf")
	if err != nil {
		t.Fatalf("%v\n%s", err, real)
	}
	want, got := normSentinel(c.Sentinel), normSentinel(back.Sentinel)
	sortState(&want)
	sortState(&got)
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("real sentinel changed the state:\n--- ours\n%s--- real\n%s", ours, real)
	}
}

// sortState orders masters, replicas and peers by name/address, since real
// Sentinel writes them in hash-table order.
func sortState(s *Sentinel) {
	sort.Slice(s.Masters, func(i, j int) bool { return s.Masters[i].Name < s.Masters[j].Name })
	for _, m := range s.Masters {
		r := m.KnownReplicas
		sort.Slice(r, func(i, j int) bool { return addrKey(r[i].Host, r[i].Port) < addrKey(r[j].Host, r[j].Port) })
	}
}
