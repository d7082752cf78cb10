package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// errSuperseded ends a resolution that a hint superseded; nobody waits for
// its outcome (runResolution drops it), it only stops the work.
var errSuperseded = errors.New("client: resolution superseded by a newer hint")

// resolveReplicas asks the sentinels (in order, first answer wins) for the
// replicas of the master and keeps the usable ones: not s_down, o_down or
// disconnected. The choice per connection happens in replicaTarget.
//
// c is the resolution running it: once a hint superseded c, its answer may
// predate what the hint announced, so it changes nothing (the list, the
// stale connections); the resolution started after the hint does. Without
// this a superseded resolution that ends last would put back the list the
// hint made obsolete (e.g. with the replica just promoted).
func (r *resolver) resolveReplicas(ctx context.Context, c *call) error {
	r.mu.Lock()
	order := append([]string(nil), r.sentinels...)
	r.mu.Unlock()
	var attempts []error
	notFound := false
	for _, s := range order {
		if ctx.Err() != nil {
			attempts = append(attempts, &SentinelError{Addr: s, Err: ctx.Err()})
			break
		}
		reps, known, err := r.queryReplicas(ctx, s)
		switch {
		case err != nil && ctx.Err() != nil:
			// Abandoned (hint, shutdown, deadline): says nothing about s.
			attempts = append(attempts, &SentinelError{Addr: s, Err: err})
			continue
		case err != nil:
			attempts = append(attempts, &SentinelError{Addr: s, Err: err})
			r.stats.sentinelErrors.Add(1)
			r.mu.Lock()
			r.sentinels.toBack(s)
			r.mu.Unlock()
			continue
		case !known:
			notFound = true
			attempts = append(attempts, &SentinelError{Addr: s, Err: errMasterUnknownHere})
			continue
		}
		var usable []replicaInfo
		for _, ri := range reps {
			if usableReplica(ri, r.opt.UseDisconnectedReplicas) {
				usable = append(usable, ri)
			}
		}
		keep := make(map[string]bool, len(usable))
		for _, ri := range usable {
			keep[ri.addr] = true
		}
		r.answered(s, nil)
		r.mu.Lock()
		if c != nil && c.superseded {
			r.mu.Unlock()
			return fmt.Errorf("replica resolution: %w", errSuperseded)
		}
		r.sentinels.toFront(s)
		changed := !sameReplicas(r.replicas, usable)
		r.replicas = usable
		r.kept = false
		r.valid = len(usable) > 0
		r.verifiedAt = time.Now()
		var stale []*trackedConn
		for tc := range r.conns {
			if !keep[tc.addr] {
				stale = append(stale, tc)
			}
		}
		r.mu.Unlock()
		// Connections to a node that is no longer a usable replica
		// (promoted, down, disconnected) stop taking commands. A
		// connection stays in r.conns until go-redis closes it, so a
		// later resolution finds it again: only a refresh that retired
		// a connection for the first time counts as a pool flush.
		flushed := false
		for _, tc := range stale {
			if tc.markStale() {
				flushed = true
			}
		}
		if flushed {
			r.stats.poolFlushes.Add(1)
		}
		if changed && r.onReplicas != nil {
			r.onReplicas()
		}
		if len(usable) == 0 {
			return &DiscoveryError{Kind: ErrNoReplicaAvailable, Master: r.opt.MasterName,
				Attempts: append(attempts, &SentinelError{Addr: s, Err: fmt.Errorf("%d replicas listed, none usable", len(reps))})}
		}
		return nil
	}
	return r.keepLastKnown(ctx, c, r.noAnswerErr(attempts, notFound))
}

// pickReplica chooses a random replica, preferring those whose
// master-link-status is ok.
func pickReplica(reps []replicaInfo) (string, bool) {
	var ok []replicaInfo
	for _, ri := range reps {
		if ri.linkOK {
			ok = append(ok, ri)
		}
	}
	if len(ok) == 0 {
		ok = reps
	}
	if len(ok) == 0 {
		return "", false
	}
	return ok[rand.IntN(len(ok))].addr, true
}

// replicaTarget returns a replica for a new connection.
func (r *resolver) replicaTarget(ctx context.Context) (string, uint64, bool, error) {
	r.mu.Lock()
	fresh := r.valid && r.cacheFreshLocked()
	addr, ok := pickReplica(r.replicas)
	r.mu.Unlock()
	if fresh && ok {
		return addr, 0, true, nil
	}
	if err := r.resolveShared(ctx); err != nil {
		return "", 0, false, err
	}
	r.mu.Lock()
	addr, ok = pickReplica(r.replicas)
	r.mu.Unlock()
	if !ok {
		return "", 0, false, &DiscoveryError{Kind: ErrNoReplicaAvailable, Master: r.opt.MasterName}
	}
	return addr, 0, false, nil
}

// dropReplica forgets a replica that failed to connect or verify, so the
// next connection tries another one.
func (r *resolver) dropReplica(addr string) {
	if r.want != roleSlave {
		return
	}
	r.mu.Lock()
	dropped := false
	for i, ri := range r.replicas {
		if ri.addr == addr {
			r.replicas = append(r.replicas[:i:i], r.replicas[i+1:]...)
			dropped = true
			break
		}
	}
	if len(r.replicas) == 0 {
		r.valid = false
	}
	r.mu.Unlock()
	if dropped && r.onReplicas != nil {
		r.onReplicas()
	}
}

// sameReplicas reports whether a and b list the same addresses (in any
// order).
func sameReplicas(a, b []replicaInfo) bool {
	if len(a) != len(b) {
		return false
	}
	seen := make(map[string]bool, len(a))
	for _, ri := range a {
		seen[ri.addr] = true
	}
	for _, ri := range b {
		if !seen[ri.addr] {
			return false
		}
	}
	return true
}
