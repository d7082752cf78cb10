package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/goleak"

	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/runtime"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// value returns the value of the series name{labels} (false if absent).
func value(t *testing.T, reg prometheus.Gatherer, name string, labels map[string]string) (float64, bool) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			got := map[string]string{}
			for _, lp := range m.GetLabel() {
				got[lp.GetName()] = lp.GetValue()
			}
			for k, v := range labels {
				if got[k] != v {
					continue next
				}
			}
			return metricValue(m), true
		}
	}
	return 0, false
}

func metricValue(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return 0
}

// emit builds the Emit the core would for an event text: its Subject and
// Master from a "%@" prefix, the first word of +switch-master.
func emit(typ, msg string) core.Emit {
	e := core.Emit{Type: typ, Msg: msg, Level: core.LevelWarning, Detail: msg}
	f := strings.Fields(msg)
	roles := map[string]core.Role{"master": core.RoleMaster, "slave": core.RoleReplica, "sentinel": core.RoleSentinel}
	if role, ok := roles[f[0]]; ok && len(f) >= 4 {
		port, _ := strconv.Atoi(f[3])
		sub := &core.Subject{Role: role, Name: f[1], IP: f[2], Port: port, Master: f[1], MasterIP: f[2], MasterPort: port}
		rest := f[4:]
		if role != core.RoleMaster {
			sub.Master, sub.MasterIP = rest[1], rest[2]
			sub.MasterPort, _ = strconv.Atoi(rest[3])
			rest = rest[4:]
		}
		e.Subject, e.Master, e.Detail = sub, sub.Master, strings.Join(rest, " ")
	} else if typ == "+switch-master" {
		e.Master = f[0]
	}
	return e
}

// TestFailoverEvents feeds the leader's event sequence of one failover and
// checks counters and phase durations.
func TestFailoverEvents(t *testing.T) {
	m := New(0)
	clock := time.Unix(1000, 0)
	m.events.now = func() time.Time { return clock }
	const mm = "master mym 127.0.0.1 6379"
	steps := []struct {
		ev      core.Emit
		advance time.Duration
	}{
		{emit("+monitor", mm+" quorum 2"), 0},
		{emit("+sdown", mm), 0},
		{emit("+odown", mm+" #quorum 2/2"), 0},
		{emit("+try-failover", mm), 0},
		{emit("+elected-leader", mm), 300 * time.Millisecond},
		{emit("+promoted-slave", "slave 127.0.0.1:6380 127.0.0.1 6380 @ mym 127.0.0.1 6379"), 500 * time.Millisecond},
		{emit("+failover-end", mm), 200 * time.Millisecond},
		{emit("+switch-master", "mym 127.0.0.1 6379 127.0.0.1 6380"), 0},
		// an aborted attempt of another master, and a debug event
		{emit("+monitor", "master other 127.0.0.1 7000 quorum 1"), 0},
		{emit("+try-failover", "master other 127.0.0.1 7000"), 0},
		{emit("-failover-abort-no-good-slave", "master other 127.0.0.1 7000"), 0},
		{debugEmit(emit("-cmd-link-reconnection", "master other 127.0.0.1 7000")), 0},
	}
	for _, s := range steps {
		clock = clock.Add(s.advance)
		m.Event(s.ev)
	}
	reg := m.Registry()
	tests := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"gosentinel_failovers_started_total", map[string]string{"master": "mym"}, 1},
		{"gosentinel_failovers_succeeded_total", map[string]string{"master": "mym", "end": "complete"}, 1},
		{"gosentinel_failovers_succeeded_total", map[string]string{"master": "mym", "end": "timeout"}, 0},
		{"gosentinel_failovers_aborted_total", map[string]string{"master": "mym", "reason": "not-elected"}, 0},
		{"gosentinel_failovers_aborted_total", map[string]string{"master": "other", "reason": "no-good-slave"}, 1},
		{"gosentinel_failovers_started_total", map[string]string{"master": "other"}, 1},
		{"gosentinel_switch_master_total", map[string]string{"master": "mym"}, 1},
		{"gosentinel_last_failover_duration_seconds", map[string]string{"master": "mym", "phase": PhaseElection}, 0.3},
		{"gosentinel_last_failover_duration_seconds", map[string]string{"master": "mym", "phase": PhasePromotion}, 0.5},
		{"gosentinel_last_failover_duration_seconds", map[string]string{"master": "mym", "phase": PhaseReconfiguration}, 0.2},
		{"gosentinel_last_failover_duration_seconds", map[string]string{"master": "mym", "phase": PhaseTotal}, 1.0},
		{"gosentinel_events_total", map[string]string{"type": "+monitor"}, 2},
		{"gosentinel_events_total", map[string]string{"type": "-cmd-link-reconnection"}, 1},
	}
	for _, tt := range tests {
		got, ok := value(t, reg, tt.name, tt.labels)
		if !ok || got < tt.want-1e-9 || got > tt.want+1e-9 {
			t.Errorf("%s%v = %v (present %v), want %v", tt.name, tt.labels, got, ok, tt.want)
		}
	}
	if _, ok := value(t, reg, "gosentinel_last_failover_duration_seconds", map[string]string{"master": "other"}); ok {
		t.Error("an aborted failover must not set phase durations")
	}

	// An observer's +switch-master (no +try-failover) counts, sets no phase;
	// -monitor drops the master's series.
	m.Event(emit("+switch-master", "other 127.0.0.1 7000 127.0.0.1 7001"))
	if v, _ := value(t, reg, "gosentinel_switch_master_total", map[string]string{"master": "other"}); v != 1 {
		t.Errorf("observer switch count = %v, want 1", v)
	}
	if _, ok := value(t, reg, "gosentinel_last_failover_duration_seconds", map[string]string{"master": "other"}); ok {
		t.Error("observer +switch-master must not set phase durations")
	}
	m.Event(emit("-monitor", mm))
	if _, ok := value(t, reg, "gosentinel_failovers_started_total", map[string]string{"master": "mym"}); ok {
		t.Error("-monitor must drop the master's series")
	}
}

