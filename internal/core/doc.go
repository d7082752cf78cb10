// Package core is the Sentinel algorithm of Redis Sentinel 7.0.15 as a pure,
// deterministic state machine, modelled on etcd-io/raft's RawNode.
//
// A Sentinel never touches the network, the disk or the clock. The caller
// (internal/runtime in production, internal/sim in tests) feeds it events
// with [Sentinel.Step] and executes the returned effects:
//
//	effects := s.Step(now, ev)
//
// now is a reading of a monotonic clock in milliseconds ([Millis]). It must
// never be derived from the wall clock: TILT (sentinel.c
// sentinelCheckTiltCondition) is entered when two consecutive [Tick] events
// are more than Timing.TiltTrigger apart, or when now goes backwards. The
// runtime must deliver a Tick at least every 100 ms (real Sentinel runs its
// timer at 10–19 Hz); it may deliver extra Ticks earlier, at
// [Sentinel.NextDeadline], to act on a deadline the moment it expires.
//
// # Effects
//
// Effects must be executed strictly in the order returned. The core owns
// link identity: it asks for connections with [Connect] (one per connection
// of an instance link: a command connection for every instance and a
// pub/sub connection for masters and replicas) and receives [LinkConnected]
// or [LinkClosed] for each. Every [Send] is answered by exactly one [Reply]
// with the same Tag, unless the connection closes first: a [LinkClosed]
// cancels all replies still pending on that connection. After the core
// emits [Close] for a connection, the runtime reports nothing more for it.
// Events that name a connection the core no longer considers current are
// ignored, so late events from an old connection are harmless.
//
// The core sends the handshake itself: on [LinkConnected] it emits AUTH (if
// configured), CLIENT SETNAME sentinel-<myid[:8]>-cmd|pubsub and then PING
// (command connection) or SUBSCRIBE __sentinel__:hello (pub/sub connection),
// all through the master's rename-command map. The runtime only dials.
//
// # Persist before reveal
//
// Sentinel's safety rests on one rule (sentinel.c flushes the config inside
// sentinelVoteLeader before the reply is written): a vote or an epoch must
// be on disk before anything that reveals it leaves the process. The core
// enforces the rule itself, so the runtime never has to reason about it:
//
//   - Whenever the persisted state changes, the core emits a [Persist] with
//     a new, increasing Seq and a complete [State] snapshot. At most one
//     Persist is outstanding; changes made while one is in flight are
//     coalesced into the next one, emitted when the runtime reports the
//     outstanding one with [PersistDone] (one fsync per burst of changes).
//   - Any effect that reveals an epoch or a vote (a [Respond] to
//     SENTINEL IS-MASTER-DOWN-BY-ADDR that asks for a vote, a hello PUBLISH
//     carrying an epoch, an IS-MASTER-DOWN-BY-ADDR request carrying our
//     epoch, the SLAVEOF transactions of a reconfiguration (our own
//     failover's, once its election is on disk, are sent at once:
//     docs/core.md decision 37), the
//     +OK of a SENTINEL command that flushes the config, the +new-epoch and
//     +vote-for-leader [Emit] of our vote or failover start, with the events
//     of the same master that follow them in their step) is held back inside
//     the core while any change is not yet reported persisted, until a
//     [PersistDone] without error arrives for a Persist whose snapshot
//     includes the change. Held-back effects are then released in their
//     original order as part of the effects of that PersistDone step.
//     Held commands count as pending on their link; if the connection
//     closes meanwhile they are dropped.
//   - When a Persist fails ([PersistDone] with Err != nil), effects held for
//     it are not released as they were: a held vote reply is answered as if
//     no vote had been given (leader "*", epoch 0, the down flag unchanged),
//     held +new-epoch and +vote-for-leader become [Log] lines (other held
//     events are published),
//     held IS-MASTER-DOWN-BY-ADDR requests and hello messages are dropped
//     (they are resent by the periodic timers once a later Persist
//     succeeds), and a held +OK becomes the error Sentinel replies when it
//     cannot save its config. The in-memory state is not rolled back (real
//     Sentinel does not roll back either); the next change, or the next
//     periodic retry, emits a fresh Persist.
//
// Query replies are never held: those that show a master's config epoch
// (SENTINEL MASTER/MASTERS, GET-MASTER-ADDR-BY-NAME, INFO) show the config
// epoch and address on disk until a change of them is saved (shown.go).
//
// Events of later steps are not held behind held events, except a change
// of an instance's SDOWN or ODOWN flag while a change of the same flag is
// held (published in order, so the last one tells the state): [Emit.At]
// tells when each event happened, so a consumer that orders events (the
// simulator's checks) uses it. A failover whose +new-epoch or
// +vote-for-leader is held does not advance until they are released, and
// an election is then resumed in the PersistDone step itself.
//
// After a failed Persist the sentinel is non-durable until one succeeds: it
// grants no vote and starts no failover (durable.go; docs/core.md).
//
// The runtime can therefore execute effects in order, writing the config
// file for a Persist and reporting PersistDone when the write (and fsync) is
// done, without delaying any other effect.
//
// # Determinism
//
// The core uses no goroutines, no locks, no time.Now and no global random
// source: randomness (myid generation, failover desync jitter) comes from
// the *rand.Rand passed to [New]. Maps are never iterated where the order
// is visible. Given the same Config, seed and event sequence, Step returns
// the same effects byte for byte; the simulator relies on this.
//
// The package imports only the standard library; imports_test.go enforces
// it.
package core
