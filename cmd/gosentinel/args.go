package main

import "strings"

// invocation is a parsed command line.
type invocation struct {
	confPath string
	options  []string // "--directive value..." overrides
	version  bool
	help     bool
	extra    extraFlags // --metrics-addr, --log-format (metrics.go)
}

// parseArgs splits argv[1:] like redis-server: an optional config path
// first, then --directive arguments. -v/--version and -h/--help are only
// recognised as the first argument, like in Redis.
func parseArgs(args []string) (invocation, error) {
	var inv invocation
	if len(args) == 0 {
		return inv, nil
	}
	switch args[0] {
	case "-v", "--version":
		inv.version = true
		return inv, nil
	case "-h", "--help":
		inv.help = true
		return inv, nil
	}
	if !strings.HasPrefix(args[0], "--") {
		inv.confPath = args[0]
		args = args[1:]
	}
	var err error
	inv.extra, inv.options, err = takeExtraFlags(args)
	return inv, err
}
