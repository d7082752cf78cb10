package metrics

import (
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/runtime"
)

// Failover phases of gosentinel_last_failover_duration_seconds.
const (
	PhaseElection        = "election"        // +try-failover → +elected-leader
	PhasePromotion       = "promotion"       // +elected-leader → +promoted-slave
	PhaseReconfiguration = "reconfiguration" // +promoted-slave → +switch-master
	PhaseTotal           = "total"           // +try-failover → +switch-master
)

// abortReasons are the suffixes of the -failover-abort-* events.
var abortReasons = []string{"not-elected", "no-good-slave", "slave-timeout"}

// failoverClock holds the timestamps of the failover in progress of one
// master, as seen by this sentinel.
type failoverClock struct {
	try, elected, promoted time.Time
}

// eventMetrics are the series driven by the observer callbacks.
type eventMetrics struct {
	events      *prometheus.CounterVec
	started     *prometheus.CounterVec
	succeeded   *prometheus.CounterVec
	aborted     *prometheus.CounterVec
	switches    *prometheus.CounterVec
	phase       *prometheus.GaugeVec
	rtt         *prometheus.HistogramVec
	disconnects *prometheus.CounterVec
	connFails   *prometheus.CounterVec

	mu     sync.Mutex // guards clocks (the loop writes, nothing else reads)
	clocks map[string]*failoverClock
	now    func() time.Time
}

func newEventMetrics() *eventMetrics {
	return &eventMetrics{
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gosentinel_events_total",
			Help: "Sentinel events (+sdown, +switch-master...) emitted by this sentinel, by type, debug ones included.",
		}, []string{"type"}),
		started: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gosentinel_failovers_started_total",
			Help: "Failovers this sentinel started (+try-failover).",
		}, []string{"master"}),
		succeeded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gosentinel_failovers_succeeded_total",
			Help: "Failovers this sentinel led to the end (+failover-end: end=\"complete\"; +failover-end-for-timeout: end=\"timeout\").",
		}, []string{"master", "end"}),
		aborted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gosentinel_failovers_aborted_total",
			Help: "Failovers this sentinel aborted, by reason (-failover-abort-<reason>).",
		}, []string{"master", "reason"}),
		switches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gosentinel_switch_master_total",
			Help: "Master address changes seen by this sentinel (+switch-master), as leader or observer.",
		}, []string{"master"}),
		phase: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "gosentinel_last_failover_duration_seconds",
			Help: "Phases of the last failover this sentinel led to +switch-master: election, promotion, reconfiguration, total.",
		}, []string{"master", "phase"}),
		rtt: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "gosentinel_link_ping_rtt_seconds",
			Help:    "Round-trip time of the PINGs sent on command links, by instance kind (master, slave, sentinel).",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"kind"}),
		disconnects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gosentinel_link_disconnects_total",
			Help: "Established links to instances that were lost, by instance kind and connection (cmd, pubsub).",
		}, []string{"kind", "conn"}),
		connFails: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gosentinel_link_connect_failures_total",
			Help: "Connection attempts to instances that failed before being established, by instance kind and connection.",
		}, []string{"kind", "conn"}),
		clocks: make(map[string]*failoverClock),
		now:    time.Now,
	}
}

func (m *eventMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.events, m.started, m.succeeded, m.aborted, m.switches, m.phase, m.rtt, m.disconnects, m.connFails}
}

// initMaster creates the zero-valued series of a monitored master, so that
// rate() and alerts see them before the first failover.
func (m *eventMetrics) initMaster(name string) {
	m.started.WithLabelValues(name)
	m.succeeded.WithLabelValues(name, "complete")
	m.succeeded.WithLabelValues(name, "timeout")
	m.switches.WithLabelValues(name)
	for _, r := range abortReasons {
		m.aborted.WithLabelValues(name, r)
	}
}

// dropMaster deletes the series of a master no longer monitored.
func (m *eventMetrics) dropMaster(name string) {
	l := prometheus.Labels{"master": name}
	m.started.DeletePartialMatch(l)
	m.succeeded.DeletePartialMatch(l)
	m.aborted.DeletePartialMatch(l)
	m.switches.DeletePartialMatch(l)
	m.phase.DeletePartialMatch(l)
	m.mu.Lock()
	delete(m.clocks, name)
	m.mu.Unlock()
}

// event updates the series for one emitted event.
func (m *eventMetrics) event(e core.Emit) {
	m.events.WithLabelValues(e.Type).Inc()
	ev := runtime.EventInfoOf(e)
	if ev.Master == "" {
		return
	}
	now := m.now()
	switch {
	case e.Type == "+monitor":
		m.initMaster(ev.Master)
	case e.Type == "-monitor":
		m.dropMaster(ev.Master)
	case e.Type == "+try-failover":
		m.started.WithLabelValues(ev.Master).Inc()
		m.setClock(ev.Master, func(c *failoverClock) { *c = failoverClock{try: now} })
	case e.Type == "+elected-leader":
		m.setClock(ev.Master, func(c *failoverClock) { c.elected = now })
	case e.Type == "+promoted-slave":
		m.setClock(ev.Master, func(c *failoverClock) { c.promoted = now })
	case e.Type == "+failover-end":
		m.succeeded.WithLabelValues(ev.Master, "complete").Inc()
	case e.Type == "+failover-end-for-timeout":
		m.succeeded.WithLabelValues(ev.Master, "timeout").Inc()
	case strings.HasPrefix(e.Type, "-failover-abort-"):
		m.aborted.WithLabelValues(ev.Master, strings.TrimPrefix(e.Type, "-failover-abort-")).Inc()
		m.mu.Lock()
		delete(m.clocks, ev.Master)
		m.mu.Unlock()
	case e.Type == "+switch-master":
		m.switches.WithLabelValues(ev.Master).Inc()
		m.switched(ev.Master, now)
	}
}

func (m *eventMetrics) setClock(master string, f func(*failoverClock)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.clocks[master]
	if !ok {
		c = &failoverClock{}
		m.clocks[master] = c
	}
	f(c)
}

// switched records the phases of a failover this sentinel led (it saw
// +try-failover); an observer's +switch-master records nothing.
func (m *eventMetrics) switched(master string, now time.Time) {
	m.mu.Lock()
	c, ok := m.clocks[master]
	delete(m.clocks, master)
	m.mu.Unlock()
	if !ok || c.try.IsZero() {
		return
	}
	m.phase.DeletePartialMatch(prometheus.Labels{"master": master}) // no phase of an older failover
	set := func(phase string, from, to time.Time) {
		if !from.IsZero() && !to.IsZero() && !to.Before(from) {
			m.phase.WithLabelValues(master, phase).Set(to.Sub(from).Seconds())
		}
	}
	set(PhaseElection, c.try, c.elected)
	set(PhasePromotion, c.elected, c.promoted)
	set(PhaseReconfiguration, c.promoted, now)
	set(PhaseTotal, c.try, now)
}

// connName is the conn label of a connection type.
func connName(t core.ConnType) string {
	if t == core.ConnPubSub {
		return "pubsub"
	}
	return "cmd"
}
