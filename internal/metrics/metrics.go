package metrics

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/runtime"
)

// DefaultSnapshotTimeout bounds how long a scrape waits for the loop.
const DefaultSnapshotTimeout = 2 * time.Second

// Metrics holds gosentinel's series on a private registry (plus the Go
// runtime and process collectors). Create it before the runtime, pass it as
// runtime.Options.Observer, then call SetSource with the runtime.
type Metrics struct {
	reg    *prometheus.Registry
	events *eventMetrics
	src    atomic.Pointer[sourceBox]
}

// sourceBox lets an interface value live in an atomic.Pointer.
type sourceBox struct{ Source }

var _ runtime.Observer = (*Metrics)(nil)

// New returns Metrics whose scrapes wait at most timeout for the state
// snapshot (0: DefaultSnapshotTimeout).
func New(timeout time.Duration) *Metrics {
	if timeout <= 0 {
		timeout = DefaultSnapshotTimeout
	}
	m := &Metrics{reg: prometheus.NewRegistry(), events: newEventMetrics()}
	m.reg.MustRegister(m.events.collectors()...)
	m.reg.MustRegister(newStateCollector(m.source, timeout))
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// SetSource sets where scrapes read the state from (nil: no state series,
// gosentinel_snapshot_ok 0).
func (m *Metrics) SetSource(src Source) {
	if src == nil {
		m.src.Store(nil)
		return
	}
	m.src.Store(&sourceBox{src})
}

func (m *Metrics) source() Source {
	if b := m.src.Load(); b != nil {
		return b.Source
	}
	return nil
}

// Registry returns the private registry (tests, extra collectors).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, MaxRequestsInFlight: 4})
}

// Event implements runtime.Observer.
func (m *Metrics) Event(e core.Emit) { m.events.event(e) }

// LinkRTT implements runtime.Observer.
func (m *Metrics) LinkRTT(role core.Role, rtt time.Duration) {
	m.events.rtt.WithLabelValues(role.String()).Observe(rtt.Seconds())
}

// LinkDisconnected implements runtime.Observer.
func (m *Metrics) LinkDisconnected(role core.Role, typ core.ConnType) {
	m.events.disconnects.WithLabelValues(role.String(), connName(typ)).Inc()
}

// LinkFailed implements runtime.Observer.
func (m *Metrics) LinkFailed(role core.Role, typ core.ConnType) {
	m.events.connFails.WithLabelValues(role.String(), connName(typ)).Inc()
}

func itoa(i int) string { return strconv.Itoa(i) }
