package client

import (
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// counters are the live, lock-free counters behind Stats.
type counters struct {
	resolutions, resolutionErrors, roleMismatches atomic.Uint64
	poolFlushes, masterChanges, disagreements     atomic.Uint64
	pubSubHints, reconciles, retries              atomic.Uint64
	sentinelErrors, sentinelsDiscovered, dials    atomic.Uint64
	earlyPromotions, fences, sentinelsPruned      atomic.Uint64
	blockedCut, sentinelDials, sentinelCommands   atomic.Uint64
	verifications, pubSubLost, reconcilesSkipped  atomic.Uint64
	keptWithoutSentinels, eventSwitches           atomic.Uint64
	untrustedAnswers                              atomic.Uint64
	lastFailover                                  atomic.Int64 // unix ns
}

// Stats is a snapshot of a client's discovery counters, for metrics.
type Stats struct {
	Resolutions          uint64    // sentinel resolutions run (each asks up to SentinelQuorum sentinels)
	ResolutionErrors     uint64    // resolutions that ended in an error
	RoleMismatches       uint64    // instances whose ROLE was not the expected one
	PoolFlushes          uint64    // address changes that marked live connections stale
	MasterChanges        uint64    // switches to a new verified address (the first resolution is not counted)
	Disagreements        uint64    // resolutions where sentinels advertised different addresses
	PubSubHints          uint64    // sentinel events (+switch-master, +promoted-slave, +selected-slave) received for this master
	Reconciles           uint64    // periodic background re-resolutions
	ReconcilesSkipped    uint64    // periodic re-resolutions skipped: the sentinels had been asked within half ReconcileInterval
	Retries              uint64    // command retries made by the client
	SentinelErrors       uint64    // failed sentinel queries (unreachable, timeout, protocol)
	SentinelsDiscovered  uint64    // sentinels added to the list by SENTINEL SENTINELS
	Dials                uint64    // data connections opened and verified
	EarlyPromotions      uint64    // switches made on +selected-slave once the replica reported ROLE master
	Fences               uint64    // hints naming the current master as the old one: its connections were retired before the resolution
	SentinelsPruned      uint64    // discovered sentinels dropped from the list (silent and no longer listed)
	BlockedCut           uint64    // connections blocked in a read (Pub/Sub, BLPOP...) closed because the master changed
	Verifications        uint64    // sentinel queries made because the event path was not proven live (VerifyInterval)
	PubSubLost           uint64    // subscriptions found dead by their health check (open but silent)
	KeptWithoutSentinels uint64    // resolutions in which no sentinel answered and the last verified node was kept (it answered ROLE)
	EventSwitches        uint64    // switches to the master a fencing event named (+promoted-slave, +switch-master), verified with ROLE, without a sentinel query
	UntrustedAnswers     uint64    // sentinel answers ignored: they named a master the client left, and not enough other sentinels confirmed it
	SentinelDials        uint64    // connections opened to sentinels (queries and subscriptions)
	SentinelCommands     uint64    // commands sent to sentinels (queries, handshakes, SUBSCRIBE, health-check PINGs)
	LastFailover         time.Time // when the last master change was committed (zero if none)
	CurrentAddr          string    // current verified master address ("" if none yet)
	Sentinels            []string  // current sentinel list, in the order it is tried
	Generation           uint64    // address generation (bumped on every switch and every fence)
}

func (r *resolver) snapshot() Stats {
	s := Stats{
		Resolutions:          r.stats.resolutions.Load(),
		ResolutionErrors:     r.stats.resolutionErrors.Load(),
		RoleMismatches:       r.stats.roleMismatches.Load(),
		PoolFlushes:          r.stats.poolFlushes.Load(),
		MasterChanges:        r.stats.masterChanges.Load(),
		Disagreements:        r.stats.disagreements.Load(),
		PubSubHints:          r.stats.pubSubHints.Load(),
		Reconciles:           r.stats.reconciles.Load(),
		ReconcilesSkipped:    r.stats.reconcilesSkipped.Load(),
		Retries:              r.stats.retries.Load(),
		SentinelErrors:       r.stats.sentinelErrors.Load(),
		SentinelsDiscovered:  r.stats.sentinelsDiscovered.Load(),
		Dials:                r.stats.dials.Load(),
		EarlyPromotions:      r.stats.earlyPromotions.Load(),
		Fences:               r.stats.fences.Load(),
		SentinelsPruned:      r.stats.sentinelsPruned.Load(),
		BlockedCut:           r.stats.blockedCut.Load(),
		Verifications:        r.stats.verifications.Load(),
		PubSubLost:           r.stats.pubSubLost.Load(),
		KeptWithoutSentinels: r.stats.keptWithoutSentinels.Load(),
		EventSwitches:        r.stats.eventSwitches.Load(),
		UntrustedAnswers:     r.stats.untrustedAnswers.Load(),
		SentinelDials:        r.stats.sentinelDials.Load(),
		SentinelCommands:     r.stats.sentinelCommands.Load(),
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

// limiter is the go-redis Limiter of our clients: it passes through to
// the user's Limiter (if any) and lets StatsOf find the resolver from
// Options(), which a WithTimeout clone copies.
type limiter struct {
	r    *resolver
	user redis.Limiter
}

// Allow implements redis.Limiter.
func (l *limiter) Allow() error {
	if l.user != nil {
		return l.user.Allow()
	}
	return nil
}

// ReportResult implements redis.Limiter.
func (l *limiter) ReportResult(err error) {
	if l.user != nil {
		l.user.ReportResult(err)
	}
}

// StatsOf returns the discovery counters of a client built by
// NewFailoverClient or NewReplicaClient, or of any client derived from it
// (WithTimeout); ok is false for any other client. The counters stay
// readable after Close.
func StatsOf(rdb *redis.Client) (s Stats, ok bool) {
	if rdb == nil {
		return Stats{}, false
	}
	l, ok := rdb.Options().Limiter.(*limiter)
	if !ok {
		return Stats{}, false
	}
	return l.r.snapshot(), true
}
