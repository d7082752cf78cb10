package server

import (
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// Defaults, following redis-sentinel 7.0.
const (
	// DefaultPort is Sentinel's port.
	DefaultPort = 26379
	// DefaultMaxClients is Redis' maxclients.
	DefaultMaxClients = 10000
	// DefaultACLLogMaxLen is Redis' acllog-max-len.
	DefaultACLLogMaxLen = 128
	// maxPendingReplies bounds the reply bytes a pipelining client may
	// leave unread before its reader stops processing commands.
	maxPendingReplies = 4 << 20
)

// Config configures a Server. Zero fields take the defaults.
type Config struct {
	// Bind lists addresses like the "bind" directive: "*" (all IPv4),
	// "::" or "::*" (all IPv6), literal IPs; a leading "-" makes the
	// address optional (skipped if it cannot be bound). Default: "*" and
	// "-::*", like Redis.
	Bind []string
	// Port is the TCP port. 0 lets the kernel choose (tests); the runtime
	// passes the configured port (DefaultPort unless sentinel.conf says
	// otherwise).
	Port int
	// Requirepass sets a password on the default user.
	Requirepass string
	// Users are "user" directive bodies: "<name> <rule> <rule>...", split
	// like the config file (sdssplitargs: quote rules containing spaces).
	Users []string
	// UserRules is the same, already split: {name, rule, rule...}. Prefer
	// it when the caller has parsed arguments (no re-quoting needed).
	UserRules [][]string
	// ACLFile is the "aclfile" directive: users are loaded from it at New
	// (replacing Requirepass' default user), and ACL LOAD / ACL SAVE work
	// against it. Setting it together with Users or UserRules is an error,
	// like in Redis.
	ACLFile string
	// RenameCommands applies "rename-command" directives to the top-level
	// commands: lower-case original name → new name ("" disables the
	// command). As in Redis 7.0.15, ACL rules and error texts keep the
	// original names, while COMMAND works on the renamed set (COUNT, INFO
	// and DOCS by new name, replies showing original names).
	RenameCommands map[string]string
	// MaxClients caps connected clients (default 10000).
	MaxClients int
	// Timeout closes clients idle for that long (0: never). Pub/sub
	// clients are exempt, like in Redis.
	Timeout time.Duration
	// Limits bounds the command reader; Unauth* limits apply until a
	// client is authenticated.
	Limits resp.Limits
	// OutputLimits are client-output-buffer-limit for the normal and
	// pubsub classes; nil means Redis' defaults (DefaultOutputLimits).
	OutputLimits *OutputLimits
	// ACLLogMaxLen is acllog-max-len: the most ACL LOG entries kept.
	// 0 means the default (128); a negative value keeps none.
	ACLLogMaxLen int
	// ConfigFile, Executable and RunID are shown in INFO server.
	ConfigFile, Executable, RunID string
	// Supervised is INFO server's process_supervised ("systemd",
	// "upstart"; empty means "no").
	Supervised string
	// now is the clock of the soft output limit (tests replace it).
	now func() time.Time
	// Logf receives notable events (clients dropped for limits, bind
	// failures). Nil means silent.
	Logf func(format string, args ...any)
}

func (c Config) withDefaults() Config {
	if len(c.Bind) == 0 {
		c.Bind = []string{"*", "-::*"}
	}
	if c.MaxClients <= 0 {
		c.MaxClients = DefaultMaxClients
	}
	if c.OutputLimits == nil {
		l := DefaultOutputLimits
		c.OutputLimits = &l
	}
	switch {
	case c.ACLLogMaxLen == 0:
		c.ACLLogMaxLen = DefaultACLLogMaxLen
	case c.ACLLogMaxLen < 0:
		c.ACLLogMaxLen = 0
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	return c
}

// readBufSize is the initial read buffer of a connection. Commands to a
// sentinel are short; a longer line grows the buffer while it is read and
// bulk payloads get their own allocation (resp.NewReaderSize), so 4 KiB
// keeps an idle connection small without costing pipelined throughput.
const readBufSize = 4 << 10
