package conformance

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// Where gosentinel follows Redis 7.2+/Valkey 8 instead of 7.0.15, the
// side-by-side comparison with redis-sentinel 7.0.15 differs on purpose:
// these differences are logged, not failed (and fail once they vanish);
// TestNewerVersions checks the same commands against valkey-sentinel. Two
// additions are removed from the 7.0.15 comparisons instead (hideNewer),
// because many sequences contain them: CONFIG GET's "loglevel" pair and
// INFO's sentinel_total_tilt line.
func init() {
	const why = "newer: Redis 7.2+/Valkey 8 behaviour, docs/compatibility.md"
	for _, k := range []string{
		"readonly: SENTINEL CONFIG GET", "readonly: SENTINEL CONFIG FOO x",
		"readonly: SENTINEL CONFIG GET a b", "readonly: SENTINEL CONFIG SET a",
		"readonly: COMMAND LIST", "readonly: SENTINEL HELP",
	} {
		known[k] = why
	}
}

// newerCmds run on redis-sentinel 7.0.15, valkey-sentinel 8.0.1 and
// gosentinel. gosentinel must answer each like Valkey 8 unless the command
// is in oursNotValkey; real7015Same lists the ones 7.0.15 answers like
// Valkey 8 (all others must differ there: the compatibility table's
// "changed after 7.0" column is checked, not just written).
var newerCmds = []cmd{
	c("SENTINEL", "CONFIG", "GET"), c("SENTINEL", "CONFIG", "GET", "*"), c("SENTINEL", "CONFIG", "GET", "a", "b"),
	c("SENTINEL", "CONFIG", "GET", "announce-p*", "announce-*", "LOGLEVEL"), c("SENTINEL", "CONFIG", "GET", "*", "*"),
	c("SENTINEL", "CONFIG", "FOO", "x"), c("SENTINEL", "CONFIG", "SET", "a"), c("SENTINEL", "CONFIG", "SET", "loglevel"),
	c("SENTINEL", "CONFIG", "SET", "announce-port", "1", "bogus", "x"),
	c("SENTINEL", "CONFIG", "SET", "announce-port", "1", "ANNOUNCE-PORT", "2"),
	c("SENTINEL", "CONFIG", "SET", "announce-port", "1", "loglevel"),
	c("SENTINEL", "CONFIG", "SET", "announce-port", "1", "loglevel", "loud"),
	c("SENTINEL", "CONFIG", "GET", "announce-port"),
	c("SENTINEL", "CONFIG", "SET", "loglevel", "nothing"), c("SENTINEL", "CONFIG", "GET", "loglevel"),
	c("SENTINEL", "CONFIG", "SET", "loglevel", "WARNING", "announce-port", "0"), c("SENTINEL", "CONFIG", "GET", "loglevel", "announce-port"),
	c("SENTINEL", "CONFIG", "SET", "loglevel", "notice"),
	c("SENTINEL", "PRIMARY", "mym"), c("SENTINEL", "PRIMARY"), c("SENTINEL", "PRIMARY", "nosuch"), u("SENTINEL", "PRIMARIES"),
	c("SENTINEL", "PRIMARIES", "x"), c("SENTINEL", "GET-PRIMARY-ADDR-BY-NAME", "mym"),
	c("SENTINEL", "GET-PRIMARY-ADDR-BY-NAME", "nosuch"),
	c("SENTINEL", "IS-PRIMARY-DOWN-BY-ADDR", "127.0.0.1", "{M}", "0", "*"),
	c("SENTINEL", "IS-PRIMARY-DOWN-BY-ADDR", "127.0.0.1", "x", "0", "*"),
	c("SENTINEL", "SET", "mym", "primary-reboot-down-after-period", "-1"),
	c("SENTINEL", "SET", "mym", "primary-reboot-down-after-period", "0"),
	c("SENTINEL", "SET", "mym", "master-reboot-down-after-period", "0"),
	c("SENTINEL", "MASTER", "mym"), c("SENTINEL", "REPLICAS", "mym"),
	c("SENTINEL", "DEBUG"), c("SENTINEL", "DEBUG", "ping-period"), c("SENTINEL", "DEBUG", "foo", "1"),
	c("CLIENT", "SETINFO", "lib-name", "go-redis"), c("CLIENT", "SETINFO", "LIB-VER", "9.7.0"),
	c("CLIENT", "SETINFO", "foo", "x"), c("CLIENT", "SETINFO", "lib-name", "a b"),
	c("COMMAND", "COUNT"), u("COMMAND", "LIST"),
	c("SENTINEL", "FAILOVER", "mym", "bogus"), c("SENTINEL", "FAILOVER", "nosuch", "coordinated"),
	c("SENTINEL", "FAILOVER", "mym", "coordinated", "x"),
}

// oursNotValkey: where gosentinel deliberately answers unlike Valkey 8.
var oursNotValkey = map[string]string{
	"SENTINEL FAILOVER mym bogus":          "Valkey 9: FAILOVER takes [COORDINATED] (arity -3), Valkey 8 gives an arity error",
	"SENTINEL FAILOVER nosuch coordinated": "Valkey 9 looks the name up first",
}

