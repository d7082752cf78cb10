package client

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNoSentinelReachable is returned when no sentinel answered at all
// (every sentinel address failed to connect, timed out or returned an error)
// and there is no verified node to keep: a master client keeps the master it
// last verified, as long as it answers ROLE master, while no sentinel
// answers (see docs/client.md, "Every sentinel down").
var ErrNoSentinelReachable = errors.New("client: no sentinel reachable")

// ErrMasterNotFound is returned when at least one sentinel answered but none
// of the sentinels that answered knows the master name.
var ErrMasterNotFound = errors.New("client: master name unknown to the sentinels")

// ErrSentinelsDisagree is returned when sentinels advertised different
// addresses for the master and none of them could be verified with ROLE.
var ErrSentinelsDisagree = errors.New("client: sentinels disagree on the master address")

// ErrRoleMismatch is returned when the address advertised by the sentinels
// does not have the expected role (master for NewFailoverClient, slave for
// NewReplicaClient) after the configured attempts.
var ErrRoleMismatch = errors.New("client: instance role does not match")

// ErrNoReplicaAvailable is returned by a replica client when the sentinels
// know the master but list no healthy replica.
var ErrNoReplicaAvailable = errors.New("client: no healthy replica available")

// ErrStaleConnection is returned (before any byte is sent) by a connection
// that belongs to a master address the client has since moved away from.
// Commands failing with it were not executed and are always safe to retry.
var ErrStaleConnection = errors.New("client: connection points at a previous master")

// ErrMasterChanged is returned by a command that was blocked waiting for a
// reply (BLPOP, XREAD BLOCK, WAIT...) or a go-redis PubSub receive when the
// client closed its connection because the master changed: the command was
// sent to the old master, so it is not retried automatically (unless
// RetryAmbiguousWrites is set); a PubSub reconnects to the new master and
// resubscribes on its next receive.
var ErrMasterChanged = errors.New("client: connection to the previous master closed")

// ErrInvalidOptions is returned by every command of a client built with
// options its constructor cannot honour: RouteByLatency or RouteRandomly
// given to NewFailoverClient or NewReplicaClient (read routing needs
// NewFailoverClusterClient; go-redis's NewFailoverClient panics on them).
// It is not retried.
var ErrInvalidOptions = errors.New("client: invalid options")

// ErrClientClosed is returned by the client's own machinery once it noticed
// that the client was closed (go-redis itself returns redis.ErrClosed for
// commands on a closed client).
var ErrClientClosed = errors.New("client: closed")

// SentinelError records what one sentinel answered (or failed to answer)
// during a discovery attempt.
type SentinelError struct {
	Addr string // sentinel address
	Err  error  // what went wrong with this sentinel
}

// Error implements error.
func (e *SentinelError) Error() string { return "sentinel " + e.Addr + ": " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *SentinelError) Unwrap() error { return e.Err }

// DiscoveryError is the error returned when resolving the master failed. Kind
// is one of the exported sentinel errors (ErrNoSentinelReachable, ...), so
// errors.Is(err, ErrMasterNotFound) works; Attempts holds per-sentinel and
// per-candidate detail.
type DiscoveryError struct {
	Kind     error   // ErrNoSentinelReachable, ErrMasterNotFound, ErrAuth, ErrNotSentinel, ErrSentinelsDisagree, ErrRoleMismatch, ErrMasterUnreachable or ErrNoReplicaAvailable
	Master   string  // master name that was resolved
	Attempts []error // per-sentinel / per-candidate errors, in order
}

// Error implements error.
func (e *DiscoveryError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (master %q)", e.Kind.Error(), e.Master)
	for i, a := range e.Attempts {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(strings.ReplaceAll(a.Error(), "client: ", ""))
	}
	return b.String()
}

// errMasterUnknownHere is the attempt recorded for a sentinel that does not
// know the master name (the name is in the DiscoveryError).
var errMasterUnknownHere = errors.New("master name unknown")

// Unwrap exposes Kind and every attempt to errors.Is / errors.As.
func (e *DiscoveryError) Unwrap() []error {
	return append([]error{e.Kind}, e.Attempts...)
}

// RoleError says that the instance at Addr reported role Got instead of Want.
type RoleError struct {
	Addr string // instance address
	Want string // expected role ("master" or "slave")
	Got  string // role the instance reported
}

// Error implements error.
func (e *RoleError) Error() string {
	return fmt.Sprintf("%s has role %q, want %q", e.Addr, e.Got, e.Want)
}

// Unwrap makes errors.Is(err, ErrRoleMismatch) true.
func (e *RoleError) Unwrap() error { return ErrRoleMismatch }

// ErrMasterUnreachable is returned when the sentinels agree on a master
// address but the client cannot connect to it (typically during the
// down-after window, before the sentinels fail over).
var ErrMasterUnreachable = errors.New("client: advertised instance unreachable")

// ErrAuth is returned when a data node or a sentinel rejects the configured
// credentials. It is not retried.
var ErrAuth = errors.New("client: authentication failed")

// ErrFailoverInProgress is returned at once, with FailoverOptions.FailFast,
// by a command that needs a new connection while no master is known: the
// last resolution failed (the advertised master is unreachable, has the
// wrong role, or the sentinels disagree: typically a failover in
// progress) or an event fenced the current master and no new one is
// verified yet. It wraps the last resolution error. Without FailFast such
// a command waits (up to DialTimeout or its context) for a verified
// master.
var ErrFailoverInProgress = errors.New("client: no master known (failover in progress)")
