package config

import "strings"

// Defaults of real Sentinel 7.0.15 (initSentinelConfig, sentinel.c).
const (
	DefaultPort                  = 26379  // sentinel's port (redis-server: 6379)
	DefaultDownAfterMillis       = 30000  // down-after-milliseconds
	DefaultFailoverTimeoutMillis = 180000 // failover-timeout
	DefaultParallelSyncs         = 1      // parallel-syncs
	DefaultMaxClients            = 10000  // maxclients
	DefaultTCPKeepalive          = 300    // tcp-keepalive (seconds)
	DefaultHZ                    = 10     // hz
	DefaultACLLogMaxLen          = 128    // acllog-max-len
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
	lines int     // number of lines of the file content (split on "\n")
	cur   srcLine // line being parsed
}

// Server holds the redis.conf options a sentinel uses, plus every other
// valid directive (Other) so that a rewrite keeps them.
type Server struct {
	Port int      // port
	Bind []string // bind addresses
	Dir  string   // dir as written in the file ("" = not set)
	// AbsDir is the absolute working directory after every dir directive
	// (the process cwd at load time when there is none). Rewrite writes it
	// as `dir "..."`.
	AbsDir          string
	LogFile         string    // logfile ("" = stdout)
	LogLevel        string    // loglevel, lower-case
	Daemonize       bool      // daemonize
	PidFile         string    // pidfile ("" = none)
	RequirePass     string    // requirepass (password of the default user)
	Users           []User    // `user` lines, merged by name, file order
	ACLFile         string    // aclfile
	ACLLogMaxLen    int       // acllog-max-len
	MaxClients      int       // maxclients
	Timeout         int       // timeout (seconds, 0 = never)
	TCPKeepalive    int       // tcp-keepalive (seconds)
	ProtectedMode   bool      // protected-mode (sentinel default: no)
	HZ              int       // hz
	BindSourceAddr  string    // bind-source-addr for outgoing connections
	TLSPort         int       // tls-port (0 = no TLS listener)
	TLSCertFile     string    // tls-cert-file
	TLSKeyFile      string    // tls-key-file
	TLSCACertFile   string    // tls-ca-cert-file
	TLSReplication  bool      // tls-replication: links to instances use TLS
	TLSAuthClients  string    // tls-auth-clients: "yes", "no" or "optional"
	LatencyPercents []float64 // latency-tracking-info-percentiles
	// RenameCommands renames the sentinel's own commands, in file order.
	// An empty New disables the command.
	RenameCommands []Rename
	// Other holds every other valid redis.conf directive, last value wins,
	// in order of first appearance.
	Other []Directive

	// outputLimits is client-output-buffer-limit per class (normal,
	// replica, pubsub): hard bytes, soft bytes, soft seconds.
	outputLimits [3][3]uint64
}

// defaultOutputLimits are Redis' client-output-buffer-limit defaults.
var defaultOutputLimits = [3][3]uint64{{0, 0, 0}, {256 << 20, 64 << 20, 60}, {32 << 20, 8 << 20, 60}}

// outputLimitClasses are the class names as Redis writes them.
var outputLimitClasses = [3]string{"normal", "replica", "pubsub"}

// User is one ACL user declared with `user NAME rules...` lines.
type User struct {
	Name  string   // user name
	Rules []string // ACL rules in order (selectors merged)

	at srcLine // where it was declared, for startup-time errors
}

// Rename maps a command name to a new name.
type Rename struct {
	Old, New string // original and new command name
}

// Directive is a redis.conf directive kept as written (name lower-cased).
type Directive struct {
	Name string   // primary name, lower-case
	Args []string // values
}

