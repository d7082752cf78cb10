package redissuite

import (
	"fmt"
	"strings"
	"testing"
)

// TestInfoCommand is 13-info-command.tcl: which sections INFO returns on a
// sentinel for no argument, all/default/everything, one and several
// sections. It needs only one sentinel, so it does not run init-tests.
func TestInfoCommand(t *testing.T) {
	t.Parallel()
	infoCommandUnit(t, newBareSuite(t, 1))
}

// infoCommandUnit runs 13-info-command against sentinel 0 of s.
func infoCommandUnit(t *testing.T, s *suite) {
	info := func(args ...any) string {
		return fmt.Sprint(s.S(0, append([]any{"INFO"}, args...)...))
	}
	type check struct {
		args    []any
		has     []string
		hasNot  []string
		comment string
	}
	cases := []check{
		{comment: "info command with at most one argument", args: nil,
			has:    []string{"redis_version", "maxclients", "used_cpu_user", "sentinel_tilt"},
			hasNot: []string{"used_memory", "rdb_last_bgsave", "master_repl_offset", "cluster_enabled"}},
		{comment: "info all", args: []any{"all"},
			has:    []string{"redis_version", "maxclients", "used_cpu_user", "sentinel_tilt"},
			hasNot: []string{"used_memory", "rdb_last_bgsave", "master_repl_offset", "cluster_enabled"}},
		{comment: "info default", args: []any{"default"},
			has:    []string{"redis_version", "maxclients", "used_cpu_user", "sentinel_tilt"},
			hasNot: []string{"used_memory", "rdb_last_bgsave", "master_repl_offset", "cluster_enabled"}},
		{comment: "info everything", args: []any{"everything"},
			has:    []string{"redis_version", "maxclients", "used_cpu_user", "sentinel_tilt"},
			hasNot: []string{"used_memory", "rdb_last_bgsave", "master_repl_offset", "cluster_enabled"}},
		{comment: "info command with one sub-section", args: []any{"cpu"},
			has: []string{"used_cpu_user"}, hasNot: []string{"sentinel_tilt", "redis_version"}},
		{comment: "info sentinel", args: []any{"sentinel"},
			has: []string{"sentinel_tilt"}, hasNot: []string{"used_cpu_user", "redis_version"}},
		{comment: "info command with multiple sub-sections", args: []any{"server", "sentinel", "replication"},
			has: []string{"redis_version", "sentinel_tilt"}, hasNot: []string{"used_memory", "used_cpu_user"}},
		{comment: "info cpu all", args: []any{"cpu", "all"},
			has:    []string{"used_cpu_user", "sentinel_tilt", "redis_version"},
			hasNot: []string{"used_memory", "master_repl_offset"}},
	}
	for _, c := range cases {
		got := info(c.args...)
		for _, w := range c.has {
			if !strings.Contains(got, w) {
				t.Errorf("%s: INFO %v: no %q", c.comment, c.args, w)
			}
		}
		for _, w := range c.hasNot {
			if strings.Contains(got, w) {
				t.Errorf("%s: INFO %v: has %q", c.comment, c.args, w)
			}
		}
	}
}
