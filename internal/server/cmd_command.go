package server

import (
	"strings"

	"github.com/gosentinel/gosentinel/internal/glob"
	"github.com/gosentinel/gosentinel/internal/resp"
)

var commandHelp = []string{
	"COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"(no subcommand)",
	"    Return details about all Redis commands.",
	"COUNT",
	"    Return the total number of commands in this Redis server.",
	"LIST",
	"    Return a list of all commands in this Redis server.",
	"INFO [<command-name> ...]",
	"    Return details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"DOCS [<command-name> ...]",
	"    Return documentation details about multiple Redis commands.",
	"    If no command names are given, documentation details for all",
	"    commands are returned.",
	"GETKEYS <full-command>",
	"    Return the keys from a full Redis command.",
	"GETKEYSANDFLAGS <full-command>",
	"    Return the keys and the access flags from a full Redis command.",
	"HELP",
	"    Prints this help.",
}

// COMMAND follows rename-command like Redis, whose COMMAND walks and looks
// up the renamed command dict: COUNT counts the commands still callable,
// INFO/DOCS/GETKEYS take the new names, and replies show the original
// names (a command disabled with "" is absent from everything).
func cmdCommand(c *client, cmd *command, args [][]byte) {
	t := c.s.tab
	if cmd.parent == nil { // plain COMMAND
		c.addValue(c.s.allInfo())
		return
	}
	switch cmd.name {
	case "command|count":
		c.addReply(resp.AppendInt(nil, int64(len(c.s.cmds))))
	case "command|list":
		commandList(c, args)
	case "command|info":
		if len(args) == 2 {
			c.addValue(c.s.allInfo())
			return
		}
		out := make([]resp.Value, 0, len(args)-2)
		for _, a := range args[2:] {
			if x := c.s.lookupCommand(strings.ToLower(string(a))); x != nil {
				out = append(out, x.info)
			} else {
				out = append(out, resp.NullBulk())
			}
		}
		c.addValue(resp.Array(out...))
	case "command|docs":
		var kv []resp.Value
		if len(args) == 2 {
			for _, x := range t.topOrder {
				if !c.s.callable(x) {
					continue
				}
				if d, ok := t.docsFor(x); ok {
					kv = append(kv, resp.Bulk(x.name), d)
				}
			}
		} else {
			for _, a := range args[2:] {
				x := c.s.lookupCommand(strings.ToLower(string(a)))
				if x == nil {
					continue
				}
				if d, ok := t.docsFor(x); ok {
					kv = append(kv, resp.Bulk(x.name), d)
				}
			}
		}
		c.addValue(resp.Map(kv...))
	case "command|getkeys", "command|getkeysandflags":
		target, errMsg, _ := c.s.resolve(args[2:], nil)
		switch {
		case target == nil && strings.HasPrefix(errMsg, "ERR wrong number"):
			c.addError("ERR Invalid number of arguments specified for command")
		case target == nil:
			c.addError("ERR Invalid command specified")
		default:
			c.addError("ERR The command has no key arguments")
		}
	case "command|help":
		c.addReply(helpReply(commandHelp))
	}
}

// allInfo returns COMMAND INFO for every callable top-level command.
func (s *Server) allInfo() resp.Value {
	out := make([]resp.Value, 0, len(s.tab.topOrder))
	for _, x := range s.tab.topOrder {
		if s.callable(x) {
			out = append(out, x.info)
		}
	}
	return resp.Array(out...)
}

// callable reports whether x (or its parent) is still in the dispatch map
// after rename-command.
func (s *Server) callable(x *command) bool {
	if x.parent != nil {
		x = x.parent
	}
	return s.live[x]
}

// lookupCommand finds "name" or "parent|sub" (lower case) by the names
// clients call, i.e. after rename-command.
func (s *Server) lookupCommand(name string) *command {
	parent, sub, hasSub := strings.Cut(name, "|")
	p := s.cmds[parent]
	if p == nil || !hasSub {
		return p
	}
	if p.subs == nil {
		return nil
	}
	return p.subs[sub]
}

// commandList: COMMAND LIST [FILTERBY MODULE m | ACLCAT cat | PATTERN p].
func commandList(c *client, args [][]byte) {
	t := c.s.tab
	keep := func(*command) bool { return true }
	switch {
	case len(args) == 2:
	case len(args) == 5 && strings.EqualFold(string(args[2]), "filterby"):
		val := string(args[4])
		switch strings.ToLower(string(args[3])) {
		case "module":
			keep = func(*command) bool { return false }
		case "aclcat":
			cat := strings.ToLower(val)
			keep = func(x *command) bool { return x.hasCategory(cat) }
		case "pattern":
			keep = func(x *command) bool { return glob.Match(val, x.name, true) }
		default:
			c.addError("ERR syntax error")
			return
		}
	default:
		c.addError("ERR syntax error")
		return
	}
	var names []string
	for _, x := range t.all {
		if c.s.callable(x) && keep(x) {
			names = append(names, x.name)
		}
	}
	c.addValue(resp.BulkArray(names...))
}
