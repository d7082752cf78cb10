package conformance

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// cmd is one command of a compared sequence. Placeholders in args are
// replaced per side: {M} master port, {R0}.. replica ports, {S} sentinel
// port, {ID} the sentinel's myid.
type cmd struct {
	args      []string
	fuzzyInts bool // integers are ages (INFO-CACHE): compare as <n>
	unordered bool // the reply's top-level elements come from a hash table (MASTERS): compare sorted
}

// u builds a cmd whose reply order is unspecified.
func u(args ...string) cmd { return cmd{args: args, unordered: true} }

// c builds a cmd.
func c(args ...string) cmd { return cmd{args: args} }

// seq is a command sequence sent on one fresh connection of each side.
type seq struct {
	name  string
	proto int // 2 or 3 (HELLO 3 is sent first and not compared)
	cmds  []cmd
}

// expand substitutes the placeholders of arg for side s.
func (s *side) expand(arg string) string {
	r := strings.NewReplacer("{M}", strconv.Itoa(s.top.Master.Port), "{S}", strconv.Itoa(s.port), "{ID}", s.myid)
	arg = r.Replace(arg)
	for i, rp := range s.top.Replicas {
		arg = strings.ReplaceAll(arg, fmt.Sprintf("{R%d}", i), strconv.Itoa(rp.Port))
	}
	return arg
}

var anyInt = regexp.MustCompile(`:\d+`)

// replies runs sq on s and returns the rendered replies.
func (s *side) replies(t *testing.T, sq seq) []string {
	t.Helper()
	cl := dialSide(t, s)
	if sq.proto == 3 {
		if v := cl.do("HELLO", "3"); v.Kind != resp.KindMap {
			t.Fatalf("%s: HELLO 3: %s", s.name, s.render(v))
		}
	}
	out := make([]string, 0, len(sq.cmds))
	for _, cm := range sq.cmds {
		args := make([]string, len(cm.args))
		for i, a := range cm.args {
			args[i] = s.expand(a)
		}
		v := cl.do(args...)
		if cm.unordered {
			v = sortedElems(s, v)
		}
		r := s.render(v)
		if cm.fuzzyInts {
			r = anyInt.ReplaceAllString(r, ":<n>")
		}
		out = append(out, r)
	}
	return out
}

// diff is one command whose normalised replies differ.
type diff struct {
	cmd        string
	real, ours string
}

func (d diff) String() string {
	return fmt.Sprintf("%s\n   real: %s\n   ours: %s", d.cmd, d.real, d.ours)
}

// compareSeq runs sq on both sides and returns the differences.
func compareSeq(t *testing.T, ps [2]*side, sq seq) []diff {
	t.Helper()
	want := ps[0].replies(t, sq)
	got := ps[1].replies(t, sq)
	var out []diff
	for i := range sq.cmds {
		if want[i] != got[i] {
			out = append(out, diff{cmd: strings.Join(sq.cmds[i].args, " "), real: want[i], ours: got[i]})
		}
	}
	return out
}

// known maps a difference (by command text) to its FINDINGS.md entry: a
// known difference is logged, not failed, until its owner fixes it; a
// known difference that disappeared fails so that the list stays honest.
var known = map[string]string{}

// report fails t for every unknown difference and for known ones that
// no longer occur among the commands of sq.
func report(t *testing.T, sq seq, diffs []diff) {
	t.Helper()
	seen := map[string]bool{}
	for _, d := range diffs {
		key := sq.name + ": " + d.cmd
		seen[key] = true
		if f, ok := known[key]; ok {
			t.Logf("known difference %s (%s):\n%s", f, key, d)
			continue
		}
		t.Errorf("%s (RESP%d): %s", sq.name, sq.proto, d)
	}
	for key, f := range known {
		if strings.HasPrefix(key, sq.name+": ") && !seen[key] && ranIn(sq, strings.TrimPrefix(key, sq.name+": ")) {
			t.Errorf("known difference %s (%s) no longer occurs: remove it from known and FINDINGS.md", f, key)
		}
	}
}

func ranIn(sq seq, cmdText string) bool {
	for _, cm := range sq.cmds {
		if strings.Join(cm.args, " ") == cmdText {
			return true
		}
	}
	return false
}

// sortedElems sorts v's top-level elements by their rendering, for
// replies whose order is Redis' hash-table order (SENTINEL MASTERS); for
// ROLE it sorts the list of master names instead.
func sortedElems(s *side, v resp.Value) resp.Value {
	if len(v.Elems) == 0 {
		return v
	}
	out := v
	out.Elems = append([]resp.Value(nil), v.Elems...)
	if first, _ := v.Elems[0].Text(); len(v.Elems) == 2 && first == "sentinel" {
		out.Elems[1] = sortedElems(s, v.Elems[1])
		return out
	}
	sort.SliceStable(out.Elems, func(i, j int) bool { return s.render(out.Elems[i]) < s.render(out.Elems[j]) })
	return out
}
