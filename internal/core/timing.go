package core

// Millis is a reading of a monotonic clock, or a duration, in milliseconds.
// The core never reads a clock: every Step receives now as a Millis.
type Millis = int64

// Timing holds every timer of the algorithm (sentinel.c globals, reference
// §2). All of them but FailoverStagger can be changed at run time with
// SENTINEL DEBUG, and every decision reads the live value, so tests and the
// simulator can shrink them.
type Timing struct {
	// InfoPeriod is the INFO period for masters and replicas (10000).
	// Replicas of a failing master are asked every 1000 ms regardless.
	InfoPeriod Millis
	// PingPeriod is the PING period, capped by down-after (1000). It also
	// paces reconnections and defines "recently seen" (5×) for replicas.
	PingPeriod Millis
	// AskPeriod is the period of IS-MASTER-DOWN-BY-ADDR requests while a
	// master is SDOWN (1000); answers older than 5× are stale.
	AskPeriod Millis
	// PublishPeriod is the hello period (2000).
	PublishPeriod Millis
	// DefaultDownAfter is down-after-milliseconds for new masters (30000).
	DefaultDownAfter Millis
	// DefaultFailoverTimeout is failover-timeout for new masters (180000).
	DefaultFailoverTimeout Millis
	// TiltTrigger is the tick gap that enters TILT (2000).
	TiltTrigger Millis
	// TiltPeriod is how long TILT lasts (30000).
	TiltPeriod Millis
	// SlaveReconfTimeout is how long a replica may stay in RECONF_SENT (10000).
	SlaveReconfTimeout Millis
	// MinLinkReconnectPeriod protects young links from recycling (15000).
	MinLinkReconnectPeriod Millis
	// ElectionTimeout bounds WAIT_START, capped by failover-timeout (10000).
	ElectionTimeout Millis
	// ScriptMaxRuntime is the runtime after which a script is killed (60000).
	ScriptMaxRuntime Millis
	// ScriptRetryDelay is the first script retry delay, doubled each retry (30000).
	ScriptRetryDelay Millis
	// FailoverStagger is the delay per rank before an automatic failover
	// starts after ODOWN (200; not in sentinel.c, see stagger.go). It is
	// not a SENTINEL DEBUG parameter: real tools know only the 13 above.
	FailoverStagger Millis
}

// DefaultTiming returns the timers of Redis Sentinel 7.0.15.
func DefaultTiming() Timing {
	return Timing{
		InfoPeriod:             10000,
		PingPeriod:             1000,
		AskPeriod:              1000,
		PublishPeriod:          2000,
		DefaultDownAfter:       30000,
		DefaultFailoverTimeout: 180000,
		TiltTrigger:            2000,
		TiltPeriod:             30000,
		SlaveReconfTimeout:     10000,
		MinLinkReconnectPeriod: 15000,
		ElectionTimeout:        10000,
		ScriptMaxRuntime:       60000,
		ScriptRetryDelay:       30000,
		FailoverStagger:        200,
	}
}

// Fixed constants of sentinel.c that SENTINEL DEBUG cannot change.
const (
	// MaxDesync is the exclusive upper bound of the random delay added to
	// failover_start_time (SENTINEL_MAX_DESYNC).
	MaxDesync Millis = 1000
	// MaxPendingCommands is the per-link cap (times the link refcount) above
	// which no periodic command is queued (SENTINEL_MAX_PENDING_COMMANDS).
	MaxPendingCommands = 100
	// FailingReplicaInfoPeriod is the INFO period for replicas of a master
	// in ODOWN or failover, or whose master link is down.
	FailingReplicaInfoPeriod Millis = 1000
	// ReconfReplicaInfoPeriod is the INFO period of a replica in
	// RECONF_SENT or RECONF_INPROG during our failover (a speed-up: 0 means
	// every tick while no INFO is pending).
	ReconfReplicaInfoPeriod Millis = 0
	// NoGoodSlaveRetryDelay is the least time between an automatic
	// attempt aborted with -failover-abort-no-good-slave and its early
	// retry once a replica is eligible (retry.go; not in sentinel.c, which
	// waits 2×failover-timeout).
	NoGoodSlaveRetryDelay Millis = 1000
	// ScriptMaxQueue is the script queue length limit.
	ScriptMaxQueue = 256
	// ScriptMaxRunning is the number of scripts run at once.
	ScriptMaxRunning = 16
	// ScriptMaxRetry is the number of runs of a script that keeps failing.
	ScriptMaxRetry = 10
	// DefaultReplicaPriority is the priority assumed until INFO says otherwise.
	DefaultReplicaPriority = 100
	// DefaultParallelSyncs is parallel-syncs for new masters.
	DefaultParallelSyncs = 1
	// HelloChannel is the pub/sub channel of the hello protocol.
	HelloChannel = "__sentinel__:hello"
)
