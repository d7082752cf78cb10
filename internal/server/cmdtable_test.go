package server

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// sentinel7015List is COMMAND LIST of redis-sentinel 7.0.15, sorted.
var sentinel7015List = strings.Fields(`acl acl|cat acl|deluser acl|dryrun acl|genpass acl|getuser acl|help acl|list acl|load acl|log acl|save acl|setuser acl|users acl|whoami auth client client|caching client|getname client|getredir client|help client|id client|info client|kill client|list client|no-evict client|pause client|reply client|setname client|tracking client|trackinginfo client|unblock client|unpause command command|count command|docs command|getkeys command|getkeysandflags command|help command|info command|list hello info ping psubscribe publish punsubscribe role sentinel sentinel|ckquorum sentinel|config sentinel|debug sentinel|failover sentinel|flushconfig sentinel|get-master-addr-by-name sentinel|help sentinel|info-cache sentinel|is-master-down-by-addr sentinel|master sentinel|masters sentinel|monitor sentinel|myid sentinel|pending-scripts sentinel|remove sentinel|replicas sentinel|reset sentinel|sentinels sentinel|set sentinel|simulate-failure sentinel|slaves shutdown subscribe unsubscribe`)

func TestCommandCountAndList(t *testing.T) {
	_, addr, _ := startServer(t, Config{})
	c := dial(t, addr)
	if v := c.do("COMMAND", "COUNT"); v.Int != 15 {
		t.Fatalf("COMMAND COUNT = %v, want 15", v)
	}
	list := bulkStrings(c.do("COMMAND", "LIST"))
	if len(list) != 77 {
		t.Fatalf("COMMAND LIST has %d names, want 77 (like valkey-sentinel 8.0.1)", len(list))
	}
	sort.Strings(list)
	want := append(append([]string(nil), sentinel7015List...), newerCommands...)
	sort.Strings(want)
	if strings.Join(list, " ") != strings.Join(want, " ") {
		t.Fatalf("COMMAND LIST differs from 7.0.15 + %v:\n%v", newerCommands, list)
	}
	tests := []struct {
		filter []string
		n      int
	}{
		{[]string{"FILTERBY", "ACLCAT", "admin"}, 38 + 4},
		{[]string{"FILTERBY", "PATTERN", "s*"}, 24 + 4},
		{[]string{"FILTERBY", "PATTERN", "SENTINEL|*"}, 21 + 4},
		{[]string{"FILTERBY", "ACLCAT", "dangerous"}, 39 + 4},
		{[]string{"FILTERBY", "ACLCAT", "connection"}, 27 + 1},
	}
	for _, tc := range tests {
		got := c.do(append([]string{"COMMAND", "LIST"}, tc.filter...)...)
		if got.Len() != tc.n {
			t.Errorf("COMMAND LIST %v: %d names, want %d", tc.filter, got.Len(), tc.n)
		}
	}
	if v := c.do("COMMAND"); v.Len() != 15 {
		t.Fatalf("COMMAND returned %d entries", v.Len())
	}
	docs := c.do("COMMAND", "DOCS", "sentinel|master", "ping")
	if len(docs.Elems) != 4 || docs.Elems[0].Str != "sentinel|master" || docs.Elems[2].Str != "ping" {
		t.Fatalf("COMMAND DOCS = %v", docs)
	}
}

// TestEmbeddedTableRESP2 checks that the RESP3 capture, rendered in RESP2,
// is byte-identical to what redis-sentinel 7.0.15 sends a RESP2 client.
func TestEmbeddedTableRESP2(t *testing.T) {
	tab, err := loadBaseTable()
	if err != nil {
		t.Fatal(err)
	}
	var infos []resp.Value
	for _, x := range tab.topOrder {
		infos = append(infos, x.info)
	}
	for _, tc := range []struct {
		file string
		v    resp.Value
	}{
		{"testdata/command_info_resp2.raw", resp.Array(infos...)},
		{"testdata/command_docs_resp2.raw", docsAll(tab)},
	} {
		want, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if got := encode(tc.v, resp.RESP2); got != string(want) {
			t.Errorf("%s: RESP2 rendering differs (got %d bytes, want %d)", tc.file, len(got), len(want))
		}
	}
	if n := len(tab.all); n != 72 {
		t.Fatalf("7.0.15 table has %d entries", n)
	}
	full, err := loadTable()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(full.all); n != 77 {
		t.Fatalf("extended table has %d entries", n)
	}
}

func docsAll(t *table) resp.Value {
	var kv []resp.Value
	for _, x := range t.topOrder {
		kv = append(kv, resp.Bulk(x.name), x.docs)
	}
	return resp.Map(kv...)
}

// TestSubcommandsHandled: every CLIENT and ACL subcommand of the command
// table (what COMMAND and ACL know) has a handler, and every handler is in
// the table.
func TestSubcommandsHandled(t *testing.T) {
	tb, err := loadTable()
	if err != nil {
		t.Fatal(err)
	}
	for top, handlers := range map[string]map[string]func(*client, [][]byte){
		"client": clientSubcommands,
		"acl":    aclSubcommands,
	} {
		cmd := tb.top[top]
		for name := range cmd.subs {
			if handlers[name] == nil {
				t.Errorf("%s %s is in the table but has no handler", top, name)
			}
		}
		for name := range handlers {
			if cmd.subs[name] == nil {
				t.Errorf("%s %s has a handler but is not in the table", top, name)
			}
		}
	}
}
