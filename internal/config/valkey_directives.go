package config

// Directives that Redis 7.0.15 refuses but Redis 7.2/7.4 or Valkey 8.0
// accept in any config file, sentinel.conf included
// (../shared/reference/newer-versions.md A.9, B.5). The list was taken
// from `CONFIG GET *` of valkey-server 8.0.1 plus its hidden configs
// (testdata/all-valkey8-options.conf, which valkey-sentinel 8.0.1 loads).
// A sentinel ignores all of them; they are kept in the model and written
// back like any other ordinary option, so that a file written by
// valkey-sentinel (whose tooling writes `enable-debug-assert yes`) starts
// gosentinel unchanged.
//
// Valkey's new canonical names of old directives (`primaryauth`,
// `primaryuser`, `bio-cpulist` …) are accepted as aliases of the Redis
// names, and a rewrite writes the Redis name: the file stays loadable by
// redis-sentinel and by valkey-sentinel (which accepts both).
func init() {
	add(boolSpec(), "enable-debug-assert", "extended-redis-compatibility",
		"dual-channel-replication-enabled", "cluster-slot-stats-enabled",
		"hide-user-data-from-log")
	add(strSpec(), "availability-zone", "unixsocketgroup", "cluster-announce-client-ipv4",
		"cluster-announce-client-ipv6", "locale-collate", "cluster-announce-human-nodename",
		"debug-context")
	add(intSpec(), "events-per-io-thread", "prefetch-batch-max-size", "cluster-blacklist-ttl",
		"max-new-connections-per-cycle", "max-new-tls-connections-per-cycle",
		"set-max-listpack-entries", "cluster-ping-interval",
		"loading-process-events-interval-bytes")
	add(memSpec(), "set-max-listpack-value")
	// loglevel gains `nothing` in Redis 7.2 (A.3).
	add(enumSpec("debug,verbose,notice,warning,nothing"), "loglevel")
	alias("primaryauth", "masterauth")
	alias("primaryuser", "masteruser")
	alias("bio-cpulist", "bio_cpulist")
	alias("server-cpulist", "server_cpulist")
	alias("bgsave-cpulist", "bgsave_cpulist")
	alias("aof-rewrite-cpulist", "aof_rewrite_cpulist")
}

// rebootOptionName returns Master.RebootOption for the directive sub.
func rebootOptionName(sub string) string {
	if sub == "primary-reboot-down-after-period" {
		return sub
	}
	return ""
}

// rebootOptionKey returns the directive a rewrite writes for
// Master.RebootOption.
func rebootOptionKey(opt string) string {
	if opt == "" {
		return "master-reboot-down-after-period"
	}
	return opt
}
