package core

import (
	"errors"
	"testing"
)

// TestSetReplyAfterFlush: SENTINEL SET replies once the flush is done; a
// failed flush turns +OK into the save error (sentinelFlushConfigAndReply,
// checked by 03-runtime-reconf.tcl), while an argument error after earlier
// changes stays the reply whatever the flush does.
func TestSetReplyAfterFlush(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		flushOK bool
		want    string
	}{
		{"ok flushed", []string{"quorum", "3"}, true, "+OK"},
		{"ok flush failed", []string{"quorum", "3"}, false, "-ERR Failed to save config file. Check server logs."},
		{"error flushed", []string{"quorum", "3", "parallel-syncs", "x"}, true, "-ERR Invalid argument 'x' for SENTINEL SET 'parallel-syncs'"},
		{"error flush failed", []string{"quorum", "3", "parallel-syncs", "x"}, false, "-ERR Invalid argument 'x' for SENTINEL SET 'parallel-syncs'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTestCore(t)
			resp, effs := request(s, 100, 1, append([]string{"SENTINEL", "set", "mym"}, c.args...)...)
			if len(resp) != 0 {
				t.Fatalf("replied before the flush: %v", resp)
			}
			p := persistOf(t, effs)
			done := PersistDone{Seq: p.Seq}
			if !c.flushOK {
				done.Err = errors.New("rename: is a directory")
			}
			r := effectsOf[Respond](s.Step(101, done))
			if len(r) != 1 || renderValue(r[0].Value) != c.want {
				t.Fatalf("reply %v, want %q", r, c.want)
			}
		})
	}
}
