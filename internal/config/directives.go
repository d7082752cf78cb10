package config

import "strings"

// kind is the value type of a redis.conf directive, which decides how its
// value is validated and written back.
type kind int

const (
	kBool   kind = iota // yes|no
	kInt                // integer
	kMem                // integer with optional k/kb/m/mb/g/gb unit
	kEnum               // one of a fixed list
	kString             // any single argument (written quoted)
	kMulti              // one or more arguments, checked loosely
	kRaw                // one argument, written back unquoted
)

// spec describes a standard redis.conf directive of Redis 7.0.
type spec struct {
	kind     kind
	min, max int64    // bounds for kInt (min==max==0: unchecked)
	enum     []string // values for kEnum
	alias    string   // primary name when this is an alias
}

func boolSpec() spec  { return spec{kind: kBool} }
func intSpec() spec   { return spec{kind: kInt} }
func memSpec() spec   { return spec{kind: kMem} }
func strSpec() spec   { return spec{kind: kString} }
func multiSpec() spec { return spec{kind: kMulti} }
func enumSpec(v string) spec {
	return spec{kind: kEnum, enum: strings.Split(v, ",")}
}
func rangeSpec(lo, hi int64) spec { return spec{kind: kInt, min: lo, max: hi} }

// standard lists the directives redis-server 7.0 accepts through its config
// table (config.c standardConfig), which a sentinel accepts too.
var standard = map[string]spec{}

func add(s spec, names ...string) {
	for _, n := range names {
		standard[n] = s
	}
}

func alias(name, primary string) {
	s := standard[primary]
	s.alias = primary
	standard[name] = s
}

