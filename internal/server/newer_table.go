package server

import (
	"github.com/gosentinel/gosentinel/internal/resp"
)

// extendTable adds to the captured redis-sentinel 7.0.15 table what newer
// Sentinels have (docs/compatibility.md):
//   - CLIENT SETINFO (Redis 7.2, arity 4; go-redis sends it on connect):
//     COMMAND LIST then counts 73 entries;
//   - Valkey 8's SENTINEL PRIMARY, PRIMARIES, GET-PRIMARY-ADDR-BY-NAME and
//     IS-PRIMARY-DOWN-BY-ADDR, with the info and docs of their MASTER forms
//     (77 entries, as valkey-sentinel 8.0.1 lists);
//   - SENTINEL CONFIG's arity -4 (Redis 7.2, several pairs / patterns);
//   - SENTINEL FAILOVER's arity -3 (Valkey 9, optional COORDINATED).
//
// COMMAND COUNT stays 15: only subcommands are added.
func extendTable(t *table) {
	if cl := t.top["client"]; cl != nil {
		addSubAlias(cl, "client|setname", "client|setinfo", 4)
		if c := cl.subs["setinfo"]; c != nil { // its tips, as 7.2 / Valkey 8 show them
			setInfoField(c, 7, resp.BulkArray("request_policy:all_nodes", "response_policy:all_succeeded"))
		}
	}
	s := t.top["sentinel"]
	if s == nil {
		return
	}
	for _, a := range [][2]string{
		{"sentinel|master", "sentinel|primary"},
		{"sentinel|masters", "sentinel|primaries"},
		{"sentinel|get-master-addr-by-name", "sentinel|get-primary-addr-by-name"},
		{"sentinel|is-master-down-by-addr", "sentinel|is-primary-down-by-addr"},
	} {
		addSubAlias(s, a[0], a[1], 0)
	}
	if c := s.subs["config"]; c != nil {
		setArity(c, -4)
	}
	if c := s.subs["failover"]; c != nil {
		setArity(c, -3) // [COORDINATED], Valkey 9
	}
	t.all = t.all[:0]
	for _, c := range t.topOrder {
		t.all = append(t.all, c)
		t.all = append(t.all, c.subOrder...)
	}
}

// addSubAlias adds the subcommand name to parent as a copy of from (its
// flags, ACL categories and docs), with arity when it is not 0.
func addSubAlias(parent *command, from, name string, arity int) {
	short := name[len(parent.name)+1:]
	src := parent.subs[from[len(parent.name)+1:]]
	if src == nil || parent.subs[short] != nil {
		return
	}
	info := src.info
	info.Elems = append([]resp.Value(nil), src.info.Elems...)
	info.Elems[0] = resp.Bulk(name)
	c := &command{name: name, arity: src.arity, flags: src.flags, cats: src.cats, info: info, parent: parent}
	if arity != 0 {
		setArity(c, arity)
	}
	parent.subs[short] = c
	parent.subOrder = append(parent.subOrder, c)
	pinfo := parent.info
	pinfo.Elems = append([]resp.Value(nil), parent.info.Elems...)
	subs := pinfo.Elems[9]
	subs.Elems = append(append([]resp.Value(nil), subs.Elems...), info)
	pinfo.Elems[9] = subs
	parent.info = pinfo
	addSubDocs(parent, from, name)
}

// addSubDocs copies from's COMMAND DOCS entry under name.
func addSubDocs(parent *command, from, name string) {
	d := parent.docs
	for i := 0; i+1 < len(d.Elems); i += 2 {
		if d.Elems[i].Str != "subcommands" {
			continue
		}
		subs := d.Elems[i+1]
		for j := 0; j+1 < len(subs.Elems); j += 2 {
			if subs.Elems[j].Str == from {
				docs := d
				docs.Elems = append([]resp.Value(nil), d.Elems...)
				ns := subs
				ns.Elems = append(append([]resp.Value(nil), subs.Elems...), resp.Bulk(name), subs.Elems[j+1])
				docs.Elems[i+1] = ns
				parent.docs = docs
				return
			}
		}
	}
}

// setArity changes a command's arity and its COMMAND INFO entry.
func setArity(c *command, arity int) {
	c.arity = arity
	setInfoField(c, 1, resp.Integer(int64(arity)))
}

// setInfoField replaces field i of c's COMMAND INFO entry (also in its
// parent's subcommand list).
func setInfoField(c *command, i int, v resp.Value) {
	info := c.info
	info.Elems = append([]resp.Value(nil), c.info.Elems...)
	info.Elems[i] = v
	c.info = info
	if p := c.parent; p != nil {
		pinfo := p.info
		pinfo.Elems = append([]resp.Value(nil), p.info.Elems...)
		subs := pinfo.Elems[9]
		subs.Elems = append([]resp.Value(nil), subs.Elems...)
		for i, e := range subs.Elems {
			if len(e.Elems) > 0 && e.Elems[0].Str == c.name {
				subs.Elems[i] = info
			}
		}
		pinfo.Elems[9] = subs
		p.info = pinfo
	}
}

// newerCommands are the COMMAND LIST names extendTable adds.
var newerCommands = []string{"client|setinfo", "sentinel|primary", "sentinel|primaries",
	"sentinel|get-primary-addr-by-name", "sentinel|is-primary-down-by-addr"}
