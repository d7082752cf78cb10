// Package clientprom exports the discovery counters of a client built by
// package client (client.StatsOf) as Prometheus metrics. It is a separate
// package so that package client does not depend on the Prometheus client.
//
//	rdb := client.NewFailoverClient(opt)
//	prometheus.MustRegister(clientprom.NewCollector(rdb, prometheus.Labels{"master": opt.MasterName}))
package clientprom

import (
	"github.com/gosentinel/gosentinel/client"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// counter is one client.Stats counter exported as a Prometheus counter.
type counter struct {
	desc *prometheus.Desc
	get  func(client.Stats) uint64
}

// Collector is a prometheus.Collector for one client (or any client
// derived from it).
type Collector struct {
	rdb        *redis.Client
	counters   []counter
	generation *prometheus.Desc
	lastSwitch *prometheus.Desc
	sentinels  *prometheus.Desc
}

var _ prometheus.Collector = (*Collector)(nil)

// NewCollector returns a collector for rdb; constLabels are added to every
// metric (e.g. the master name when several clients are registered).
// Metrics are named gosentinel_client_*; a client not built by package
// client yields none.
func NewCollector(rdb *redis.Client, constLabels prometheus.Labels) *Collector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("gosentinel_client_"+name, help, nil, constLabels)
	}
	c := &Collector{rdb: rdb,
		generation: d("address_generation", "Address generation (bumped on every master change and on every fence)."),
		lastSwitch: d("last_failover_timestamp_seconds", "When the last master change was committed (0 if none)."),
		sentinels:  d("sentinels", "Sentinels in the client's list."),
	}
	add := func(name, help string, get func(client.Stats) uint64) {
		c.counters = append(c.counters, counter{d(name+"_total", help), get})
	}
	add("resolutions", "Sentinel resolutions run.", func(s client.Stats) uint64 { return s.Resolutions })
	add("resolution_errors", "Resolutions that ended in an error.", func(s client.Stats) uint64 { return s.ResolutionErrors })
	add("role_mismatches", "Instances whose ROLE was not the expected one.", func(s client.Stats) uint64 { return s.RoleMismatches })
	add("pool_flushes", "Address changes that retired live connections.", func(s client.Stats) uint64 { return s.PoolFlushes })
	add("master_changes", "Switches to a new verified master.", func(s client.Stats) uint64 { return s.MasterChanges })
	add("disagreements", "Resolutions where sentinels advertised different addresses.", func(s client.Stats) uint64 { return s.Disagreements })
	add("pubsub_hints", "Sentinel events received for this master.", func(s client.Stats) uint64 { return s.PubSubHints })
	add("reconciles", "Periodic re-checks with the sentinels.", func(s client.Stats) uint64 { return s.Reconciles })
	add("reconciles_skipped", "Periodic re-checks skipped: the sentinels had been asked within half the interval.", func(s client.Stats) uint64 { return s.ReconcilesSkipped })
	add("verifications", "Sentinel queries made because the event path was not proven live.", func(s client.Stats) uint64 { return s.Verifications })
	add("retries", "Command retries made by the client.", func(s client.Stats) uint64 { return s.Retries })
	add("sentinel_errors", "Failed sentinel queries.", func(s client.Stats) uint64 { return s.SentinelErrors })
	add("sentinels_discovered", "Sentinels learnt from SENTINEL SENTINELS.", func(s client.Stats) uint64 { return s.SentinelsDiscovered })
	add("sentinels_pruned", "Learnt sentinels dropped from the list.", func(s client.Stats) uint64 { return s.SentinelsPruned })
	add("dials", "Data connections opened and verified.", func(s client.Stats) uint64 { return s.Dials })
	add("early_promotions", "Early switches on +selected-slave.", func(s client.Stats) uint64 { return s.EarlyPromotions })
	add("fences", "Events that retired the current master before the resolution.", func(s client.Stats) uint64 { return s.Fences })
	add("blocked_cut", "Blocked connections closed because the master changed.", func(s client.Stats) uint64 { return s.BlockedCut })
	add("pubsub_lost", "Subscriptions found dead by their health check.", func(s client.Stats) uint64 { return s.PubSubLost })
	add("kept_without_sentinels", "Resolutions in which no sentinel answered and the last verified node was kept.", func(s client.Stats) uint64 { return s.KeptWithoutSentinels })
	add("event_switches", "Switches to the master a fencing event named, verified with ROLE, without a sentinel query.", func(s client.Stats) uint64 { return s.EventSwitches })
	add("untrusted_answers", "Sentinel answers ignored: they named a master the client left, without corroboration.", func(s client.Stats) uint64 { return s.UntrustedAnswers })
	add("sentinel_dials", "Connections opened to sentinels.", func(s client.Stats) uint64 { return s.SentinelDials })
	add("sentinel_commands", "Commands sent to sentinels.", func(s client.Stats) uint64 { return s.SentinelCommands })
	return c
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, k := range c.counters {
		ch <- k.desc
	}
	ch <- c.generation
	ch <- c.lastSwitch
	ch <- c.sentinels
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s, ok := client.StatsOf(c.rdb)
	if !ok {
		return
	}
	for _, k := range c.counters {
		ch <- prometheus.MustNewConstMetric(k.desc, prometheus.CounterValue, float64(k.get(s)))
	}
	ch <- prometheus.MustNewConstMetric(c.generation, prometheus.GaugeValue, float64(s.Generation))
	last := 0.0
	if !s.LastFailover.IsZero() {
		last = float64(s.LastFailover.UnixNano()) / 1e9
	}
	ch <- prometheus.MustNewConstMetric(c.lastSwitch, prometheus.GaugeValue, last)
	ch <- prometheus.MustNewConstMetric(c.sentinels, prometheus.GaugeValue, float64(len(s.Sentinels)))
}
