package core

// Behaviour added after Redis 7.0.15 (Redis 7.2/7.4, Valkey 8/9; see
// ../shared/reference/newer-versions.md and docs/compatibility.md) that
// needs state of its own. Kept apart from the 7.0 code so that the
// additions stay easy to find.

// newerState is the part of Sentinel's state that 7.0.15 did not have.
type newerState struct {
	// logLevel is the server loglevel as SENTINEL CONFIG GET/SET sees it
	// (Redis 7.2): debug, verbose, notice, warning or nothing; "" means
	// notice.
	logLevel string
	// totalTilt counts the times TILT was entered since start (Valkey 9
	// INFO sentinel_total_tilt; not persisted).
	totalTilt int
}

// logLevel returns the current loglevel name.
func (s *Sentinel) logLevel() string {
	if s.newer.logLevel == "" {
		return "notice"
	}
	return s.newer.logLevel
}

// The Valkey 8 names of four subcommands, answered by the same handlers
// as their MASTER forms (valkey sentinel.c, PR #789). Vote requests still
// go out as is-master-down-by-addr, which every version understands.
func init() {
	sentinelSubcommands["primary"] = sentinelSubcommands["master"]
	sentinelSubcommands["primaries"] = sentinelSubcommands["masters"]
	sentinelSubcommands["get-primary-addr-by-name"] = sentinelSubcommands["get-master-addr-by-name"]
	sentinelSubcommands["is-primary-down-by-addr"] = sentinelSubcommands["is-master-down-by-addr"]
}
