package config

// Defaults of real Sentinel 7.0.15 (initSentinelConfig, sentinel.c).
const (
	DefaultPort                  = 26379
	DefaultDownAfterMillis       = 30000
	DefaultFailoverTimeoutMillis = 180000
	DefaultParallelSyncs         = 1
	DefaultMaxClients            = 10000
	DefaultTCPKeepalive          = 300
	DefaultHZ                    = 10
	DefaultACLLogMaxLen          = 128
	// RunIDSize is the length of a sentinel id (myid, known-sentinel runid).
	RunIDSize = 40
)

// DefaultBind is the default bind list (IPv4 and, optionally, IPv6 any).
var DefaultBind = []string{"*", "-::*"}

// DefaultLatencyPercentiles is the default latency-tracking-info-percentiles.
var DefaultLatencyPercentiles = []float64{50, 99, 99.9}

// Config is everything a sentinel reads from sentinel.conf and the command
// line. It is also the state Rewrite writes back: the runtime copies the
// loaded Config, updates the Sentinel part from the core and hands it to
// Rewrite.
type Config struct {
	// File is the name given to Load or Parse (used in errors).
	File string
	// Server holds the ordinary redis.conf options.
	Server Server
	// Sentinel holds the sentinel state (the `sentinel ...` lines).
	Sentinel Sentinel

	// raw keeps every directive line for ApplyArgs re-validation.
	src   []srcLine
	lines int // number of lines of the file content (split on "\n")
}

// Server holds the redis.conf options a sentinel uses, plus every other
// valid directive (Other) so that a rewrite keeps them.
type Server struct {
	Port int
	Bind []string
	Dir  string // as written in the file ("" = not set)
	// AbsDir is the absolute working directory after every dir directive
	// (the process cwd at load time when there is none). Rewrite writes it
	// as `dir "..."`.
	AbsDir          string
	LogFile         string
	LogLevel        string
	Daemonize       bool
	PidFile         string
	RequirePass     string
	Users           []User // `user` lines, merged by name, file order
	ACLFile         string
	ACLLogMaxLen    int
	MaxClients      int
	Timeout         int
	TCPKeepalive    int
	ProtectedMode   bool
	HZ              int
	BindSourceAddr  string
	TLSPort         int
	TLSCertFile     string
	TLSKeyFile      string
	TLSCACertFile   string
	TLSReplication  bool
	TLSAuthClients  string // "yes", "no" or "optional"
	LatencyPercents []float64
	// RenameCommands renames the sentinel's own commands, in file order.
	// An empty New disables the command.
	RenameCommands []Rename
	// Other holds every other valid redis.conf directive, last value wins,
	// in order of first appearance.
	Other []Directive
}

// User is one ACL user declared with `user NAME rules...` lines.
type User struct {
	Name  string
	Rules []string
}

// Rename maps a command name to a new name.
type Rename struct {
	Old, New string
}

// Directive is a redis.conf directive kept as written (name lower-cased).
type Directive struct {
	Name string
	Args []string
}

// Sentinel holds the sentinel part of the configuration.
type Sentinel struct {
	MyID                string
	CurrentEpoch        uint64
	AnnounceIP          string
	AnnouncePort        int
	AnnounceHostnames   bool
	ResolveHostnames    bool
	DenyScriptsReconfig bool
	SentinelUser        string
	SentinelPass        string
	// Masters in file order (order of their monitor lines).
	Masters []*Master
}

// Master is one monitored master and what Sentinel persists about it.
type Master struct {
	Name                        string
	Host                        string
	Port                        int
	Quorum                      int
	DownAfterMillis             int64
	FailoverTimeoutMillis       int64
	ParallelSyncs               int
	NotificationScript          string
	ClientReconfigScript        string
	AuthUser                    string
	AuthPass                    string
	MasterRebootDownAfterMillis int64
	RenameCommands              []Rename
	ConfigEpoch                 uint64
	LeaderEpoch                 uint64
	KnownReplicas               []Addr
	KnownSentinels              []Peer
}

// Addr is a host (IP or hostname) and a port.
type Addr struct {
	Host string
	Port int
}

// Peer is another sentinel known for a master.
type Peer struct {
	Host  string
	Port  int
	RunID string
}

// New returns a Config holding real Sentinel's defaults.
func New() *Config {
	return &Config{
		Server: Server{
			Port:            DefaultPort,
			Bind:            append([]string(nil), DefaultBind...),
			LogLevel:        "notice",
			MaxClients:      DefaultMaxClients,
			TCPKeepalive:    DefaultTCPKeepalive,
			HZ:              DefaultHZ,
			ACLLogMaxLen:    DefaultACLLogMaxLen,
			TLSAuthClients:  "yes",
			LatencyPercents: append([]float64(nil), DefaultLatencyPercentiles...),
		},
		Sentinel: Sentinel{DenyScriptsReconfig: true},
	}
}

// Master returns the master with the given name, or nil.
func (c *Config) Master(name string) *Master {
	for _, m := range c.Sentinel.Masters {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// Clone returns a deep copy of c, so the runtime can hand a snapshot to
// Rewrite while it keeps changing its own copy.
func (c *Config) Clone() *Config {
	n := *c
	n.Server.Bind = append([]string(nil), c.Server.Bind...)
	n.Server.LatencyPercents = append([]float64(nil), c.Server.LatencyPercents...)
	n.Server.RenameCommands = append([]Rename(nil), c.Server.RenameCommands...)
	n.Server.Users = nil
	for _, u := range c.Server.Users {
		n.Server.Users = append(n.Server.Users, User{Name: u.Name, Rules: append([]string(nil), u.Rules...)})
	}
	n.Server.Other = nil
	for _, d := range c.Server.Other {
		n.Server.Other = append(n.Server.Other, Directive{Name: d.Name, Args: append([]string(nil), d.Args...)})
	}
	n.Sentinel.Masters = nil
	for _, m := range c.Sentinel.Masters {
		mm := *m
		mm.RenameCommands = append([]Rename(nil), m.RenameCommands...)
		mm.KnownReplicas = append([]Addr(nil), m.KnownReplicas...)
		mm.KnownSentinels = append([]Peer(nil), m.KnownSentinels...)
		n.Sentinel.Masters = append(n.Sentinel.Masters, &mm)
	}
	n.src = append([]srcLine(nil), c.src...)
	return &n
}
