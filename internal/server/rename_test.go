package server

import (
	"slices"
	"testing"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// TestCommandAfterRename compares COMMAND with what redis-sentinel 7.0.15
// answered with "rename-command SENTINEL S2" and "rename-command ping """:
// COMMAND works on the renamed dict and shows original names.
func TestCommandAfterRename(t *testing.T) {
	_, addr, _ := startServer(t, Config{RenameCommands: map[string]string{"sentinel": "S2", "ping": ""}})
	c := dial(t, addr)
	has := func(v resp.Value, name string) bool { return slices.Contains(bulkStrings(v), name) }
	if v := c.do("COMMAND", "COUNT"); v.Int != 14 {
		t.Errorf("COMMAND COUNT = %d, want 14", v.Int)
	}
	// 71 on 7.0.15, plus CLIENT SETINFO and the four PRIMARY aliases.
	if v := c.do("COMMAND", "LIST"); len(v.Elems) != 76 || !has(v, "sentinel") || has(v, "ping") || has(v, "s2") {
		t.Errorf("COMMAND LIST: %d names, sentinel %v, ping %v, s2 %v; want 76, true, false, false",
			len(v.Elems), has(v, "sentinel"), has(v, "ping"), has(v, "s2"))
	}
	v := c.do("COMMAND", "INFO", "s2", "sentinel", "ping", "s2|myid")
	if len(v.Elems) != 4 || len(v.Elems[0].Elems) == 0 || v.Elems[0].Elems[0].Str != "sentinel" ||
		!v.Elems[1].IsNull() || !v.Elems[2].IsNull() || v.Elems[3].IsNull() {
		t.Errorf("COMMAND INFO s2 sentinel ping s2|myid = %s", encode(v, 2))
	}
	if v := c.do("COMMAND"); len(v.Elems) != 14 {
		t.Errorf("COMMAND: %d entries, want 14", len(v.Elems))
	}
	if v := c.do("COMMAND", "DOCS", "s2"); len(v.Elems) != 2 || v.Elems[0].Str != "sentinel" {
		t.Errorf("COMMAND DOCS s2 = %s", encode(v, 2))
	}
	if v := c.do("COMMAND", "DOCS", "sentinel"); len(v.Elems) != 0 {
		t.Errorf("COMMAND DOCS sentinel = %s, want empty", encode(v, 2))
	}
	if v := c.do("COMMAND", "GETKEYS", "s2", "myid"); v.Str != "ERR The command has no key arguments" {
		t.Errorf("COMMAND GETKEYS s2 myid = %s", encode(v, 2))
	}
}