func TestLinkObservations(t *testing.T) {
	m := New(0)
	m.LinkRTT(core.RoleMaster, 2*time.Millisecond)
	m.LinkRTT(core.RoleMaster, 3*time.Millisecond)
	m.LinkRTT(core.RoleSentinel, time.Millisecond)
	m.LinkDisconnected(core.RoleReplica, core.ConnPubSub)
	m.LinkFailed(core.RoleMaster, core.ConnCmd)
	m.LinkFailed(core.RoleMaster, core.ConnCmd)
	tests := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"gosentinel_link_ping_rtt_seconds", map[string]string{"kind": "master"}, 2},
		{"gosentinel_link_ping_rtt_seconds", map[string]string{"kind": "sentinel"}, 1},
		{"gosentinel_link_disconnects_total", map[string]string{"kind": "slave", "conn": "pubsub"}, 1},
		{"gosentinel_link_connect_failures_total", map[string]string{"kind": "master", "conn": "cmd"}, 2},
	}
	for _, tt := range tests {
		if got, ok := value(t, m.Registry(), tt.name, tt.labels); !ok || got != tt.want {
			t.Errorf("%s%v = %v (present %v), want %v", tt.name, tt.labels, got, ok, tt.want)
		}
	}
}

// fakeSource returns a fixed snapshot or error.
type fakeSource struct {
	s   runtime.Snapshot
	err error
}

func (f fakeSource) MetricsSnapshot(context.Context) (runtime.Snapshot, error) { return f.s, f.err }

