package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseModel(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "notify.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	conf := `# all the values a sentinel needs
port 5000
bind 127.0.0.1 -::1
dir ` + dir + `
logfile "s.log"
loglevel WARNING
daemonize yes
pidfile /run/s.pid
requirepass "pw"
aclfile ""
maxclients 100
timeout 7
tcp-keepalive 60
protected-mode yes
hz 20
tls-port 6000
tls-cert-file c.pem
tls-key-file k.pem
tls-ca-cert-file ca.pem
tls-replication yes
tls-auth-clients optional
bind-source-addr 127.0.0.2
latency-tracking-info-percentiles 50 99.99
rename-command SENTINEL admin
repl-diskless-sync-delay 0
slave-priority 10
sentinel parallel-syncs m 4
SENTINEL resolve-hostnames no
sentinel monitor m 127.0.0.1 6379 2
sentinel down-after-milliseconds m 5000
sentinel failover-timeout m 9000
sentinel notification-script m notify.sh
sentinel auth-user m u
sentinel auth-pass m "p w"
sentinel master-reboot-down-after-period m 100
sentinel rename-command m CONFIG c2
sentinel rename-command m PING p2
sentinel config-epoch m 9
sentinel leader-epoch m 8
sentinel known-replica m 127.0.0.1 6380
sentinel known-slave m ::1 6381
sentinel known-sentinel m 127.0.0.1 26380 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
sentinel known-sentinel m 127.0.0.1 26381
sentinel current-epoch 3
sentinel myid ` + fixedID + `
sentinel announce-ip 10.0.0.1
sentinel announce-port 1
sentinel announce-hostnames yes
sentinel deny-scripts-reconfig no
sentinel sentinel-user su
sentinel sentinel-pass sp
sentinel monitor n 127.0.0.2 6379 1
`
	c, err := Parse(strings.NewReader(conf), "all.conf")
	if err != nil {
		t.Fatal(err)
	}
	s := c.Server
	checks := []struct {
		name      string
		got, want any
	}{
		{"port", s.Port, 5000},
		{"bind", s.Bind, []string{"127.0.0.1", "-::1"}},
		{"absdir", s.AbsDir, dir},
		{"logfile", s.LogFile, "s.log"},
		{"loglevel", s.LogLevel, "warning"},
		{"daemonize", s.Daemonize, true},
		{"pidfile", s.PidFile, "/run/s.pid"},
		{"requirepass", s.RequirePass, "pw"},
		{"maxclients", s.MaxClients, 100},
		{"timeout", s.Timeout, 7},
		{"tcp-keepalive", s.TCPKeepalive, 60},
		{"protected-mode", s.ProtectedMode, true},
		{"hz", s.HZ, 20},
		{"tls-port", s.TLSPort, 6000},
		{"tls files", []string{s.TLSCertFile, s.TLSKeyFile, s.TLSCACertFile}, []string{"c.pem", "k.pem", "ca.pem"}},
		{"tls-replication", s.TLSReplication, true},
		{"tls-auth-clients", s.TLSAuthClients, "optional"},
		{"bind-source-addr", s.BindSourceAddr, "127.0.0.2"},
		{"percentiles", s.LatencyPercents, []float64{50, 99.99}},
		{"rename", s.RenameCommands, []Rename{{"SENTINEL", "admin"}}},
		{"other", s.Other, []Directive{{"repl-diskless-sync-delay", []string{"0"}}, {"replica-priority", []string{"10"}}}},
	}
	m := c.Master("m")
	if m == nil || len(c.Sentinel.Masters) != 2 || c.Sentinel.Masters[1].Name != "n" {
		t.Fatalf("masters: %+v", c.Sentinel.Masters)
	}
	checks = append(checks, []struct {
		name      string
		got, want any
	}{
		{"master addr", []any{m.Host, m.Port, m.Quorum}, []any{"127.0.0.1", 6379, 2}},
		{"down-after", m.DownAfterMillis, int64(5000)},
		{"failover-timeout", m.FailoverTimeoutMillis, int64(9000)},
		{"parallel-syncs", m.ParallelSyncs, 4},
		{"notification-script", m.NotificationScript, "notify.sh"},
		{"auth", []string{m.AuthUser, m.AuthPass}, []string{"u", "p w"}},
		{"reboot", m.MasterRebootDownAfterMillis, int64(100)},
		{"master renames", m.RenameCommands, []Rename{{"CONFIG", "c2"}, {"PING", "p2"}}},
		{"epochs", []uint64{m.ConfigEpoch, m.LeaderEpoch, c.Sentinel.CurrentEpoch}, []uint64{9, 8, 9}},
		{"replicas", m.KnownReplicas, []Addr{{"127.0.0.1", 6380}, {"::1", 6381}}},
		{"sentinels", m.KnownSentinels, []Peer{{"127.0.0.1", 26380, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}}},
		{"myid", c.Sentinel.MyID, fixedID},
		{"announce", []any{c.Sentinel.AnnounceIP, c.Sentinel.AnnouncePort, c.Sentinel.AnnounceHostnames}, []any{"10.0.0.1", 1, true}},
		{"deny-scripts", c.Sentinel.DenyScriptsReconfig, false},
		{"sentinel auth", []string{c.Sentinel.SentinelUser, c.Sentinel.SentinelPass}, []string{"su", "sp"}},
		{"defaults of n", []any{c.Sentinel.Masters[1].DownAfterMillis, c.Sentinel.Masters[1].FailoverTimeoutMillis, c.Sentinel.Masters[1].ParallelSyncs}, []any{int64(30000), int64(180000), 1}},
	}...)
	for _, ch := range checks {
		if !reflect.DeepEqual(ch.got, ch.want) {
			t.Errorf("%s: got %#v, want %#v", ch.name, ch.got, ch.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	c, err := Parse(strings.NewReader(""), "empty")
	if err != nil {
		t.Fatal(err)
	}
	if c.Server.Port != 26379 || strings.Join(c.Server.Bind, " ") != "* -::*" || c.Server.ProtectedMode ||
		!c.Sentinel.DenyScriptsReconfig || c.Sentinel.ResolveHostnames || c.Server.LogLevel != "notice" {
		t.Fatalf("defaults: %+v %+v", c.Server, c.Sentinel)
	}
}

// acceptedLines are lines real redis-sentinel 7.0.15 accepts.
var acceptedLines = []string{
	"protected-mode no", "latency-tracking-info-percentiles 50 99 99.9",
	"user default on nopass ~* &* +@all", `dir "/tmp"`, `logfile "log.txt"`,
	"repl-diskless-sync-delay 0", "enable-protected-configs yes", "enable-debug-command yes",
	"list-max-ziplist-entries 5", "slaveof 1.2.3.4 5", `save ""`, "save 900 1 300 10",
	"foo.bar x y", "sentinel", "rename-command ping \"\"",
	"maxmemory 1gb", "client-output-buffer-limit normal 0 0 0", "sentinel known-sentinel m 1.2.3.4 5",
	"SENTINEL RESOLVE-HOSTNAMES YES", "sentinel monitor h nohost.invalid 6379 1",
	"sentinel monitor z 127.0.0.1 abc 1", "sentinel monitor z2 127.0.0.1 0 1",
	"sentinel config-epoch m -1", "sentinel known-replica h nohost.invalid 5",
}

func acceptedConf() string {
	return "sentinel monitor m 127.0.0.1 6379 2\n" + strings.Join(acceptedLines, "\n") + "\n"
}

func TestAcceptedLikeRedis(t *testing.T) {
	if _, err := Parse(strings.NewReader(acceptedConf()+"loadmodule /x.so a b\n"), "ok.conf"); err != nil {
		t.Fatal(err)
	}
}

// TestAcceptedByRealSentinel proves the accepted list against the binary.
func TestAcceptedByRealSentinel(t *testing.T) {
	needReal(t)
	dir := t.TempDir()
	// Real Sentinel writes an unresolved host as an empty word (a file it
	// cannot load back), so the real run uses resolvable names.
	conf := strings.ReplaceAll(acceptedConf(), "nohost.invalid", "localhost")
	if err := os.WriteFile(filepath.Join(dir, "sentinel.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runReal(t, dir, freePort(t), nil, "", "")
	if _, err := Parse(strings.NewReader(out), "rewritten.conf"); err != nil {
		t.Fatalf("we reject real's rewrite of it: %v\n%s", err, out)
	}
}

func TestInclude(t *testing.T) {
	dir := t.TempDir()
	inc := filepath.Join(dir, "inc.conf")
	if err := os.WriteFile(inc, []byte("port 7000\nsentinel monitor m 127.0.0.1 6379 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := "dir " + dir + "\ninclude inc.conf\n"
	_, err := Parse(strings.NewReader(conf), "main.conf")
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.File != inc || ce.Line != 2 || ce.Msg != msgQuorum {
		t.Fatalf("error from included file: %v", err)
	}
	if _, err := Parse(strings.NewReader("include "+os.DevNull+"\n"), "x"); !errors.Is(err, ErrConfig) {
		t.Fatalf("include of a device: %v", err)
	}
	self := filepath.Join(dir, "self.conf")
	if err := os.WriteFile(self, []byte("include "+self+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(self); !errors.Is(err, ErrConfig) {
		t.Fatalf("include loop: %v", err)
	}
}

func TestApplyArgs(t *testing.T) {
	c := mustParse(t, "sentinel monitor m 127.0.0.1 6379 2\n")
	if err := c.ApplyArgs([]string{"--port", "5000", "--sentinel", "down-after-milliseconds", "m", "100"}); err != nil {
		t.Fatal(err)
	}
	if c.Server.Port != 5000 || c.Master("m").DownAfterMillis != 100 {
		t.Fatalf("args not applied: port %d, down-after %d", c.Server.Port, c.Master("m").DownAfterMillis)
	}
	// File of 2 split lines + 2 option lines: the next option is line 5.
	err := c.ApplyArgs([]string{"--sentinel", "monitor", "m", "127.0.0.1", "6379", "2"})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Line != 5 || ce.Msg != msgDupMaster {
		t.Fatalf("second ApplyArgs: %v", err)
	}
	if err := c.ApplyArgs(nil); err != nil {
		t.Fatalf("empty args: %v", err)
	}
}

func TestCloneIsDeep(t *testing.T) {
	c := mustParse(t, "user a on\nbind 1.2.3.4\nrepl-diskless-sync-delay 0\nsentinel monitor m 127.0.0.1 6379 2\nsentinel known-replica m 127.0.0.1 1\nsentinel rename-command m A B\n")
	before := c.Clone()
	d := c.Clone()
	d.Master("m").Port = 1
	d.Master("m").KnownReplicas[0].Port = 2
	d.Master("m").RenameCommands[0].New = "C"
	d.Server.Bind[0] = "x"
	d.Server.Users[0].Rules[0] = "off"
	d.Server.Other[0].Args[0] = "9"
	d.Sentinel.Masters = append(d.Sentinel.Masters, &Master{Name: "n"})
	if !reflect.DeepEqual(c, before) {
		t.Fatalf("changing the clone changed the original:\n%+v\n%+v", c, before)
	}
	if reflect.DeepEqual(c, d) {
		t.Fatal("the clone was not changed")
	}
}
