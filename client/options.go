package client

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/auth"
	"github.com/redis/go-redis/v9/push"
)

// DefaultPromotionWatch is a sensible FailoverOptions.PromotionWatch for
// callers who opt in to the early switch (it is off by default).
const DefaultPromotionWatch = 5 * time.Second

// Defaults applied by NewFailoverClient / NewReplicaClient to zero fields.
const (
	DefaultSentinelTimeout    = 300 * time.Millisecond
	DefaultSentinelQuorum     = 2
	DefaultPubSubSentinels    = 3
	DefaultPromotionGrace     = 10 * time.Second
	DefaultResolveCacheTTL    = time.Second
	DefaultReconcileInterval  = 10 * time.Second
	DefaultDialTimeout        = 5 * time.Second
	DefaultReadTimeout        = 5 * time.Second // as go-redis v9.23
	DefaultMaxRetries         = 3
	DefaultMinRetryBackoff    = 10 * time.Millisecond // as go-redis v9.23
	DefaultMaxRetryBackoff    = time.Second           // as go-redis v9.23
	DefaultMinRoleBackoff     = 25 * time.Millisecond
	DefaultMaxRoleBackoff     = 250 * time.Millisecond
	DefaultSentinelPruneAfter = time.Minute
	DefaultVerifyInterval     = time.Second
)

