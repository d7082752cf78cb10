package redissuite

import (
	"fmt"
	"strings"
	"testing"
)

// TestCommandFlags is "Sentinel command flag infrastructure works
// correctly" (07-down-conditions.tcl of later Redis versions): the command table of a sentinel
// holds the sentinel commands only, with docs, and answers the others as
// unknown.
func TestCommandFlags(t *testing.T) {
	t.Parallel()
	s := newBareSuite(t, 1)
	list := fmt.Sprint(s.S(0, "COMMAND", "LIST"))
	names := map[string]bool{}
	for _, n := range strings.Fields(strings.Trim(list, "[]")) {
		names[n] = true
	}
	docs := func(cmd string) int {
		v := s.S(0, "COMMAND", "DOCS", cmd)
		a, _ := v.([]any)
		return len(a)
	}
	for _, c := range []struct {
		cmd   string
		known bool
	}{
		{"ping", true}, {"info", true}, {"subscribe", true},
		{"save", false}, {"bgrewriteaof", false}, {"blpop", false}, {"replicaof", false},
	} {
		if names[c.cmd] != c.known {
			t.Errorf("COMMAND LIST has %s: %v, want %v", c.cmd, names[c.cmd], c.known)
		}
		if (docs(c.cmd) != 0) != c.known {
			t.Errorf("COMMAND DOCS %s: %d entries, want known=%v", c.cmd, docs(c.cmd), c.known)
		}
		if !c.known {
			if _, err := s.try(0, c.cmd); err == nil || !strings.HasPrefix(err.Error(), "ERR unknown command") {
				t.Errorf("%s: %v, want ERR unknown command", c.cmd, err)
			}
		}
	}
	// The Tcl test of later versions expects "ERR unknown subcommand"
	// here; redis-sentinel 7.0.15 still has these subcommands and checks
	// their arity first, and that is the behaviour to match.
	for _, c := range []struct {
		args []any
		want string
	}{
		{[]any{"CLIENT", "NO-EVICT"}, "ERR wrong number of arguments for 'client|no-evict' command"},
		{[]any{"COMMAND", "GETKEYS"}, "ERR wrong number of arguments for 'command|getkeys' command"},
	} {
		if _, err := s.try(0, c.args...); err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %s", c.args, err, c.want)
		}
	}
}
