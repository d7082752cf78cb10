package config

import (
	_ "embed" // redis-defaults.conf
	"strings"
	"sync"
)

// redisDefaultsConf is `CONFIG GET *` of a default redis-server 7.0.15
// written as `name "value"` lines (see testdata/README.md).
//
//go:embed redis-defaults.conf
var redisDefaultsConf string

// standardDefaults maps each standard directive to the line a rewrite
// writes for its default value, so that a directive given only on the
// command line is written when (and only when) it differs, as in Redis.
var standardDefaults = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(redisDefaultsConf, "\n") {
		args, err := SplitArgs(l)
		if err != nil || len(args) < 2 {
			continue
		}
		name := strings.ToLower(args[0])
		sp, ok := lookupStandard(name)
		if !ok {
			continue
		}
		vals := args[1:]
		if sp.kind == kMulti && len(vals) == 1 && vals[0] != "" {
			if v, err := SplitArgs(vals[0]); err == nil {
				vals = v
			}
		}
		if name == "notify-keyspace-events" {
			if ev, ok := keyspaceEvents(vals[0]); ok {
				vals = []string{ev}
			}
		}
		d := Directive{Name: primaryName(name), Args: canonicalArgs(sp, vals)}
		m[d.Name] = otherLine(d)
	}
	return m
})