// real7015Same: commands 7.0.15 answers exactly like Valkey 8.
var real7015Same = map[string]bool{
	"SENTINEL CONFIG GET announce-port": true, "SENTINEL SET mym master-reboot-down-after-period 0": true,
	"SENTINEL MASTER mym": true, "SENTINEL REPLICAS mym": true, // no flag set: master_reboot not shown
	"SENTINEL DEBUG": true, "SENTINEL DEBUG ping-period": true, "SENTINEL DEBUG foo 1": true,
	"COMMAND COUNT": true, "SENTINEL FAILOVER mym bogus": true, "SENTINEL FAILOVER nosuch coordinated": true,
	"SENTINEL FAILOVER mym coordinated x": true,
}

func TestNewerVersions(t *testing.T) {
	if valkeyBin == "" {
		t.Fatal("valkey-sentinel not installed: run scripts/deps.sh")
	}
	t.Parallel()
	sp := spec{replicas: 1, quorum: 1}
	sides := []*side{startSide(t, sp, "real", realBin), startSide(t, sp, "valkey", valkeyBin), startSide(t, sp, "ours", oursBin)}
	for _, s := range sides {
		s.waitDiscovered(t)
	}
	for _, proto := range []int{2, 3} {
		sq := seq{name: "newer", proto: proto, cmds: newerCmds}
		var got [3][]string
		for i, s := range sides {
			got[i] = s.replies(t, sq)
		}
		for k, cm := range newerCmds {
			text := strings.Join(cm.args, " ")
			real, valkey, ours := got[0][k], got[1][k], got[2][k]
			if why, ok := oursNotValkey[text]; ok {
				if ours == valkey {
					t.Errorf("RESP%d %s: listed as differing from Valkey 8 (%s) but is the same", proto, text, why)
				}
			} else if ours != valkey {
				t.Errorf("RESP%d %s:\n  valkey: %s\n    ours: %s", proto, text, valkey, ours)
			}
			if same := real == valkey; same != real7015Same[text] {
				t.Errorf("RESP%d %s: 7.0.15 same as Valkey 8 = %v, table says %v\n    real: %s\n  valkey: %s", proto, text, same, real7015Same[text], real, valkey)
			}
		}
	}
}

// TestValkeyDataNodes: valkey-server 8.0.1 master and replicas monitored by
// valkey-sentinel and by gosentinel: same view (MASTER, REPLICAS, address,
// CKQUORUM), then a forced failover with the same event sequence, and
// INFO's sentinel_total_tilt (Valkey 9) on ours.
func TestValkeyDataNodes(t *testing.T) {
	if valkeyBin == "" {
		t.Fatal("valkey-sentinel not installed: run scripts/deps.sh")
	}
	t.Parallel()
	sp := spec{replicas: 2, quorum: 1, valkeyNodes: true}
	ps := [2]*side{startSide(t, sp, "valkey", valkeyBin), startSide(t, sp, "ours", oursBin)}
	for _, s := range ps {
		s.waitDiscovered(t)
	}
	cmds := []cmd{c("SENTINEL", "PRIMARY", "mym"), u("SENTINEL", "REPLICAS", "mym"),
		c("SENTINEL", "GET-PRIMARY-ADDR-BY-NAME", "mym"), c("SENTINEL", "CKQUORUM", "mym")}
	for _, proto := range []int{2, 3} {
		sq := seq{name: "valkey-nodes", proto: proto, cmds: cmds}
		for _, d := range compareSeq(t, ps, sq) {
			t.Errorf("RESP%d %s", proto, d)
		}
	}
	for _, s := range ps {
		info := dialSide(t, s).do("INFO", "sentinel").Str
		has := strings.Contains(info, "\r\nsentinel_total_tilt:0\r\n")
		if has != (s.name == "ours") {
			t.Errorf("%s: sentinel_total_tilt present %v:\n%s", s.name, has, info)
		}
		if has := strings.Contains(info, "\r\nsentinel_config_save_status:ok\r\n"); has != (s.name == "ours") {
			t.Errorf("%s: sentinel_config_save_status:ok present %v:\n%s", s.name, has, info)
		}
	}
}

// totalTilt matches Valkey 9's INFO line, which ours has and 7.0.15 lacks.
var totalTilt = regexp.MustCompile(`sentinel_total_tilt:\d+\r\n`)

// saveStatus matches ours-only INFO line of the non-durable state
// (docs/core.md): it is left out of every comparison.
var saveStatus = regexp.MustCompile(`sentinel_config_save_status:[a-z]+\r\n`)

// withoutLoglevel drops the "loglevel" pair of a SENTINEL CONFIG GET reply
// (a flat list of bulk pairs holding announce-port), which 7.2+ added.
func withoutLoglevel(v resp.Value) resp.Value {
	if len(v.Elems)%2 != 0 {
		return v
	}
	at, config := -1, false
	for i := 0; i < len(v.Elems); i += 2 {
		if v.Elems[i].Kind != resp.KindBulkString {
			return v
		}
		switch v.Elems[i].Str {
		case "loglevel":
			at = i
		case "announce-port", "resolve-hostnames":
			config = true
		}
	}
	if at < 0 || !config {
		return v
	}
	out := v
	out.Elems = append(append([]resp.Value(nil), v.Elems[:at]...), v.Elems[at+2:]...)
	return out
}
