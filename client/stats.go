package client

import (
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/redis/go-redis/v9"
)

// counters are the live, lock-free counters behind Stats.
type counters struct {
	resolutions, resolutionErrors, roleMismatches atomic.Uint64
	poolFlushes, masterChanges, disagreements     atomic.Uint64
	pubSubHints, reconciles, retries              atomic.Uint64
	sentinelErrors, sentinelsDiscovered, dials    atomic.Uint64
	earlyPromotions, fences, sentinelsPruned      atomic.Uint64
	blockedCut                                    atomic.Uint64
	lastFailover                                  atomic.Int64 // unix ns
}

// Stats is a snapshot of a client's discovery counters, for metrics.
type Stats struct {
	Resolutions         uint64    // sentinel resolutions run (each asks up to SentinelQuorum sentinels)
	ResolutionErrors    uint64    // resolutions that ended in an error
	RoleMismatches      uint64    // instances whose ROLE was not the expected one
	PoolFlushes         uint64    // address changes that marked live connections stale
	MasterChanges       uint64    // switches to a new verified address (the first resolution is not counted)
	Disagreements       uint64    // resolutions where sentinels advertised different addresses
	PubSubHints         uint64    // +switch-master messages received for this master
	Reconciles          uint64    // periodic background re-resolutions
	Retries             uint64    // command retries made by the client
	SentinelErrors      uint64    // failed sentinel queries (unreachable, timeout, protocol)
	SentinelsDiscovered uint64    // sentinels added to the list by SENTINEL SENTINELS
	Dials               uint64    // data connections opened and verified
	EarlyPromotions     uint64    // switches made on +selected-slave once the replica reported ROLE master
	Fences              uint64    // hints naming the current master as the old one: its connections were retired before the resolution
	SentinelsPruned     uint64    // discovered sentinels dropped from the list (silent and no longer listed)
	BlockedCut          uint64    // connections blocked in a read (Pub/Sub, BLPOP...) closed because the master changed
	LastFailover        time.Time // when the last master change was committed (zero if none)
	CurrentAddr         string    // current verified master address ("" if none yet)
	Sentinels           []string  // current sentinel list, in the order it is tried
	Generation          uint64    // address generation (bumped on every change)
}

func (r *resolver) snapshot() Stats {
	s := Stats{
		Resolutions:         r.stats.resolutions.Load(),
		ResolutionErrors:    r.stats.resolutionErrors.Load(),
		RoleMismatches:      r.stats.roleMismatches.Load(),
		PoolFlushes:         r.stats.poolFlushes.Load(),
		MasterChanges:       r.stats.masterChanges.Load(),
		Disagreements:       r.stats.disagreements.Load(),
		PubSubHints:         r.stats.pubSubHints.Load(),
		Reconciles:          r.stats.reconciles.Load(),
		Retries:             r.stats.retries.Load(),
		SentinelErrors:      r.stats.sentinelErrors.Load(),
		SentinelsDiscovered: r.stats.sentinelsDiscovered.Load(),
		Dials:               r.stats.dials.Load(),
		EarlyPromotions:     r.stats.earlyPromotions.Load(),
		Fences:              r.stats.fences.Load(),
		SentinelsPruned:     r.stats.sentinelsPruned.Load(),
		BlockedCut:          r.stats.blockedCut.Load(),
	}
	if ns := r.stats.lastFailover.Load(); ns != 0 {
		s.LastFailover = time.Unix(0, ns)
	}
	r.mu.Lock()
	s.CurrentAddr = r.addr
	s.Sentinels = append([]string(nil), r.sentinels...)
	s.Generation = r.gen
	r.mu.Unlock()
	return s
}

// registry maps clients built by this package to their resolver, without
// keeping either alive.
var registry sync.Map // weak.Pointer[redis.Client] -> *resolver

// StatsOf returns the discovery counters of a client built by
// NewFailoverClient or NewReplicaClient; ok is false for any other client
// or after the client was closed.
func StatsOf(rdb *redis.Client) (s Stats, ok bool) {
	if rdb == nil {
		return Stats{}, false
	}
	v, ok := registry.Load(weak.Make(rdb))
	if !ok {
		return Stats{}, false
	}
	return v.(*resolver).snapshot(), true
}
