package server

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// The command table of redis-sentinel 7.0.15, captured from a real
// sentinel with HELLO 3 + COMMAND INFO and HELLO 3 + COMMAND DOCS. Using
// the captured replies keeps names, arities, flags, ACL categories and
// docs byte-identical to the original (RESP2 renderings are derived).
var (
	//go:embed commands_info.resp
	commandsInfoRaw []byte
	//go:embed commands_docs.resp
	commandsDocsRaw []byte
)

// command is one entry (top-level command or subcommand) of the table.
type command struct {
	name     string // full name, lower case: "sentinel|master"
	arity    int
	flags    []string
	cats     []string // ACL categories without '@'
	info     resp.Value
	docs     resp.Value // nil Kind when no docs
	parent   *command
	subs     map[string]*command
	subOrder []*command
	noAuth   bool
}

// table holds all commands, top-level and subcommands.
type table struct {
	top      map[string]*command // by lower-case name
	all      []*command          // COMMAND LIST order: parent then its subcommands
	topOrder []*command
	cats     []string // every ACL category, ACL CAT order
}

// aclCategories is the list ACL CAT prints on Redis 7.0.
var aclCategories = []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash",
	"string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting"}

// loadTable is the 7.0.15 table with the newer additions (newer_table.go).
func loadTable() (*table, error) {
	t, err := loadBaseTable()
	if err != nil {
		return nil, err
	}
	extendTable(t)
	return t, nil
}

// loadBaseTable parses the embedded COMMAND INFO and COMMAND DOCS replies.
func loadBaseTable() (*table, error) {
	info, err := resp.NewReader(bytes.NewReader(commandsInfoRaw)).ReadValue()
	if err != nil {
		return nil, fmt.Errorf("server: parse embedded COMMAND INFO: %w", err)
	}
	docs, err := resp.NewReader(bytes.NewReader(commandsDocsRaw)).ReadValue()
	if err != nil {
		return nil, fmt.Errorf("server: parse embedded COMMAND DOCS: %w", err)
	}
	docByName := map[string]resp.Value{}
	if docs.Kind == resp.KindMap {
		for i := 0; i+1 < len(docs.Elems); i += 2 {
			docByName[docs.Elems[i].Str] = docs.Elems[i+1]
		}
	}
	t := &table{top: map[string]*command{}, cats: aclCategories}
	for _, e := range info.Elems {
		c, err := parseInfo(e, nil)
		if err != nil {
			return nil, err
		}
		c.docs = docByName[c.name]
		t.top[c.name] = c
		t.topOrder = append(t.topOrder, c)
		t.all = append(t.all, c)
		t.all = append(t.all, c.subOrder...)
	}
	for _, name := range []string{"auth", "hello"} {
		if c := t.top[name]; c != nil {
			c.noAuth = true
		}
	}
	return t, nil
}

// parseInfo builds a command from one COMMAND INFO entry (10 fields).
func parseInfo(v resp.Value, parent *command) (*command, error) {
	if v.Kind != resp.KindArray || len(v.Elems) < 10 {
		return nil, fmt.Errorf("server: malformed COMMAND INFO entry")
	}
	c := &command{name: v.Elems[0].Str, arity: int(v.Elems[1].Int), info: v, parent: parent}
	for _, f := range v.Elems[2].Elems {
		c.flags = append(c.flags, f.Str)
	}
	for _, cat := range v.Elems[6].Elems {
		c.cats = append(c.cats, strings.TrimPrefix(cat.Str, "@"))
	}
	if subs := v.Elems[9]; len(subs.Elems) > 0 {
		c.subs = map[string]*command{}
		for _, s := range subs.Elems {
			sc, err := parseInfo(s, c)
			if err != nil {
				return nil, err
			}
			short := sc.name[strings.IndexByte(sc.name, '|')+1:]
			c.subs[short] = sc
			c.subOrder = append(c.subOrder, sc)
		}
	}
	return c, nil
}

// docsFor returns the COMMAND DOCS entry of a subcommand or command.
func (t *table) docsFor(c *command) (resp.Value, bool) {
	if c.parent == nil {
		return c.docs, c.docs.Kind != resp.KindInvalid
	}
	d := c.parent.docs
	for i := 0; i+1 < len(d.Elems); i += 2 {
		if d.Elems[i].Str != "subcommands" {
			continue
		}
		subs := d.Elems[i+1]
		for j := 0; j+1 < len(subs.Elems); j += 2 {
			if subs.Elems[j].Str == c.name {
				return subs.Elems[j+1], true
			}
		}
	}
	return resp.Value{}, false
}

// hasCategory reports whether c belongs to the ACL category cat.
func (c *command) hasCategory(cat string) bool {
	for _, x := range c.cats {
		if x == cat {
			return true
		}
	}
	return false
}

// lookup finds a command (by lower-case name) in the whole table,
// accepting "parent|sub" names.
func (t *table) lookup(name string) *command {
	if i := strings.IndexByte(name, '|'); i >= 0 {
		p := t.top[name[:i]]
		if p == nil || p.subs == nil {
			return nil
		}
		return p.subs[name[i+1:]]
	}
	return t.top[name]
}
