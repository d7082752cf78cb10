package core

import (
	"errors"
	"strings"
	"testing"
)

// TestConfigMultiErrors: SENTINEL CONFIG SET checks every pair before
// applying any (Redis 7.2+ / Valkey 8 texts, newer-versions.md A.1).
func TestConfigMultiErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"config", "set", "announce-port", "1", "bogus", "x"}, "-ERR Invalid argument 'bogus' to SENTINEL CONFIG SET"},
		{[]string{"config", "set", "announce-port", "1", "ANNOUNCE-PORT", "2"}, "-ERR Duplicate argument 'ANNOUNCE-PORT' to SENTINEL CONFIG SET"},
		{[]string{"config", "set", "announce-port", "1", "loglevel"}, "-ERR Missing argument 'loglevel' value"},
		{[]string{"config", "set", "announce-port", "1", "loglevel", "loud"}, "-ERR Invalid value 'loud' to SENTINEL CONFIG SET 'loglevel'"},
		{[]string{"config", "set", "announce-port", "1", "Resolve-Hostnames", "maybe"}, "-ERR Invalid value 'maybe' to SENTINEL CONFIG SET 'Resolve-Hostnames'"},
		{[]string{"config", "set", "loglevel"}, "-ERR Only SENTINEL CONFIG GET <param> [<param> <param> ...] / SET <param> <value> [<param> <value> ...] are supported."},
		{[]string{"config", "get"}, "-ERR wrong number of arguments for 'sentinel|config' command"},
		{[]string{"config", "get", "announce-p*", "announce-*", "LOGLEVEL"}, `{"announce-port" "0" "announce-hostnames" "no" "announce-ip" "" "loglevel" "notice"}`},
		{[]string{"config", "get", "*", "*"}, `{"resolve-hostnames" "no" "announce-hostnames" "no" "announce-ip" "" "announce-port" "0" "sentinel-user" "" "sentinel-pass" "" "loglevel" "notice"}`},
	}
	for _, c := range cases {
		s := newTestCore(t)
		resp, effs := request(s, 100, 1, append([]string{"SENTINEL"}, c.args...)...)
		if len(resp) != 1 || renderValue(resp[0].Value) != c.want {
			t.Errorf("%v: got %v, want %s", c.args, resp, c.want)
		}
		if len(effectsOf[Persist](effs)) != 0 {
			t.Errorf("%v: persisted after an error", c.args)
		}
		if s.announcePort != 0 {
			t.Errorf("%v: announce-port applied before the error", c.args)
		}
	}
}

// TestConfigMultiApply: all pairs are applied, flushed once, and replied
// after the flush (the save error when it fails); loglevel is persisted.
func TestConfigMultiApply(t *testing.T) {
	for _, flushOK := range []bool{true, false} {
		s := newTestCore(t)
		resp, effs := request(s, 100, 1, "SENTINEL", "CONFIG", "SET", "announce-port", "7000", "loglevel", "NOTHING", "announce-hostnames", "yes")
		if len(resp) != 0 {
			t.Fatalf("replied before the flush: %v", resp)
		}
		ps := effectsOf[Persist](effs)
		if len(ps) != 1 || ps[0].State.AnnouncePort != 7000 || ps[0].State.LogLevel != "nothing" || !ps[0].State.AnnounceHostnames {
			t.Fatalf("persist %+v", ps)
		}
		done := PersistDone{Seq: ps[0].Seq}
		want := "+OK"
		if !flushOK {
			done.Err, want = errors.New("disk full"), "-ERR Failed to save config file. Check server logs."
		}
		r := effectsOf[Respond](s.Step(101, done))
		if len(r) != 1 || renderValue(r[0].Value) != want {
			t.Fatalf("reply %v, want %s", r, want)
		}
		g, _ := request(s, 102, 2, "SENTINEL", "CONFIG", "GET", "loglevel")
		if renderValue(g[0].Value) != `{"loglevel" "nothing"}` {
			t.Fatalf("GET loglevel: %v", g)
		}
	}
}

