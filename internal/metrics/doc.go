// Package metrics exposes a running gosentinel as Prometheus series
// (prefix gosentinel_) on a private registry, and builds the log handlers
// behind --log-format.
//
// Two kinds of series:
//
//   - event-driven counters, histograms and gauges, updated by [Metrics]
//     as a [runtime.Observer] on the runtime's loop goroutine (events by
//     type, failovers started/succeeded/aborted, last failover phase
//     durations, PING round trips, lost links);
//   - state gauges computed at scrape time from one
//     [runtime.Runtime.MetricsSnapshot] (master status, quorum, replicas,
//     sentinels, epochs, failover state, TILT, scripts).
//
// Nothing is computed per tick: an idle sentinel pays only for the scrapes
// it is asked for. docs/metrics.md lists every series.
package metrics
