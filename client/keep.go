package client

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// keepLastKnown is the outcome of a resolution in which no sentinel
// answered (every one refused, timed out or failed: err is
// ErrNoSentinelReachable). Sentinels being down says nothing about the
// data nodes, so, as go-redis keeps its pooled connections, the client
// keeps the node it last verified instead of failing new connections
// (docs/reliability.md, finding F5; lab scenario H3):
//
//   - master client: the last verified master, if an event has not fenced
//     it, provided it still answers ROLE master on a fresh connection (a node
//     that answers as a replica is never used for writes, and READONLY on
//     a pooled connection starts a resolution that ends here again);
//   - replica client: the last list of usable replicas (each new connection
//     still verifies ROLE slave).
//
// The cache then stays usable until a sentinel answers (see
// cacheFreshLocked) — every new connection is verified with ROLE anyway —
// while the lifecycle loop keeps asking the sentinels (verification,
// reconciliation, subscriptions): the first answer that names another
// master starts a resolution as usual. Other errors (unknown master name,
// authentication, not a sentinel) are returned as they are.
func (r *resolver) keepLastKnown(ctx context.Context, c *call, err error) error {
	if !errors.Is(err, ErrNoSentinelReachable) || ctx.Err() != nil {
		return err
	}
	r.mu.Lock()
	cur, fenced, nrep := r.addr, r.fenced, len(r.replicas)
	r.mu.Unlock()
	if r.want == roleSlave {
		if nrep == 0 {
			return err
		}
		return r.keep(c, "", err)
	}
	if cur == "" || fenced {
		return err
	}
	conn, verr := r.dialVerify(ctx, cur, roleMaster)
	if verr != nil {
		var de *DiscoveryError
		if errors.As(err, &de) {
			return &DiscoveryError{Kind: de.Kind, Master: de.Master, Attempts: append(de.Attempts, verr)}
		}
		return err
	}
	conn.Close()
	return r.keep(c, cur, err)
}

// keep marks the cache usable without the sentinels (see keepLastKnown)
// unless the state changed meanwhile: a hint superseded resolution c, an
// event fenced the master, or another resolution committed another
// address. addr is the kept master ("" for the replica list).
func (r *resolver) keep(c *call, addr string, err error) error {
	r.mu.Lock()
	if (c != nil && c.superseded) || r.fenced || r.addr != addr && r.want == roleMaster {
		r.mu.Unlock()
		return err
	}
	first := !r.kept
	r.kept = true
	r.valid = true
	r.suspect = false
	r.verifiedAt = time.Now()
	r.mu.Unlock()
	r.stats.keptWithoutSentinels.Add(1)
	if first {
		r.log(slog.LevelWarn, "no sentinel answers: keeping the last verified node", "addr", addr, "err", err)
	}
	return nil
}
