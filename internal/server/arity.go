package server

import "fmt"

// SubcommandArities returns the subcommands of a container command
// ("sentinel", "client", "acl") with their arities as the server's command
// table has them (captured from a real redis-sentinel, plus the newer
// additions of newer_table.go). Tests use it to check other tables against
// this one.
func SubcommandArities(parent string) (map[string]int, error) {
	t, err := loadTable()
	if err != nil {
		return nil, fmt.Errorf("server: command table: %w", err)
	}
	c := t.top[parent]
	if c == nil || c.subs == nil {
		return nil, fmt.Errorf("server: %q is not a command with subcommands", parent)
	}
	out := make(map[string]int, len(c.subs))
	for name, sub := range c.subs {
		out[name] = sub.arity
	}
	return out, nil
}