// Sentinel holds the sentinel part of the configuration.
type Sentinel struct {
	MyID         string // sentinel myid (40 characters)
	CurrentEpoch uint64 // sentinel current-epoch
	AnnounceIP   string // sentinel announce-ip
	// AnnounceIPSet: announce-ip was set at run time, possibly to "" (real
	// Sentinel then holds an empty, non-NULL value and writes
	// `sentinel announce-ip ""`). Never set by loading: an empty value in
	// the file is ignored, as sentinel.c does.
	AnnounceIPSet       bool
	AnnouncePort        int    // sentinel announce-port (0 = own port)
	AnnounceHostnames   bool   // sentinel announce-hostnames
	ResolveHostnames    bool   // sentinel resolve-hostnames
	DenyScriptsReconfig bool   // sentinel deny-scripts-reconfig (default yes)
	SentinelUser        string // sentinel sentinel-user
	SentinelPass        string // sentinel sentinel-pass
	// Masters in file order (order of their monitor lines).
	Masters []*Master
}

// Master is one monitored master and what Sentinel persists about it.
type Master struct {
	Name                        string   // master name
	Host                        string   // current address: IP or hostname
	Port                        int      // current port
	Quorum                      int      // quorum
	DownAfterMillis             int64    // down-after-milliseconds
	FailoverTimeoutMillis       int64    // failover-timeout
	ParallelSyncs               int      // parallel-syncs
	NotificationScript          string   // notification-script
	ClientReconfigScript        string   // client-reconfig-script
	AuthUser                    string   // auth-user for the master and replicas
	AuthPass                    string   // auth-pass for the master and replicas
	MasterRebootDownAfterMillis int64    // master-reboot-down-after-period
	RenameCommands              []Rename // rename-command, in order
	ConfigEpoch                 uint64   // config-epoch
	LeaderEpoch                 uint64   // leader-epoch
	KnownReplicas               []Addr   // known-replica lines
	KnownSentinels              []Peer   // known-sentinel lines (with runid)
	// RebootOption is "primary-reboot-down-after-period" when the file
	// gave the reboot period under Valkey 8's name, else "" (Redis'
	// master-reboot-down-after-period); the rewrite writes the same name.
	RebootOption string
	// VoterFloor and VoterFloorLeft are the gosentinel.voter-floor line
	// (voterfloor.go): the voter count gosentinel's leader election keeps
	// after a SENTINEL RESET, and the milliseconds of its window left when
	// the file was written. VoterFloor 0: no line.
	VoterFloor     int
	VoterFloorLeft int64
}

// Addr is a host (IP or hostname) and a port.
type Addr struct {
	Host string // IP or hostname
	Port int    // port
}

// Peer is another sentinel known for a master.
type Peer struct {
	Host  string // IP or hostname
	Port  int    // port
	RunID string // the peer's myid
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
			outputLimits:    defaultOutputLimits,
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
		n.Server.Users = append(n.Server.Users, User{Name: u.Name, Rules: append([]string(nil), u.Rules...), at: u.at})
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

// OutputLimit is one class of client-output-buffer-limit: hard and soft
// limits in bytes (0 = none) and the soft limit's seconds.
type OutputLimit struct {
	Hard, Soft, SoftSeconds uint64
}

// OutputLimit returns client-output-buffer-limit for a class ("normal",
// "replica"/"slave" or "pubsub"; anything else gives the zero limit), as
// set by the file or Redis' default.
func (s *Server) OutputLimit(class string) OutputLimit {
	for i, name := range outputLimitClasses {
		if strings.EqualFold(class, name) || (i == 1 && strings.EqualFold(class, "slave")) {
			l := s.outputLimits
			return OutputLimit{Hard: l[i][0], Soft: l[i][1], SoftSeconds: l[i][2]}
		}
	}
	return OutputLimit{}
}

// OtherValue returns the first value of a directive kept in Other (one
// that has no field of its own, such as `supervised`), lower-cased for
// enum directives as the parser stores them; ok is false when the file
// and the command line do not set it.
func (s *Server) OtherValue(name string) (value string, ok bool) {
	for _, d := range s.Other {
		if d.Name == name {
			if len(d.Args) == 0 {
				return "", true
			}
			return d.Args[0], true
		}
	}
	return "", false
}
