package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/runtime"
)

// Source gives the state read at scrape time; *runtime.Runtime is one.
type Source interface {
	MetricsSnapshot(ctx context.Context) (runtime.Snapshot, error)
}

// failoverStates are the values of the state label of
// gosentinel_master_failover_state.
var failoverStates = []core.FailoverState{
	core.FailoverNone, core.FailoverWaitStart, core.FailoverSelectSlave, core.FailoverSendSlaveofNoOne,
	core.FailoverWaitPromotion, core.FailoverReconfSlaves, core.FailoverUpdateConfig,
}

// masterStatuses are the values of the status label of
// gosentinel_master_status.
var masterStatuses = []string{"ok", "sdown", "odown"}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// stateCollector turns one snapshot per scrape into gauges.
type stateCollector struct {
	src     func() Source
	timeout time.Duration

	up, epoch, tilt, durable, scriptsRunning, scriptsQueued, clients *prometheus.Desc
	status, quorum, quorumOK, majorityOK, usable                     *prometheus.Desc
	replicas, promotable, sentinels, configEpoch, address            *prometheus.Desc
	failoverState, failoverEpoch                                     *prometheus.Desc
	foreignHellos                                                    *prometheus.Desc
}

func newStateCollector(src func() Source, timeout time.Duration) *stateCollector {
	return &stateCollector{
		src:            src,
		timeout:        timeout,
		up:             desc("gosentinel_snapshot_ok", "1 when the scrape could read the sentinel's state from its loop in time, 0 otherwise (state series are then missing)."),
		epoch:          desc("gosentinel_current_epoch", "The sentinel's current epoch."),
		tilt:           desc("gosentinel_tilt", "1 while the sentinel is in TILT mode."),
		durable:        desc("gosentinel_config_durable", "0 from a failed config save until the next successful one (INFO sentinel_config_save_status:err): the sentinel then grants no vote and starts no failover."),
		scriptsRunning: desc("gosentinel_scripts_running", "Notification/reconfig scripts running."),
		scriptsQueued:  desc("gosentinel_scripts_queued", "Notification/reconfig scripts waiting to run (scheduled or waiting for a retry)."),
		clients:        desc("gosentinel_connected_clients", "Clients connected to the sentinel's port(s) (INFO connected_clients; peers and pub/sub subscribers included)."),
		status:         desc("gosentinel_master_status", "1 for the master's current status (ok, sdown, odown; odown wins over sdown), 0 for the others.", "master", "status"),
		quorum:         desc("gosentinel_master_quorum", "Configured quorum of the master.", "master"),
		quorumOK:       desc("gosentinel_master_quorum_reachable", "1 when the usable sentinels (this one plus peers not SDOWN) reach the quorum (CKQUORUM first check).", "master"),
		majorityOK:     desc("gosentinel_master_majority_reachable", "1 when the usable sentinels reach the majority of all known sentinels, needed to authorize a failover (CKQUORUM second check).", "master"),
		usable:         desc("gosentinel_master_usable_sentinels", "Sentinels usable for this master as counted by CKQUORUM (this one included).", "master"),
		replicas:       desc("gosentinel_master_known_replicas", "Replicas known for the master (num-slaves).", "master"),
		promotable:     desc("gosentinel_master_promotable_replicas", "Known replicas neither SDOWN nor disconnected and with priority > 0 (an upper bound of what failover selection would accept).", "master"),
		sentinels:      desc("gosentinel_master_known_sentinels", "Other sentinels known for the master (num-other-sentinels).", "master"),
		configEpoch:    desc("gosentinel_master_config_epoch", "Config epoch of the master's current configuration.", "master"),
		address:        desc("gosentinel_master_address_info", "Always 1; the labels give the address GET-MASTER-ADDR-BY-NAME returns.", "master", "ip", "port"),
		failoverState:  desc("gosentinel_master_failover_state", "1 for the master's current failover state (none, wait_start, select_slave, send_slaveof_noone, wait_promotion, reconf_slaves, update_config), 0 for the others.", "master", "state"),
		failoverEpoch:  desc("gosentinel_master_failover_epoch", "Epoch of the master's last failover started by this sentinel (0 if none).", "master"),
		foreignHellos:  desc("gosentinel_master_foreign_hellos_total", "Hellos for this master name dropped since the start because they announce a master of another deployment (docs/core.md decision 35): another deployment uses the same master name and its hellos reach this one.", "master"),
	}
}