func TestStateSeries(t *testing.T) {
	addr := core.Addr{IP: "127.0.0.1", Port: 6380}
	snap := runtime.Snapshot{
		CurrentEpoch: 7, Tilt: true, Durable: true, ScriptsRunning: 1, ScriptsQueued: 3, ConnectedClients: 4,
		Masters: []core.MasterView{
			{Name: "a", Quorum: 2, ConfigEpoch: 5, SDown: true, ODown: true, CurrentAddr: addr,
				FailoverState: core.FailoverReconfSlaves, FailoverEpoch: 7, ForeignHellos: 9,
				Replicas:  []core.ReplicaView{{Priority: 100}, {Priority: 0}, {Priority: 100, SDown: true}, {Priority: 100, Disconnected: true}},
				Sentinels: []core.SentinelView{{SDown: true}, {SDown: true}}},
			{Name: "b", Quorum: 2, Sentinels: []core.SentinelView{{}, {SDown: true}, {SDown: true}, {SDown: true}}},
		},
	}
	m := New(0)
	m.SetSource(fakeSource{s: snap})
	tests := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"gosentinel_snapshot_ok", nil, 1},
		{"gosentinel_current_epoch", nil, 7},
		{"gosentinel_tilt", nil, 1},
		{"gosentinel_config_durable", nil, 1},
		{"gosentinel_scripts_running", nil, 1},
		{"gosentinel_scripts_queued", nil, 3},
		{"gosentinel_connected_clients", nil, 4},
		{"gosentinel_master_status", map[string]string{"master": "a", "status": "odown"}, 1},
		{"gosentinel_master_status", map[string]string{"master": "a", "status": "sdown"}, 0},
		{"gosentinel_master_status", map[string]string{"master": "b", "status": "ok"}, 1},
		// a: 1 usable of 3 voters, quorum 2 → neither
		{"gosentinel_master_usable_sentinels", map[string]string{"master": "a"}, 1},
		{"gosentinel_master_quorum_reachable", map[string]string{"master": "a"}, 0},
		{"gosentinel_master_majority_reachable", map[string]string{"master": "a"}, 0},
		// b: 2 usable of 5 voters, quorum 2 → quorum yes, majority (3) no
		{"gosentinel_master_quorum_reachable", map[string]string{"master": "b"}, 1},
		{"gosentinel_master_majority_reachable", map[string]string{"master": "b"}, 0},
		{"gosentinel_master_quorum", map[string]string{"master": "b"}, 2},
		{"gosentinel_master_known_replicas", map[string]string{"master": "a"}, 4},
		{"gosentinel_master_promotable_replicas", map[string]string{"master": "a"}, 1},
		{"gosentinel_master_known_sentinels", map[string]string{"master": "b"}, 4},
		{"gosentinel_master_config_epoch", map[string]string{"master": "a"}, 5},
		{"gosentinel_master_address_info", map[string]string{"master": "a", "ip": "127.0.0.1", "port": "6380"}, 1},
		{"gosentinel_master_failover_state", map[string]string{"master": "a", "state": "reconf_slaves"}, 1},
		{"gosentinel_master_failover_state", map[string]string{"master": "a", "state": "none"}, 0},
		{"gosentinel_master_failover_state", map[string]string{"master": "b", "state": "none"}, 1},
		{"gosentinel_master_failover_epoch", map[string]string{"master": "a"}, 7},
		{"gosentinel_master_foreign_hellos_total", map[string]string{"master": "a"}, 9},
		{"gosentinel_master_foreign_hellos_total", map[string]string{"master": "b"}, 0},
	}
	for _, tt := range tests {
		if got, ok := value(t, m.Registry(), tt.name, tt.labels); !ok || got != tt.want {
			t.Errorf("%s%v = %v (present %v), want %v", tt.name, tt.labels, got, ok, tt.want)
		}
	}

	for _, src := range []Source{nil, fakeSource{err: errors.New("stopped")}} {
		m.SetSource(src)
		if got, ok := value(t, m.Registry(), "gosentinel_snapshot_ok", nil); !ok || got != 0 {
			t.Errorf("source %v: gosentinel_snapshot_ok = %v, %v; want 0", src, got, ok)
		}
		if _, ok := value(t, m.Registry(), "gosentinel_current_epoch", nil); ok {
			t.Errorf("source %v: state series present without a snapshot", src)
		}
	}
}

func TestQuorumOf(t *testing.T) {
	peers := func(up, down int) []core.SentinelView {
		var s []core.SentinelView
		for range up {
			s = append(s, core.SentinelView{})
		}
		for range down {
			s = append(s, core.SentinelView{SDown: true})
		}
		return s
	}
	tests := []struct {
		quorum, up, down int
		want             Quorum
	}{
		{1, 0, 0, Quorum{Usable: 1, Voters: 1, QuorumOK: true, MajorityOK: true}},
		{2, 2, 0, Quorum{Usable: 3, Voters: 3, QuorumOK: true, MajorityOK: true}},
		{2, 1, 1, Quorum{Usable: 2, Voters: 3, QuorumOK: true, MajorityOK: true}},
		{2, 0, 2, Quorum{Usable: 1, Voters: 3}},
		{3, 1, 0, Quorum{Usable: 2, Voters: 2, MajorityOK: true}},
		{2, 1, 2, Quorum{Usable: 2, Voters: 4, QuorumOK: true}},
	}
	for _, tt := range tests {
		got := QuorumOf(core.MasterView{Quorum: tt.quorum, Sentinels: peers(tt.up, tt.down)})
		if got != tt.want {
			t.Errorf("quorum %d, %d up, %d down: %+v, want %+v", tt.quorum, tt.up, tt.down, got, tt.want)
		}
	}
}

func TestListen(t *testing.T) {
	m := New(0)
	m.Event(emit("+monitor", "master mym 127.0.0.1 6379 quorum 2"))
	tests := []struct {
		addr    string
		wantErr bool
	}{
		{"127.0.0.1:0", false},
		{"nonsense", true},
		{"127.0.0.1:99999", true},
	}
	for _, tt := range tests {
		s, err := Listen(tt.addr, m)
		if (err != nil) != tt.wantErr {
			t.Fatalf("Listen(%q) error = %v, want error %v", tt.addr, err, tt.wantErr)
		}
		if err != nil {
			continue
		}
		t.Cleanup(func() { _ = s.Close() })
		for path, want := range map[string]string{"/metrics": `gosentinel_failovers_started_total{master="mym"} 0`, "/": "metrics at /metrics"} {
			resp, err := http.Get("http://" + s.Addr().String() + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
				t.Errorf("GET %s = %d, body lacks %q:\n%.2000s", path, resp.StatusCode, want, body)
			}
		}
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

func debugEmit(e core.Emit) core.Emit {
	e.Level = core.LevelDebug
	return e
}