func init() {
	add(boolSpec(), "rdbchecksum", "daemonize", "io-threads-do-reads", "always-show-logo",
		"protected-mode", "rdbcompression", "rdb-del-sync-files", "activerehashing",
		"stop-writes-on-bgsave-error", "set-proc-title", "dynamic-hz", "lazyfree-lazy-eviction",
		"lazyfree-lazy-expire", "lazyfree-lazy-server-del", "lazyfree-lazy-user-del",
		"lazyfree-lazy-user-flush", "repl-disable-tcp-nodelay", "repl-diskless-sync",
		"aof-rewrite-incremental-fsync", "no-appendfsync-on-rewrite", "cluster-require-full-coverage",
		"rdb-save-incremental-fsync", "aof-load-truncated", "aof-use-rdb-preamble",
		"aof-timestamp-enabled", "cluster-replica-no-failover", "replica-lazy-flush",
		"replica-serve-stale-data", "replica-read-only", "replica-ignore-maxmemory",
		"jemalloc-bg-thread", "activedefrag", "syslog-enabled", "cluster-enabled", "appendonly",
		"cluster-allow-reads-when-down", "crash-log-enabled", "crash-memcheck-enabled",
		"use-exit-on-panic", "disable-thp", "cluster-allow-replica-migration", "replica-announced",
		"latency-tracking", "cluster-allow-pubsubshard-when-down", "tls-cluster", "tls-replication",
		"tls-prefer-server-ciphers", "tls-session-caching", "aof-disable-auto-gc",
		"replica-ignore-disk-write-errors")
	add(strSpec(), "aclfile", "unixsocket", "pidfile", "replica-announce-ip", "masteruser",
		"cluster-announce-ip", "cluster-config-file", "syslog-ident", "dbfilename", "appendfilename",
		"appenddirname", "server_cpulist", "bio_cpulist", "aof_rewrite_cpulist", "bgsave_cpulist",
		"ignore-warnings", "proc-title-template", "bind-source-addr", "logfile",
		"cluster-announce-hostname", "tls-cert-file", "tls-key-file", "tls-key-file-pass",
		"tls-client-cert-file", "tls-client-key-file", "tls-client-key-file-pass",
		"tls-dh-params-file", "tls-ca-cert-file", "tls-ca-cert-dir", "tls-protocols",
		"tls-ciphers", "tls-ciphersuites", "masterauth", "requirepass", "dir",
		"notify-keyspace-events")
	add(spec{kind: kRaw}, "unixsocketperm") // octal
	add(enumSpec("upstart,systemd,auto,no"), "supervised")
	add(enumSpec("user,local0,local1,local2,local3,local4,local5,local6,local7"), "syslog-facility")
	add(enumSpec("disabled,on-empty-db,swapdb"), "repl-diskless-load")
	add(enumSpec("debug,verbose,notice,warning"), "loglevel")
	add(enumSpec("volatile-lru,volatile-lfu,volatile-random,volatile-ttl,allkeys-lru,allkeys-lfu,allkeys-random,noeviction"), "maxmemory-policy")
	add(enumSpec("always,everysec,no"), "appendfsync")
	add(enumSpec("no,yes,relative,absolute"), "oom-score-adj")
	add(enumSpec("allchannels,resetchannels"), "acl-pubsub-default")
	add(enumSpec("no,yes,clients"), "sanitize-dump-payload")
	add(enumSpec("ip,hostname,unknown-endpoint"), "cluster-preferred-endpoint-type")
	add(enumSpec("ignore,panic,panic-on-replicas"), "propagation-error-behavior")
	add(enumSpec("no,yes,local"), "enable-protected-configs", "enable-debug-command", "enable-module-command")
	add(enumSpec("no,yes,optional"), "tls-auth-clients")
	add(multiSpec(), "shutdown-on-sigint", "shutdown-on-sigterm", "save", "client-output-buffer-limit",
		"oom-score-adj-values", "bind", "latency-tracking-info-percentiles", "replicaof")
	add(rangeSpec(0, 65535), "port", "tls-port", "cluster-port", "cluster-announce-port",
		"cluster-announce-bus-port", "cluster-announce-tls-port", "replica-announce-port")
	add(rangeSpec(1, 1<<32-1), "maxclients")
	add(rangeSpec(0, 1<<31-1), "timeout", "tcp-keepalive", "hz")
	add(intSpec(), "databases", "io-threads", "auto-aof-rewrite-percentage",
		"cluster-replica-validity-factor", "list-max-listpack-size", "cluster-migration-barrier",
		"active-defrag-cycle-min", "active-defrag-cycle-max", "active-defrag-threshold-lower",
		"active-defrag-threshold-upper", "lfu-log-factor", "lfu-decay-time", "replica-priority",
		"repl-diskless-sync-delay", "maxmemory-samples", "maxmemory-eviction-tenacity",
		"repl-timeout", "repl-ping-replica-period", "list-compress-depth", "rdb-key-save-delay",
		"key-load-delay", "active-expire-effort", "min-replicas-to-write", "min-replicas-max-lag",
		"watchdog-period", "shutdown-timeout", "repl-diskless-sync-max-replicas",
		"tls-session-cache-size", "tls-session-cache-timeout", "active-defrag-max-scan-fields",
		"slowlog-max-len", "acllog-max-len", "busy-reply-threshold", "cluster-node-timeout",
		"slowlog-log-slower-than", "latency-monitor-threshold", "repl-backlog-ttl",
		"tracking-table-max-keys", "set-max-intset-entries", "hash-max-listpack-entries",
		"zset-max-listpack-entries", "stream-node-max-entries", "tcp-backlog",
		"socket-mark-id")
	add(memSpec(), "maxmemory", "proto-max-bulk-len", "client-query-buffer-limit",
		"repl-backlog-size", "active-defrag-ignore-bytes", "hash-max-listpack-value",
		"stream-node-max-bytes", "zset-max-listpack-value", "hll-sparse-max-bytes",
		"cluster-link-sendbuf-limit", "maxmemory-clients", "auto-aof-rewrite-min-size")
	alias("slaveof", "replicaof")
	alias("slave-announce-ip", "replica-announce-ip")
	alias("slave-announce-port", "replica-announce-port")
	alias("slave-lazy-flush", "replica-lazy-flush")
	alias("slave-serve-stale-data", "replica-serve-stale-data")
	alias("slave-read-only", "replica-read-only")
	alias("slave-ignore-maxmemory", "replica-ignore-maxmemory")
	alias("slave-priority", "replica-priority")
	alias("cluster-slave-validity-factor", "cluster-replica-validity-factor")
	alias("cluster-slave-no-failover", "cluster-replica-no-failover")
	alias("repl-ping-slave-period", "repl-ping-replica-period")
	alias("min-slaves-to-write", "min-replicas-to-write")
	alias("min-slaves-max-lag", "min-replicas-max-lag")
	alias("lua-time-limit", "busy-reply-threshold")
	alias("hash-max-ziplist-entries", "hash-max-listpack-entries")
	alias("hash-max-ziplist-value", "hash-max-listpack-value")
	alias("zset-max-ziplist-entries", "zset-max-listpack-entries")
	alias("zset-max-ziplist-value", "zset-max-listpack-value")
	alias("list-max-ziplist-size", "list-max-listpack-size")
}

// deprecated lists directives Redis 7.0 still accepts and ignores, with
// their allowed argument counts (including the name).
var deprecated = map[string][2]int{
	"list-max-ziplist-entries": {2, 2},
	"list-max-ziplist-value":   {2, 2},
	"lua-replicate-commands":   {2, 2},
}

// sentinelCommands are the commands a sentinel serves; only these can be
// renamed by a top-level rename-command in sentinel mode.
var sentinelCommands = []string{
	"ping", "sentinel", "subscribe", "unsubscribe", "psubscribe", "punsubscribe",
	"publish", "info", "role", "client", "shutdown", "auth", "hello", "acl", "command",
}

// lookupStandard returns the spec of a standard directive (name lower-case).
func lookupStandard(name string) (spec, bool) {
	s, ok := standard[name]
	return s, ok
}

// primaryName returns the primary name of a directive (resolving aliases).
func primaryName(name string) string {
	if s, ok := standard[name]; ok && s.alias != "" {
		return s.alias
	}
	return name
}
