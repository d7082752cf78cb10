// Package client is a Sentinel-aware Redis client built on go-redis v9.
//
// NewFailoverClient returns a plain *redis.Client (github.com/redis/go-redis/v9)
// whose connections always point at the master that the Redis Sentinels
// currently advertise for a service name, verified with ROLE. It follows the
// Redis "Guidelines for clients with Sentinel support" to the letter and adds
// what other clients lack:
//
//   - sentinels are asked in order with a short timeout of their own (the
//     first SentinelQuorum side by side); the first responder moves to the
//     front, failing ones to the back; learnt sentinels that fall silent and
//     unlisted are pruned, seeds never;
//   - more than one sentinel is asked (SentinelQuorum) and the answer backed
//     by the highest config epoch wins, so a lagging sentinel cannot send the
//     client back to an old master;
//   - every new connection is re-resolved (through a short cache that any
//     connection error, READONLY/MASTERDOWN reply or sentinel event
//     invalidates) and verified with ROLE (INFO replication fallback);
//   - when the master address changes the whole pool is flushed: idle
//     connections and connections blocked in a read (PubSub, BLPOP...) are
//     closed at once and in-use ones refuse to send another command to the
//     old node;
//   - retries are bounded, jittered and never resend a write whose execution
//     is unknown unless RetryAmbiguousWrites is set;
//   - errors are typed (all usable with errors.Is; discovery failures are
//     *DiscoveryError values with a Kind and per-sentinel Attempts):
//     ErrNoSentinelReachable, ErrMasterNotFound, ErrSentinelsDisagree,
//     ErrRoleMismatch (*RoleError), ErrMasterUnreachable,
//     ErrNoReplicaAvailable, ErrAuth, ErrNotSentinel,
//     ErrFailoverInProgress (FailFast), ErrStaleConnection (internal,
//     always retried), ErrMasterChanged (a blocked command or PubSub
//     receive cut by a switch), ErrInvalidOptions (read-routing options
//     given to a constructor that cannot route) and ErrClientClosed;
//   - NewFailoverClusterClient routes reads to ROLE-verified replicas the
//     sentinels list as usable (ReplicaOnly, RouteByLatency,
//     RouteRandomly, as go-redis's function of the same name);
//   - a master change is noticed within VerifyInterval (1 s) even without
//     events: while the primary subscription is not proven live by its
//     PING health check, one sentinel is asked every VerifyInterval/2
//     over a persistent connection;
//   - +switch-master and +promoted-slave from several distinct sentinels wake
//     the resolver; when they name the current master as the old one, the
//     client stops using it at once (no command issued after the event
//     reaches it) while the new address is resolved; opt-in
//     (PromotionWatch), +selected-slave starts ROLE polling of the chosen
//     replica for an even earlier switch;
//   - OnMasterChange, StatsOf (see Stats; clientprom exports it to
//     Prometheus) and Logger (log/slog) expose the client's own events;
//     nothing the client does by itself goes through go-redis hooks.
//
// Every field of go-redis's FailoverOptions exists with the same name and
// type (ParseFailoverURL, FromGoRedis and FromUniversalOptions convert);
// docs/client.md lists where the meaning differs. The background work
// lives as long as the pool has connections, so every value derived from
// the returned client (WithTimeout, Conn, pipelines, PubSub) works until
// Close on any of them, which releases the sentinel connections and
// goroutines; see docs/client.md for the mechanism and defaults.
package client
