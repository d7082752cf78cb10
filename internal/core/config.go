package core

// Addr is the address of an instance. Host is the name as given (a literal
// IP or, with resolve-hostnames, a hostname); IP is the resolved address,
// equal to Host for literal IPs and "" when a hostname is not resolved yet
// (the runtime resolves it again on every reconnect). Two addresses are
// equal when the ports match and either the IPs or the hostnames
// (case-insensitively) match (sentinelAddrEqualsHostname).
type Addr struct {
	Host string
	IP   string
	Port int
}

// Announced is the host Sentinel shows and saves for a (Redis'
// announceSentinelAddr): the hostname when announce-hostnames is on or
// the name never resolved, else the IP. Replies, events and the config
// rewrite all use it.
func (a Addr) Announced(hostnames bool) string {
	if hostnames || a.IP == "" {
		return a.Host
	}
	return a.IP
}

// Auth is the credential sent with AUTH as the first command of a new
// connection; an empty Pass means no AUTH.
type Auth struct {
	User string
	Pass string
}

// Rename is one rename-command mapping of a master (also applied to its
// replicas and to the sentinels watching it).
type Rename struct {
	From string
	To   string
}

// KnownSentinel is a `known-sentinel` line: another sentinel of a master.
type KnownSentinel struct {
	Addr  Addr
	RunID string
}

// MasterConfig is everything sentinel.conf holds about one master: the
// `sentinel monitor` line and every per-master directive, plus the state
// Sentinel persists (epochs, known replicas and sentinels).
type MasterConfig struct {
	Name   string
	Addr   Addr
	Quorum int

	DownAfter                   Millis // 0 means Timing.DefaultDownAfter
	FailoverTimeout             Millis // 0 means Timing.DefaultFailoverTimeout
	ParallelSyncs               int    // 0 means DefaultParallelSyncs
	MasterRebootDownAfterPeriod Millis

	NotificationScript   string
	ClientReconfigScript string
	AuthUser             string
	AuthPass             string
	RenameCommands       []Rename

	// ConfigEpoch is the epoch of the failover that produced Addr.
	ConfigEpoch uint64
	// LeaderEpoch is the epoch of our last vote for this master; Leader is
	// the run id we voted for (not in sentinel.conf; kept so a restarted
	// gosentinel never votes twice in one epoch even if it loses the
	// leader name: with an empty Leader the vote still counts as given).
	LeaderEpoch uint64
	Leader      string
	// RebootOption is "primary-reboot-down-after-period" when the reboot
	// period was set under Valkey 8's name, else "" (Redis'
	// master-reboot-down-after-period). The name is fixed when the period
	// first becomes non-zero, so that a rewrite keeps the file loadable by
	// the implementation that wrote it.
	RebootOption string

	KnownReplicas  []Addr
	KnownSentinels []KnownSentinel

	// VoterFloor is the voter count our leader election keeps after a
	// SENTINEL RESET (docs/core.md decision 33), 0 when there is none;
	// VoterFloorLeft is how much of its window was left when the State
	// was taken: the window runs only while the sentinel can hear its
	// peers, so a restart goes on with what was left, however long the
	// sentinel was down. Not a Redis directive: the runtime writes it as
	// a gosentinel-only line (docs/config.md). The core drops a loaded
	// floor with nothing left and cuts one with more than down-after + 2 ×
	// failover-timeout left to that.
	VoterFloor     int
	VoterFloorLeft Millis
}

// State is the part of a sentinel's configuration that Sentinel itself
// writes to sentinel.conf: the complete snapshot carried by [Persist], and
// the starting point of [Config].
type State struct {
	MyID         string // 40 hex chars; "" on first start (New generates one)
	CurrentEpoch uint64
	AnnounceIP   string
	// AnnounceIPSet reports that announce-ip is set even if AnnounceIP is
	// empty: after SENTINEL CONFIG SET announce-ip "" sentinel.c holds an
	// empty (non-NULL) string and the rewrite writes `sentinel announce-ip
	// ""` (conformance F2). Loading an empty announce-ip ignores it, so a
	// runtime converting sentinel.conf leaves this false; it is true in
	// every State the core emits whose AnnounceIP is not empty.
	AnnounceIPSet       bool
	AnnouncePort        int
	AnnounceHostnames   bool
	ResolveHostnames    bool
	DenyScriptsReconfig bool // sentinel.conf default is yes: the runtime must set it
	SentinelUser        string
	SentinelPass        string
	Masters             []MasterConfig
	// LogLevel is the server loglevel (SENTINEL CONFIG loglevel, Redis
	// 7.2); "" means notice.
	LogLevel string
}

// Config is everything the algorithm needs from sentinel.conf and the
// command line. The runtime converts internal/config's model into it (core
// never imports internal/config).
type Config struct {
	State
	// Port is the port announced in hello messages when AnnouncePort is 0
	// (the TLS port when tls-replication is on).
	Port int
	// RequirePass is this sentinel's requirepass, used as the outgoing
	// password to other sentinels when SentinelPass is empty.
	RequirePass string
	// Timing holds the timers; the zero value means DefaultTiming().
	Timing Timing
	// Executable reports whether a script path exists and is executable
	// (access(X_OK)); used by SENTINEL SET notification-script and
	// client-reconfig-script. Nil accepts every path.
	Executable func(path string) bool
	// ResolveIP, if set, resolves a hostname to an IP for MONITOR and
	// replicas announced by name when ResolveHostnames is on. It is the
	// only I/O the core may trigger synchronously; nil leaves the IP empty
	// and lets the runtime resolve at dial time.
	ResolveIP func(host string) (ip string, ok bool)
}
