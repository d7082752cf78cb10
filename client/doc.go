// Package client is a Sentinel-aware Redis client built on go-redis v9.
//
// NewFailoverClient returns a plain *redis.Client (github.com/redis/go-redis/v9)
// whose connections always point at the master that the Redis Sentinels
// currently advertise for a service name, verified with ROLE. It follows the
// Redis "Guidelines for clients with Sentinel support" to the letter and adds
// what other clients lack:
//
//   - sentinels are asked in order with a short timeout of their own; the
//     first responder moves to the front, failing ones to the back;
//   - more than one sentinel is asked (SentinelQuorum) and the answer backed
//     by the highest config epoch wins, so a lagging sentinel cannot send the
//     client back to an old master;
//   - every new connection is re-resolved (through a short cache that any
//     connection error, READONLY/LOADING/MASTERDOWN reply or +switch-master
//     event invalidates) and verified with ROLE (INFO replication fallback);
//   - when the master address changes the whole pool is flushed: idle
//     connections are closed at once and in-use ones refuse to send another
//     command to the old node;
//   - retries are bounded, jittered and never resend a write whose execution
//     is unknown unless RetryAmbiguousWrites is set;
//   - errors are typed: ErrNoSentinelReachable, ErrMasterNotFound,
//     ErrSentinelsDisagree, ErrRoleMismatch (all usable with errors.Is);
//   - +switch-master, +promoted-slave and +selected-slave from several
//     sentinels wake the resolver; on +selected-slave the client polls ROLE
//     on the chosen replica and switches the moment it is promoted, which
//     shortens the window in which the old master acknowledges writes that
//     will be lost;
//   - OnMasterChange and StatsOf expose failovers to metrics.
//
// Closing the returned *redis.Client releases the sentinel connections and
// background goroutines; see docs/client.md for the mechanism and defaults.
package client
