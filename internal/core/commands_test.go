package core

import (
	"os"
	"strings"
	"testing"
)

// TestCommandReplies pins reply shapes and exact error strings (§5).
func TestCommandReplies(t *testing.T) {
	tests := []struct {
		args []string
		want string // rendered reply; a trailing "*" means prefix match
	}{
		{[]string{"SENTINEL"}, "-ERR wrong number of arguments for 'sentinel' command"},
		{[]string{"SENTINEL", "nope"}, "-ERR unknown subcommand 'nope'. Try SENTINEL HELP."},
		{[]string{"SENTINEL", "MASTERS", "x"}, "-ERR wrong number of arguments for 'sentinel|masters' command"},
		{[]string{"SENTINEL", "myid"}, `"` + testMyID + `"`},
		{[]string{"SENTINEL", "get-master-addr-by-name", "mym"}, `["127.0.0.1" "6379"]`},
		{[]string{"SENTINEL", "get-master-addr-by-name", "nope"}, "(nil-array)"},
		{[]string{"SENTINEL", "master", "nope"}, "-ERR No such master with that name"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "x", "0", "*"}, "-ERR value is not an integer or out of range"},
		{[]string{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "0", "*"}, `[:0 "*" :0]`},
		{[]string{"SENTINEL", "is-master-down-by-addr", "10.9.9.9", "1", "0", "*"}, `[:0 "*" :0]`},
		{[]string{"SENTINEL", "monitor", "a", "127.0.0.1", "1", "x"}, "-ERR Invalid quorum"},
		{[]string{"SENTINEL", "monitor", "a", "127.0.0.1", "x", "1"}, "-ERR Invalid port"},
		{[]string{"SENTINEL", "monitor", "a", "127.0.0.1", "1", "0"}, "-ERR Quorum must be 1 or greater."},
		{[]string{"SENTINEL", "monitor", "a", "db.example", "1", "1"}, "-ERR Invalid IP address or hostname specified"},
		{[]string{"SENTINEL", "monitor", "mym", "127.0.0.1", "1", "1"}, "-ERR Duplicate master name."},
		{[]string{"SENTINEL", "monitor", "a", "127.0.0.1", "70000", "1"}, "-ERR Invalid port number."},
		// Conformance F1: the port range is checked before the duplicate name.
		{[]string{"SENTINEL", "monitor", "mym", "127.0.0.1", "70000", "1"}, "-ERR Invalid port number."},
		{[]string{"SENTINEL", "monitor", "mym", "127.0.0.1", "-5", "1"}, "-ERR Invalid port number."},
		{[]string{"SENTINEL", "failover", "nope"}, "-ERR No such master with that name"},
		{[]string{"SENTINEL", "failover", "mym"}, "-NOGOODSLAVE No suitable replica to promote"},
		{[]string{"SENTINEL", "ckquorum", "mym"}, "+OK 3 usable Sentinels. Quorum and failover authorization can be reached"},
		{[]string{"SENTINEL", "set", "mym", "quorum", "0"}, "-ERR Invalid argument '0' for SENTINEL SET 'quorum'"},
		{[]string{"SENTINEL", "set", "mym", "bogus", "1"}, "-ERR Unknown option or number of arguments for SENTINEL SET 'bogus'"},
		{[]string{"SENTINEL", "set", "mym", "notification-script", "/bin/true"}, "-ERR Reconfiguration of scripts path is denied*"},
		{[]string{"SENTINEL", "set", "mym", "rename-command", "CONFIG"}, "-ERR Unknown option or number of arguments for SENTINEL SET 'rename-command'"},
		{[]string{"SENTINEL", "set", "mym", "master-reboot-down-after-period", "-1"}, "-ERR Invalid argument '-1' for SENTINEL SET 'master-reboot-down-after-period'"},
		{[]string{"SENTINEL", "config", "get", "announce-*"}, `{"announce-hostnames" "no" "announce-ip" "" "announce-port" "0"}`},
		{[]string{"SENTINEL", "config", "set", "announce-port", "99999"}, "-ERR Invalid value '99999' to SENTINEL CONFIG SET 'announce-port'"},
		{[]string{"SENTINEL", "config", "set", "bogus", "1"}, "-ERR Invalid argument 'bogus' to SENTINEL CONFIG SET"},
		{[]string{"SENTINEL", "config", "set", "x"}, "-ERR Only SENTINEL CONFIG GET <param> [<param> <param> ...] / SET <param> <value> [<param> <value> ...] are supported."},
		{[]string{"SENTINEL", "debug", "ping-period"}, "-ERR Unknown option or number of arguments for SENTINEL DEBUG 'ping-period'"},
		{[]string{"SENTINEL", "debug", "ping-period", "0"}, "-ERR Invalid argument '0' for SENTINEL DEBUG 'ping-period'"},
		{[]string{"SENTINEL", "debug", "ping-period", "500", "ask-period", "300"}, "+OK"},
		{[]string{"SENTINEL", "simulate-failure", "help"}, `["crash-after-election" "crash-after-promotion"]`},
		{[]string{"SENTINEL", "simulate-failure", "bogus"}, "-ERR Unknown failure simulation specified"},
		{[]string{"SENTINEL", "pending-scripts"}, "[]"},
		{[]string{"SENTINEL", "reset", "nomatch*"}, ":0"},
		{[]string{"SENTINEL", "info-cache", "mym", "nope", "mym"}, `["mym" [[:*`},
		{[]string{"ROLE"}, `["sentinel" ["mym"]]`},
		{[]string{"PUBLISH", "other", "x"}, "-ERR Only HELLO messages are accepted by Sentinel instances."},
		{[]string{"PUBLISH", HelloChannel, "garbage"}, ":1"},
		{[]string{"SENTINEL", "help"}, `[+SENTINEL <subcommand>*`},
	}
	for k, tt := range tests {
		t.Run(strings.Join(tt.args, "_"), func(t *testing.T) {
			s := newTestCore(t)
			resp, _ := request(s, 100, uint64(k+1), tt.args...)
			if len(resp) != 1 {
				t.Fatalf("want one reply, got %v", resp)
			}
			got := renderValue(resp[0].Value)
			if p, ok := strings.CutSuffix(tt.want, "*"); ok {
				if !strings.HasPrefix(got, p) {
					t.Fatalf("got %s, want prefix %s", got, p)
				}
			} else if got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestSubcommandTable: 21 subcommands plus Valkey 8's four PRIMARY
// aliases, as COMMAND LIST expects.
func TestSubcommandTable(t *testing.T) {
	if n := len(SentinelSubcommandArities()); n != 25 {
		t.Fatalf("%d subcommands, want 25", n)
	}
}

// TestMasterMapLayout pins the field order of SENTINEL MASTER: tools read
// num-other-sentinels by position (value at index 33 of the flat array).
func TestMasterMapLayout(t *testing.T) {
	s := newTestCore(t)
	resp, _ := request(s, 100, 1, "SENTINEL", "master", "mym")
	v := resp[0].Value
	if v.Kind != KindMap {
		t.Fatalf("kind %v", v.Kind)
	}
	wantKeys := []string{"name", "ip", "port", "runid", "flags", "link-pending-commands", "link-refcount",
		"last-ping-sent", "last-ok-ping-reply", "last-ping-reply", "down-after-milliseconds", "info-refresh",
		"role-reported", "role-reported-time", "config-epoch", "num-slaves", "num-other-sentinels", "quorum",
		"failover-timeout", "parallel-syncs"}
	for k, key := range wantKeys {
		if v.Elems[2*k].Str != key {
			t.Fatalf("key %d = %q, want %q", k, v.Elems[2*k].Str, key)
		}
	}
	if v.Elems[33].Str != "2" || v.Elems[32].Str != "num-other-sentinels" {
		t.Fatalf("index 33 = %q", v.Elems[33].Str)
	}
	for k := 1; k < len(v.Elems); k += 2 {
		if v.Elems[k].Kind != KindBulk {
			t.Fatalf("value %d is not a bulk string", k)
		}
	}
	// Connections are being established: like hiredis, that is not
	// "disconnected".
	if v.Elems[9].Str != "master" {
		t.Fatalf("flags %q", v.Elems[9].Str)
	}
}

// TestSetEmitsAndPersists: SENTINEL SET replies after the flush, emits +set
// with auth-pass redacted, and keeps changes made before an error.
func TestSetEmitsAndPersists(t *testing.T) {
	s := newTestCore(t)
	resp, effs := request(s, 100, 1, "SENTINEL", "set", "mym", "auth-pass", "secret", "quorum", "3", "parallel-syncs", "x")
	if len(resp) != 0 {
		t.Fatalf("replied before persist: %v", resp)
	}
	var msgs []string
	for _, e := range effectsOf[Emit](effs) {
		msgs = append(msgs, e.Type+" "+e.Msg)
	}
	want := []string{
		"+set master mym 127.0.0.1 6379 auth-pass ******",
		"+set master mym 127.0.0.1 6379 quorum 3",
	}
	if strings.Join(msgs, "|") != strings.Join(want, "|") {
		t.Fatalf("events %q", msgs)
	}
	p := persistOf(t, effs)
	if p.State.Masters[0].Quorum != 3 || p.State.Masters[0].AuthPass != "secret" {
		t.Fatalf("state %+v", p.State.Masters[0])
	}
	resp = effectsOf[Respond](s.Step(101, PersistDone{Seq: p.Seq}))
	if len(resp) != 1 || renderValue(resp[0].Value) != "-ERR Invalid argument 'x' for SENTINEL SET 'parallel-syncs'" {
		t.Fatalf("reply %v", resp)
	}
}

// TestMonitorRemove: MONITOR emits +monitor and replies after the flush;
// REMOVE emits -monitor.
func TestMonitorRemove(t *testing.T) {
	s := newTestCore(t)
	resp, effs := request(s, 100, 1, "SENTINEL", "monitor", "other", "10.0.0.9", "6000", "1")
	if len(resp) != 0 {
		t.Fatalf("early reply")
	}
	e := effectsOf[Emit](effs)
	if len(e) != 1 || e[0].Type != "+monitor" || e[0].Msg != "master other 10.0.0.9 6000 quorum 1" {
		t.Fatalf("events %+v", e)
	}
	p := persistOf(t, effs)
	if len(p.State.Masters) != 2 {
		t.Fatalf("masters %d", len(p.State.Masters))
	}
	if r := effectsOf[Respond](s.Step(101, PersistDone{Seq: p.Seq})); len(r) != 1 || r[0].Value.Str != "OK" {
		t.Fatalf("reply %v", r)
	}
	_, effs = request(s, 102, 2, "SENTINEL", "remove", "other")
	if e := effectsOf[Emit](effs); len(e) != 1 || e[0].Type != "-monitor" {
		t.Fatalf("events %+v", e)
	}
	if _, ok := s.Master("other"); ok {
		t.Fatalf("still monitored")
	}
}

// TestDebugChangesTiming: SENTINEL DEBUG changes the live timers and
// lists them in upper case.
func TestDebugChangesTiming(t *testing.T) {
	s := newTestCore(t)
	request(s, 100, 1, "SENTINEL", "debug", "info-period", "123", "TILT-PERIOD", "456")
	if s.Timing().InfoPeriod != 123 || s.Timing().TiltPeriod != 456 {
		t.Fatalf("timing %+v", s.Timing())
	}
	resp, _ := request(s, 100, 2, "SENTINEL", "debug")
	v := resp[0].Value
	if len(v.Elems) != 26 || v.Elems[0].Str != "INFO-PERIOD" || v.Elems[1].Str != "123" {
		t.Fatalf("debug map %s", renderValue(v))
	}
}

// TestInfoSection pins the sentinel INFO fields (§7).
func TestInfoSection(t *testing.T) {
	s := newTestCore(t)
	want := "sentinel_masters:1\r\nsentinel_tilt:0\r\nsentinel_tilt_since_seconds:-1\r\nsentinel_total_tilt:0\r\n" +
		"sentinel_running_scripts:0\r\nsentinel_scripts_queue_length:0\r\nsentinel_simulate_failure_flags:0\r\n" +
		"sentinel_config_save_status:ok\r\n" +
		"master0:name=mym,status=ok,address=127.0.0.1:6379,slaves=1,sentinels=3\r\n"
	if got := s.InfoSection(0); got != want {
		t.Fatalf("got %q", got)
	}
}

// TestHelpMatchesReal compares SENTINEL HELP with the text a real
// redis-sentinel 7.0.15 printed (testdata/real/sentinel-help.txt), with
// the two CONFIG lines Redis 7.2 changed (newer-versions.md A.8).
func TestHelpMatchesReal(t *testing.T) {
	b, err := os.ReadFile("testdata/real/sentinel-help.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer("CONFIG SET <param> <value>\n", "CONFIG SET param value [param value ...]\n",
		"CONFIG GET <param>\n", "CONFIG GET <param> [param param param ...]\n").Replace(string(b))
	want := strings.Split(strings.TrimRight(text, "\n"), "\n")
	s := newTestCore(t)
	resp, _ := request(s, 1, 1, "SENTINEL", "help")
	got := resp[0].Value.Elems
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for k := range want {
		if got[k].Kind != KindStatus || got[k].Str != want[k] {
			t.Fatalf("line %d: %q, want %q", k, got[k].Str, want[k])
		}
	}
}