// DialFunc opens a network connection; it has the signature of
// (*net.Dialer).DialContext and of go-redis's Options.Dialer.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// FailoverOptions configures NewFailoverClient and NewReplicaClient. A zero
// value field means "the documented default"; for durations and counts where
// go-redis uses -1 to mean "disabled", so do we.
type FailoverOptions struct {
	// MasterName is the service name the sentinels monitor (required).
	MasterName string
	// SentinelAddrs are "host:port" seed sentinels (required). Each
	// client rotates this list by a random offset once (a fleet then
	// spreads over the sentinels; go-redis shuffles it) and then tries it
	// in order, the first responder moving to the front. The in-memory
	// list grows with SENTINEL SENTINELS answers.
	SentinelAddrs []string
	// SentinelOrderFixed keeps SentinelAddrs in the given order (no
	// rotation): put the nearest sentinel first.
	SentinelOrderFixed bool
	// SentinelUsername / SentinelPassword authenticate to the sentinels
	// (AUTH), independently of the data-node credentials.
	SentinelUsername, SentinelPassword string
	// Username / Password authenticate to the Redis master and replicas.
	Username, Password string
	// DB is the database selected on data connections.
	DB int

	// SentinelTimeout bounds dialling and each reply of one sentinel query
	// (default 300 ms, the "few hundred ms" of the guidelines). It is
	// separate from the data-node DialTimeout/ReadTimeout.
	SentinelTimeout time.Duration
	// SentinelTLSConfig enables TLS towards the sentinels (nil: TLSConfig,
	// as go-redis; see SentinelNoTLS).
	SentinelTLSConfig *tls.Config
	// SentinelDialer replaces the dialer used for sentinels (nil: Dialer,
	// as go-redis, which uses one dialer for both).
	SentinelDialer DialFunc
	// SentinelNoTLS makes the client talk plain TCP to the sentinels when
	// TLSConfig is set and SentinelTLSConfig is not (by default, as in
	// go-redis, TLSConfig is used for the sentinels too).
	SentinelNoTLS bool
	// SentinelQuorum is how many sentinels must answer a resolution before
	// the client picks the answer with the highest config epoch (default 2;
	// 1 means "first responder wins", the classic behaviour). That many
	// sentinels are asked side by side. Fewer answers are accepted when
	// fewer sentinels are reachable, and one answer is enough when it names
	// another address with a config epoch above the current master's (a
	// lagging sentinel cannot produce it).
	SentinelQuorum int
	// SentinelPruneAfter is how long a sentinel learnt from SENTINEL
	// SENTINELS may stay silent (no answer, and not listed by any sentinel
	// that answered) before it is dropped from the in-memory list (default
	// 1 min; -1 never prunes). SentinelAddrs are never pruned.
	SentinelPruneAfter time.Duration
	// DisablePubSub turns off the pub/sub subscriptions (the client still
	// follows failovers through errors, re-resolution and reconciliation).
	DisablePubSub bool
	// PubSubSentinels is how many distinct sentinels (seeds or learnt from
	// SENTINEL SENTINELS) the client subscribes to for +switch-master and
	// +promoted-slave hints (default 3). Only the failover leader publishes
	// +promoted-slave, the earliest sign of a failover, so subscribing to
	// several sentinels catches it more often.
	PubSubSentinels int
	// PromotionWatch, when positive, turns on the early switch: on
	// +selected-slave the client polls ROLE (every 10 ms, for at most
	// PromotionWatch) on the selected replica and switches to it the moment
	// it reports master, before the sentinels advertise it. It cuts the
	// writes lost in a failover with the old master alive, but the address
	// then comes from an event plus ROLE rather than from a sentinel query,
	// which the Sentinel client guidelines forbid; so it is off by default
	// (zero or negative). DefaultPromotionWatch is a sensible value.
	PromotionWatch time.Duration
	// PromotionGrace is how long after such an early switch a resolution
	// keeps the promoted node (while it reports master) even if lagging
	// sentinels still name the old master (default 10 s).
	PromotionGrace time.Duration
	// ShareHealthChecks lets the clients of one process that subscribe to
	// the same sentinel (same address, no Dialer of their own) share one
	// Pub/Sub health check: a frame read on one client's subscription
	// proves the sentinel live for the others, and each connection then
	// checks itself only after max(10 × 3/5 × VerifyInterval, 5 s) of
	// silence (docs/client.md, "One health check per sentinel per
	// process"). It cuts the PINGs of a process running many clients of
	// the same sentinels; the cost is that a subscription that stops
	// delivering alone (a stalled proxy or NAT flow, or, behind a load
	// balancer, a connection that reached another sentinel than its
	// siblings) is noticed after that silence instead of within
	// VerifyInterval. Off by default (false): each subscription proves
	// itself, as in go-redis; a process with one client gains nothing
	// from it.
	ShareHealthChecks bool
	// ReconcileInterval is how often the background loop re-resolves the
	// master as a safety net for lost Pub/Sub messages (default 10 s; -1
	// disables the loop). Each client reconciles at its own random phase
	// of the interval, so a fleet started together spreads its
	// reconciliations over it; a reconciliation is skipped when the
	// sentinels were asked (a resolution, the last reconciliation) within
	// half the interval, so the master is re-checked at least every
	// 1.5 × ReconcileInterval (2 × when a starved process serves a slot
	// late).
	ReconcileInterval time.Duration
	// VerifyInterval bounds how long the client may take to notice a
	// master change when no event arrives (default 1 s; -1 disables).
	// While the event path is not proven live (no subscription, SUBSCRIBE
	// refused, or the primary subscription silent: it is sent a PING
	// after 3/5 of VerifyInterval of silence and is not trusted without
	// an answer 3/20 of it later), the client asks one sentinel for
	// the master address every VerifyInterval/2 over a persistent
	// connection and re-resolves at once when the answer changed. The
	// PING costs an idle client about 1.7 sentinel commands per second at
	// the default; -1 brings it to go-redis's level (docs/client.md,
	// "Idle cost").
	VerifyInterval time.Duration
	// ResolveCacheTTL is how long a verified master address is reused for
	// new connections without asking the sentinels again (default 1 s; -1
	// asks the sentinels for every new connection). Any connection error,
	// READONLY/MASTERDOWN reply or sentinel event (+switch-master,
	// +promoted-slave) invalidates it; LOADING does not (the node is right,
	// only busy).
	ResolveCacheTTL time.Duration
	// MinRoleBackoff / MaxRoleBackoff pace the resolutions while they fail
	// (defaults 25 ms / 250 ms): one every MinRoleBackoff while the
	// advertised master is unreachable (the failover has not happened
	// yet), doubling up to MaxRoleBackoff after other failures; all
	// waiting connections share it. They also bound the jittered wait
	// before starting again from the first sentinel when a freshly
	// verified address fails for a new connection.
	MinRoleBackoff, MaxRoleBackoff time.Duration

	// TLSConfig enables TLS towards the Redis data nodes (nil: plain TCP).
	TLSConfig *tls.Config
	// Dialer replaces the TCP dialer used for data nodes.
	Dialer DialFunc
	// DialTimeout bounds the whole "resolve, dial, verify ROLE" loop of one
	// new data connection (default 5 s).
	DialTimeout time.Duration
	// ReadTimeout / WriteTimeout are the go-redis socket timeouts for data
	// commands (defaults 5 s and ReadTimeout, as go-redis v9.23; -1 no
	// timeout, -2 no deadline set at all, as go-redis).
	ReadTimeout, WriteTimeout time.Duration

	// MaxRetries is how many times a failed command is retried (default 3;
	// -1 disables retries). Only failures that prove the command was not
	// executed are retried (pre-send errors, READONLY, LOADING, MASTERDOWN,
	// TRYAGAIN, NOREPLICAS, pool timeouts, failed dials) plus read-only
	// commands after network errors (and writes too with
	// RetryAmbiguousWrites).
	MaxRetries int
	// MinRetryBackoff / MaxRetryBackoff bound the exponential backoff
	// between retries (defaults 10 ms / 1 s, as go-redis v9.23; -1 in
	// either disables the backoff, as go-redis): before retry n (0, 1, ...)
	// the client waits MinRetryBackoff plus a random part of
	// MinRetryBackoff × 2^n, capped at MaxRetryBackoff (go-redis's
	// formula); a sentinel event ends the wait.
	MinRetryBackoff, MaxRetryBackoff time.Duration
	// FailFast makes a command that needs a new connection fail at once
	// with ErrFailoverInProgress while no master is known (the default
	// blocks: the command waits up to DialTimeout, or its context's
	// deadline, for the sentinels to name a verified master). It is not
	// retried by the client.
	FailFast bool
	// RetryAmbiguousWrites also retries commands whose execution is unknown
	// (timeout or connection reset after the command was written). Only set
	// it when every command you send is idempotent.
	RetryAmbiguousWrites bool

	// PoolSize, MinIdleConns, MaxIdleConns, PoolTimeout, ConnMaxIdleTime and
	// ConnMaxLifetime are passed to go-redis unchanged (go-redis defaults).
	PoolSize, MinIdleConns, MaxIdleConns          int
	PoolTimeout, ConnMaxIdleTime, ConnMaxLifetime time.Duration
	// Protocol is the RESP version of data connections (go-redis default 3).
	Protocol int
	// ClientName is sent with CLIENT SETNAME on data connections.
	ClientName string
	// OnConnect, when set, runs on every new data connection after
	// go-redis's handshake and, as in go-redis, on every new sentinel
	// connection after its handshake and before its first query or
	// SUBSCRIBE (a ROLE there answers "sentinel"). An error fails that
	// connection.
	OnConnect func(ctx context.Context, cn *redis.Conn) error

	// Limiter, when set, is consulted by go-redis before every command (as
	// go-redis's Options.Limiter).
	Limiter redis.Limiter

	// The fields below have go-redis's FailoverOptions names, types and
	// meaning and are passed to go-redis for the data connections (see
	// docs/client.md, "Migrating", for the exceptions).

	// ReplicaOnly makes NewFailoverClient behave as NewReplicaClient
	// (ROLE-verified replicas; unlike go-redis it never falls back to the
	// master). With NewFailoverClusterClient it sends read-only commands
	// to a random usable replica (the master when none is), as go-redis.
	ReplicaOnly bool
	// UseDisconnectedReplicas lets the replica client use replicas that
	// the sentinels flag "disconnected" (s_down / o_down ones still not).
	UseDisconnectedReplicas bool
	// RouteByLatency (read-only commands to the node with the lowest
	// latency, master included; RouteByLatencyTolerance widens the
	// choice to every node within that much of the fastest) and
	// RouteRandomly (to a random node, master included) route reads
	// with NewFailoverClusterClient, as in go-redis. NewFailoverClient
	// and NewReplicaClient cannot route: every command of such a client
	// fails with ErrInvalidOptions (go-redis's NewFailoverClient panics).
	RouteByLatency          bool
	RouteByLatencyTolerance time.Duration
	RouteRandomly           bool
	// CredentialsProvider, CredentialsProviderContext and
	// StreamingCredentialsProvider supply the data-node credentials (as in
	// go-redis, in this order of precedence over Username/Password); the
	// ROLE probe authenticates with them too.
	CredentialsProvider          func() (username string, password string)
	CredentialsProviderContext   func(ctx context.Context) (username string, password string, err error)
	StreamingCredentialsProvider auth.StreamingCredentialsProvider
	// DialerRetries, DialerRetryTimeout and DialerRetryBackoff are
	// go-redis's retries around the Dialer. The Dialer of this package
	// already loops (resolve, dial, ROLE) for DialTimeout, so the default
	// here is 1 attempt (go-redis: 5).
	DialerRetries      int
	DialerRetryTimeout time.Duration
	DialerRetryBackoff func(attempt int) time.Duration
	// ContextTimeoutEnabled, ReadBufferSize, WriteBufferSize,
	// PipelineReadBufferSize, PipelineWriteBufferSize, PipelinePoolSize,
	// AutoPipelineOptions, PoolFIFO, MaxConcurrentDials, MaxActiveConns,
	// ConnMaxLifetimeJitter, DisableIndentity, DisableIdentity,
	// IdentitySuffix, FailingTimeoutSeconds, PushNotificationProcessor
	// and UnstableResp3 are passed to go-redis unchanged.
	ContextTimeoutEnabled   bool
	ReadBufferSize          int
	WriteBufferSize         int
	PipelineReadBufferSize  int
	PipelineWriteBufferSize int
	PipelinePoolSize        int
	AutoPipelineOptions     *redis.AutoPipelineOptions
	PoolFIFO                bool
	MaxConcurrentDials      int
	MaxActiveConns          int
	ConnMaxLifetimeJitter   time.Duration
	// Deprecated: use DisableIdentity (as in go-redis).
	DisableIndentity          bool
	DisableIdentity           bool
	IdentitySuffix            string
	FailingTimeoutSeconds     int
	PushNotificationProcessor push.NotificationProcessor
	UnstableResp3             bool

	// Logger, when set, receives the client's own events (never per
	// command): master changes and fences (Info/Warn), failed resolutions
	// (Warn for the first of a streak, Debug after), subscriptions lost
	// or refused (Warn/Debug), verifications that found a change (Info).
	Logger *slog.Logger

	// OnMasterChange is called (from a client goroutine, never concurrently
	// with itself) after the client switched to a new verified master. old
	// is "" the first time a master is resolved.
	OnMasterChange func(old, new string)
}