// Describe implements prometheus.Collector.
func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.up, c.epoch, c.tilt, c.durable, c.scriptsRunning, c.scriptsQueued, c.clients,
		c.status, c.quorum, c.quorumOK, c.majorityOK, c.usable, c.replicas, c.promotable,
		c.sentinels, c.configEpoch, c.address, c.failoverState, c.failoverEpoch, c.foreignHellos} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: one snapshot, bounded by the
// timeout, then constant metrics.
func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	src := c.src()
	if src == nil {
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	s, err := src.MetricsSnapshot(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, 0)
		return
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(c.up, 1)
	gauge(c.epoch, float64(s.CurrentEpoch))
	gauge(c.tilt, b2f(s.Tilt))
	gauge(c.durable, b2f(s.Durable))
	gauge(c.scriptsRunning, float64(s.ScriptsRunning))
	gauge(c.scriptsQueued, float64(s.ScriptsQueued))
	gauge(c.clients, float64(s.ConnectedClients))
	for _, m := range s.Masters {
		st := masterStatus(m)
		for _, name := range masterStatuses {
			gauge(c.status, b2f(name == st), m.Name, name)
		}
		q := QuorumOf(m)
		gauge(c.quorum, float64(m.Quorum), m.Name)
		gauge(c.quorumOK, b2f(q.QuorumOK), m.Name)
		gauge(c.majorityOK, b2f(q.MajorityOK), m.Name)
		gauge(c.usable, float64(q.Usable), m.Name)
		gauge(c.replicas, float64(len(m.Replicas)), m.Name)
		gauge(c.promotable, float64(promotable(m)), m.Name)
		gauge(c.sentinels, float64(len(m.Sentinels)), m.Name)
		gauge(c.configEpoch, float64(m.ConfigEpoch), m.Name)
		addr := m.CurrentAddr
		ip := addr.IP
		if ip == "" {
			ip = addr.Host
		}
		gauge(c.address, 1, m.Name, ip, itoa(addr.Port))
		for _, fs := range failoverStates {
			gauge(c.failoverState, b2f(fs == m.FailoverState), m.Name, fs.String())
		}
		gauge(c.failoverEpoch, float64(m.FailoverEpoch), m.Name)
		ch <- prometheus.MustNewConstMetric(c.foreignHellos, prometheus.CounterValue, float64(m.ForeignHellos), m.Name)
	}
}

// masterStatus is "odown", "sdown" or "ok".
func masterStatus(m core.MasterView) string {
	switch {
	case m.ODown:
		return "odown"
	case m.SDown:
		return "sdown"
	}
	return "ok"
}

// Quorum is the CKQUORUM computation for one master.
type Quorum struct {
	Usable     int  // this sentinel plus the peers not SDOWN
	Voters     int  // this sentinel plus every known peer
	QuorumOK   bool // Usable >= quorum
	MajorityOK bool // Usable >= Voters/2+1
}

// QuorumOf computes [Quorum] like SENTINEL CKQUORUM
// (sentinelIsQuorumReachable): CKQUORUM answers OK when both checks pass.
func QuorumOf(m core.MasterView) Quorum {
	q := Quorum{Usable: 1, Voters: len(m.Sentinels) + 1}
	for _, s := range m.Sentinels {
		if !s.SDown {
			q.Usable++
		}
	}
	q.QuorumOK = q.Usable >= m.Quorum
	q.MajorityOK = q.Usable >= q.Voters/2+1
	return q
}

// promotable counts the replicas that are not SDOWN, not disconnected and
// not priority 0.
func promotable(m core.MasterView) int {
	n := 0
	for _, r := range m.Replicas {
		if !r.SDown && !r.Disconnected && r.Priority != 0 {
			n++
		}
	}
	return n
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