// TestPrimaryAliases: Valkey 8's PRIMARY names answer like the MASTER ones.
func TestPrimaryAliases(t *testing.T) {
	pairs := [][2][]string{
		{{"SENTINEL", "master", "mym"}, {"SENTINEL", "primary", "mym"}},
		{{"SENTINEL", "masters"}, {"SENTINEL", "PRIMARIES"}},
		{{"SENTINEL", "get-master-addr-by-name", "mym"}, {"SENTINEL", "get-primary-addr-by-name", "mym"}},
		{{"SENTINEL", "is-master-down-by-addr", "127.0.0.1", "6379", "0", "*"}, {"SENTINEL", "is-primary-down-by-addr", "127.0.0.1", "6379", "0", "*"}},
		{{"SENTINEL", "master", "nope"}, {"SENTINEL", "primary", "nope"}},
	}
	for _, p := range pairs {
		a, _ := request(newTestCore(t), 100, 1, p[0]...)
		b, _ := request(newTestCore(t), 100, 1, p[1]...)
		if len(a) != 1 || len(b) != 1 || renderValue(a[0].Value) != renderValue(b[0].Value) {
			t.Errorf("%v = %v, %v = %v", p[0], a, p[1], b)
		}
	}
	r, _ := request(newTestCore(t), 100, 1, "SENTINEL", "primary")
	if got := renderValue(r[0].Value); got != "-ERR wrong number of arguments for 'sentinel|primary' command" {
		t.Errorf("arity: %s", got)
	}
}

// TestRebootOptionSet: both names set the period; the name that makes it
// non-zero is the one persisted.
func TestRebootOptionSet(t *testing.T) {
	s := newTestCore(t)
	_, effs := request(s, 100, 1, "SENTINEL", "SET", "mym", "primary-reboot-down-after-period", "5000")
	ps := effectsOf[Persist](effs)
	if len(ps) != 1 || ps[0].State.Masters[0].MasterRebootDownAfterPeriod != 5000 || ps[0].State.Masters[0].RebootOption != "primary-reboot-down-after-period" {
		t.Fatalf("persist %+v", ps)
	}
	s.Step(101, PersistDone{Seq: ps[0].Seq})
	_, effs = request(s, 102, 2, "SENTINEL", "SET", "mym", "master-reboot-down-after-period", "6000")
	ps = effectsOf[Persist](effs)
	if len(ps) != 1 || ps[0].State.Masters[0].MasterRebootDownAfterPeriod != 6000 || ps[0].State.Masters[0].RebootOption != "primary-reboot-down-after-period" {
		t.Fatalf("second persist %+v", ps)
	}
	r, _ := request(newTestCore(t), 100, 3, "SENTINEL", "SET", "mym", "primary-reboot-down-after-period", "-1")
	if got := renderValue(r[0].Value); got != "-ERR Invalid argument '-1' for SENTINEL SET 'primary-reboot-down-after-period'" {
		t.Fatalf("negative: %s", got)
	}
}

// TestTotalTilt: INFO sentinel_total_tilt counts TILT entries (Valkey 9).
func TestTotalTilt(t *testing.T) {
	s := newTestCore(t)
	s.Step(100, Tick{})
	s.Step(200, Tick{})
	s.Step(200+s.timing.TiltTrigger+1, Tick{})
	if !strings.Contains(s.InfoSection(0), "sentinel_total_tilt:1\r\n") {
		t.Fatalf("info %q", s.InfoSection(0))
	}
}

// TestFailoverCoordinatedChecks: SENTINEL FAILOVER <m> [COORDINATED] in
// Valkey 9's order: arity, unknown name, unknown option, a primary whose
// INFO never showed master_failover_state.
func TestFailoverCoordinatedChecks(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"SENTINEL", "FAILOVER", "mym", "coordinated", "x"}, "-ERR wrong number of arguments for 'sentinel|failover' command"},
		{[]string{"SENTINEL", "FAILOVER", "nope", "bogus"}, "-ERR No such master with that name"},
		{[]string{"SENTINEL", "FAILOVER", "mym", "bogus"}, "-ERR Unknown failover option specified"},
		{[]string{"SENTINEL", "FAILOVER", "mym", "COORDINATED"}, "-NOGOODPRIMARY Primary does not support FAILOVER command"},
	}
	for _, c := range cases {
		r, _ := request(newTestCore(t), 100, 1, c.args...)
		if len(r) != 1 || renderValue(r[0].Value) != c.want {
			t.Errorf("%v: %v, want %s", c.args, r, c.want)
		}
	}
}

// TestFailoverStateOf reads master_failover_state from a cached INFO.
func TestFailoverStateOf(t *testing.T) {
	i := &instance{info: "# Replication\r\nrole:master\r\nmaster_failover_state:waiting-for-sync\r\nmaster_replid:x\r\n"}
	if v, ok := failoverStateOf(i); !ok || v != "waiting-for-sync" || !failoverOngoing(i) {
		t.Fatalf("%q %v", v, ok)
	}
	i.info = "# Replication\r\nrole:master\r\nmaster_failover_state:no-failover\r\n"
	if failoverOngoing(i) {
		t.Fatal("no-failover counted as ongoing")
	}
	i.info = "# Replication\r\nrole:master\r\n"
	if _, ok := failoverStateOf(i); ok {
		t.Fatal("state found in an INFO without it")
	}
}