// withDefaults returns a copy of o with defaults applied.
func (o *FailoverOptions) withDefaults() FailoverOptions {
	c := *o
	c.SentinelAddrs = append([]string(nil), o.SentinelAddrs...)
	if c.SentinelTimeout <= 0 {
		c.SentinelTimeout = DefaultSentinelTimeout
	}
	if c.SentinelQuorum <= 0 {
		c.SentinelQuorum = DefaultSentinelQuorum
	}
	if c.SentinelPruneAfter == 0 {
		c.SentinelPruneAfter = DefaultSentinelPruneAfter
	}
	if c.PubSubSentinels <= 0 {
		c.PubSubSentinels = DefaultPubSubSentinels
	}
	if c.PromotionGrace <= 0 {
		c.PromotionGrace = DefaultPromotionGrace
	}
	if c.ReconcileInterval == 0 {
		c.ReconcileInterval = DefaultReconcileInterval
	}
	if c.VerifyInterval == 0 {
		c.VerifyInterval = DefaultVerifyInterval
	}
	if c.ResolveCacheTTL == 0 {
		c.ResolveCacheTTL = DefaultResolveCacheTTL
	}
	if c.MinRoleBackoff <= 0 {
		c.MinRoleBackoff = DefaultMinRoleBackoff
	}
	if c.MaxRoleBackoff <= 0 {
		c.MaxRoleBackoff = DefaultMaxRoleBackoff
	}
	if c.MaxRoleBackoff < c.MinRoleBackoff {
		c.MaxRoleBackoff = c.MinRoleBackoff
	}
	if c.DialTimeout <= 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = DefaultReadTimeout
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = c.ReadTimeout
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	// As go-redis: 0 means the default, -1 no backoff.
	switch {
	case c.MinRetryBackoff == 0:
		c.MinRetryBackoff = DefaultMinRetryBackoff
	case c.MinRetryBackoff < 0:
		c.MinRetryBackoff = 0
	}
	switch {
	case c.MaxRetryBackoff == 0:
		c.MaxRetryBackoff = DefaultMaxRetryBackoff
	case c.MaxRetryBackoff < 0:
		// go-redis caps every backoff at MaxRetryBackoff, which -1
		// makes 0: no backoff, whatever MinRetryBackoff.
		c.MinRetryBackoff, c.MaxRetryBackoff = 0, 0
	}
	if c.MaxRetryBackoff < c.MinRetryBackoff && o.MaxRetryBackoff >= 0 {
		c.MaxRetryBackoff = c.MinRetryBackoff
	}
	return c
}
