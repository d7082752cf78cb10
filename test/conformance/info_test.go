package conformance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// infoShape reduces an INFO reply to its kind, section headers and field
// names; the sentinel section keeps its values (normalised), other values
// (memory, cpu, uptime, pids, paths) legitimately differ.
func (s *side) infoShape(v resp.Value) string {
	if v.Kind != resp.KindBulkString {
		return "kind " + v.Kind.String() + ": " + s.render(v)
	}
	var b strings.Builder
	section := ""
	for _, line := range strings.Split(v.Str, "\r\n") {
		switch {
		case strings.HasPrefix(line, "# "):
			section = strings.ToLower(strings.TrimPrefix(line, "# "))
			b.WriteString(line + "\n")
		case line == "":
			b.WriteString("|\n")
		case section == "sentinel" && strings.HasPrefix(line, "sentinel_total_tilt:"):
			// Valkey 9's line, which ours has and 7.0.15 / Valkey 8 lack:
			// checked in TestNewerVersions.
		case section == "sentinel" && strings.HasPrefix(line, "sentinel_config_save_status:"):
			// Ours only (docs/core.md, "Non-durable state"): checked in
			// TestValkeyDataNodes.
		case section == "sentinel":
			b.WriteString(s.norm(line) + "\n")
		case strings.HasPrefix(line, "redis_mode:"), strings.HasPrefix(line, "redis_version:"), strings.HasPrefix(line, "tcp_port:"):
			b.WriteString(s.norm(line) + "\n")
		default:
			k, _, _ := strings.Cut(line, ":")
			b.WriteString(k + "\n")
		}
	}
	return b.String()
}

// infoSections are the INFO argument lists compared.
var infoSections = [][]string{
	{}, {"default"}, {"all"}, {"everything"}, {"server"}, {"clients"}, {"cpu"}, {"stats"},
	{"sentinel"}, {"SENTINEL"}, {"foo"}, {"memory"}, {"replication"}, {"keyspace"}, {"persistence"},
	{"cluster"}, {"modules"}, {"errorstats"}, {"commandstats"}, {"latencystats"},
	{"cpu", "all"}, {"server", "sentinel"}, {"sentinel", "server"}, {"cpu", "foo", "clients"},
	{"default", "cpu"}, {"everything", "memory"},
}

func TestInfoSections(t *testing.T) {
	t.Parallel()
	ps := startPair(t, spec{replicas: 1, quorum: 1})
	for _, s := range ps {
		s.waitDiscovered(t)
	}
	for _, proto := range []int{2, 3} {
		var got [2][]string
		for i, s := range ps {
			cl := dialSide(t, s)
			if proto == 3 {
				cl.do("HELLO", "3")
			}
			for _, sec := range infoSections {
				got[i] = append(got[i], s.infoShape(cl.do(append([]string{"INFO"}, sec...)...)))
			}
		}
		for k, sec := range infoSections {
			if got[0][k] != got[1][k] {
				t.Errorf("RESP%d INFO %s differs:\n%s", proto, strings.Join(sec, " "), lineDiff(got[0][k], got[1][k]))
			}
		}
	}
}

// lineDiff lists the lines only one of a, b has (a multiset difference,
// enough to read a failure) and whether the order differs.
func lineDiff(a, b string) string {
	count := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		count[l]++
	}
	for _, l := range strings.Split(b, "\n") {
		count[l]--
	}
	var out strings.Builder
	for l, n := range count {
		switch {
		case n > 0:
			fmt.Fprintf(&out, "  only real: %q\n", l)
		case n < 0:
			fmt.Fprintf(&out, "  only ours: %q\n", l)
		}
	}
	if out.Len() == 0 {
		return "  same lines, different order:\nreal:\n" + a + "\nours:\n" + b
	}
	return out.String()
}

func TestHello(t *testing.T) {
	t.Parallel()
	ps := startPair(t, spec{noMonitor: true})
	sq := seq{name: "hello", proto: 2, cmds: []cmd{
		c("HELLO"), c("HELLO", "2"), c("HELLO", "3"), c("PING"), c("ROLE"), c("SENTINEL", "MASTERS"),
		c("SENTINEL", "DEBUG"), c("SENTINEL", "CONFIG", "GET", "*"), c("SENTINEL", "PENDING-SCRIPTS"),
		c("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "x"), c("SENTINEL", "SIMULATE-FAILURE", "HELP"),
		c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "1", "0", "*"), c("SUBSCRIBE", "x"), c("PING"),
		c("UNSUBSCRIBE"), c("HELLO", "2"), c("HELLO", "3", "SETNAME", "n"), c("CLIENT", "GETNAME"),
	}}
	report(t, sq, compareSeq(t, ps, sq))
}
