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
	// DefaultPubsubLimit is the hard limit of Redis'
	// "client-output-buffer-limit pubsub 32mb 8mb 60".
	DefaultPubsubLimit = 32 << 20
	// DefaultPubsubSoftLimit and DefaultPubsubSoftSeconds are its soft part.
	DefaultPubsubSoftLimit   = 8 << 20
	DefaultPubsubSoftSeconds = 60
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
	// PubsubLimit is the hard output-buffer limit of a subscribed client;
	// PubsubSoftLimit held for PubsubSoftTime also disconnects it.
	PubsubLimit     int
	PubsubSoftLimit int
	PubsubSoftTime  time.Duration
	// ConfigFile, Executable and RunID are shown in INFO server.
	ConfigFile, Executable, RunID string
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
	if c.PubsubLimit <= 0 {
		c.PubsubLimit = DefaultPubsubLimit
	}
	if c.PubsubSoftLimit <= 0 {
		c.PubsubSoftLimit = DefaultPubsubSoftLimit
	}
	if c.PubsubSoftTime <= 0 {
		c.PubsubSoftTime = DefaultPubsubSoftSeconds * time.Second
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	return c
}
