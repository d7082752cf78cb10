package ops

import (
	"fmt"
	"net"
	"sort"
	"strings"
)

// Lint thresholds.
const (
	// MinSafeDownAfterMs is the down-after-milliseconds below which check
	// warns: shorter detection windows turn network jitter into failovers
	// (Redis docs, Sentinel, 'Configuring Sentinel': down-after-milliseconds).
	MinSafeDownAfterMs = 5000
	// MinSafeFailoverTimeoutMs is the failover-timeout below which check
	// warns: the election timeout is min(10 s, failover-timeout) and the
	// promotion and replica-reconfiguration waits are bounded by it.
	MinSafeFailoverTimeoutMs = 10000
	// MaxEligibleLagSec is the replica lag (master INFO) above which check
	// considers a replica unfit for promotion.
	MaxEligibleLagSec = 10
)

// Probes is what check learned by asking the data nodes and announced
// addresses directly, for one master.
type Probes struct {
	MinReplicasToWrite int64             `json:"min_replicas_to_write"` // -1 unknown
	MinReplicasError   string            `json:"min_replicas_error,omitempty"`
	ReplicaReadOnly    map[string]string `json:"replica_read_only"` // replica addr -> yes/no ("" unknown)
	Unreachable        map[string]string `json:"unreachable"`       // announced addr -> error
}

// CheckInput is everything the lint rules look at.
type CheckInput struct {
	Status *Status            `json:"status"`
	Probes map[string]*Probes `json:"probes"` // by master name
}

// Lint applies every rule to in and returns the findings, sorted.
func Lint(in *CheckInput) []Finding {
	var fs []Finding
	add := func(sev Severity, rule, master, msg, evidence, fix string) {
		fs = append(fs, Finding{Severity: sev, Rule: rule, Master: master, Message: msg, Evidence: evidence, Fix: fix})
	}
	st := in.Status
	for _, s := range st.Sentinels {
		if !s.Reachable {
			add(Error, "sentinel-unreachable", "", "sentinel "+s.Addr+" does not answer", s.Error,
				"start it or fix the address; clients configured with it lose a discovery entry point")
		}
	}
	if len(st.Masters) == 0 {
		add(Error, "no-master", "", "the given sentinels monitor no master (or not the one named)", "SENTINEL MASTERS / MASTER returned nothing usable",
			"check the master name and the sentinel addresses")
	}
	for i := range st.Masters {
		m := &st.Masters[i]
		p := in.Probes[m.Name]
		if p == nil {
			p = &Probes{MinReplicasToWrite: -1}
		}
		lintMaster(m, p, add)
	}
	SortFindings(fs)
	return fs
}

type addFunc func(sev Severity, rule, master, msg, evidence, fix string)

func lintMaster(m *MasterStatus, p *Probes, add addFunc) {
	n := m.Name
	for _, d := range m.Disagreements {
		add(Error, "sentinels-disagree", n, "sentinels do not agree about "+n, d,
			"look for a partition or a sentinel with a stale config; SENTINEL RESET "+n+" on the odd one once the network is healthy")
	}
	if m.Source == "" {
		return
	}
	if strings.Contains(m.Flags, "s_down") || strings.Contains(m.Flags, "o_down") {
		add(Error, "master-down", n, "the master is flagged down", "flags="+m.Flags, "restore the master or let the failover complete")
	}
	if m.FailoverState != "" {
		add(Info, "failover-in-progress", n, "a failover is in progress", "failover-state="+m.FailoverState, "re-run check once it completes")
	}
	lintSentinels(m, add)
	lintQuorum(m, add)
	lintReplicas(m, p, add)
	if m.DownAfterMs > 0 && m.DownAfterMs < MinSafeDownAfterMs {
		add(Warning, "down-after-low", n, fmt.Sprintf("down-after-milliseconds is below %d ms", MinSafeDownAfterMs),
			fmt.Sprintf("down-after-milliseconds=%d", m.DownAfterMs),
			"set it above the network's normal latency spikes (measure them; 5000-30000 ms is usual): SENTINEL SET "+n+" down-after-milliseconds 5000")
	}
	if m.FailoverTimeout > 0 && m.FailoverTimeout < MinSafeFailoverTimeoutMs {
		add(Warning, "failover-timeout-low", n, fmt.Sprintf("failover-timeout is below %d ms", MinSafeFailoverTimeoutMs),
			fmt.Sprintf("failover-timeout=%d", m.FailoverTimeout),
			"elections, promotion and replica reconfiguration are cut short; SENTINEL SET "+n+" failover-timeout 60000")
	}
	switch {
	case p.MinReplicasError != "":
		add(Info, "min-replicas-unknown", n, "could not read min-replicas-to-write on the master", p.MinReplicasError,
			"check it by hand (CONFIG GET min-replicas-to-write); CONFIG may be renamed or denied by ACL")
	case p.MinReplicasToWrite == 0:
		add(Warning, "min-replicas-off", n, "min-replicas-to-write is 0 on the master: a partitioned old master keeps accepting writes that are lost when it is demoted",
			"CONFIG GET min-replicas-to-write = 0 on "+m.Addr,
			"set min-replicas-to-write 1 and min-replicas-max-lag 10 on master and replicas (bounds data loss in a split brain; Redis docs, Sentinel, 'Example 2: basic setup with three boxes')")
	}
	addrs := make([]string, 0, len(p.Unreachable))
	for a := range p.Unreachable {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	for _, a := range addrs {
		sev, what := Warning, "announced address"
		if a == m.Addr {
			sev, what = Error, "master address"
		}
		add(sev, "address-unreachable", n, what+" "+a+" does not answer from here", p.Unreachable[a],
			"if it runs behind NAT/containers, set replica-announce-ip/port or sentinel announce-ip/port to a routable address (Redis docs, Sentinel, 'Sentinel, Docker, NAT, and possible issues'); otherwise restore it")
	}
}

func lintSentinels(m *MasterStatus, add addFunc) {
	n, k := m.Name, m.KnownSentinels
	switch {
	case k < 3:
		add(Error, "sentinel-count", n, fmt.Sprintf("only %d sentinel(s) monitor %s", k, n),
			fmt.Sprintf("num-other-sentinels+1 = %d", k),
			"run at least three sentinels in independent failure domains: with two, losing one (often with the master's host) leaves no majority to authorise a failover (Redis docs, Sentinel, 'Fundamental things to know about Sentinel before deploying')")
	case k%2 == 0:
		add(Warning, "sentinel-count-even", n, fmt.Sprintf("an even number of sentinels (%d)", k),
			fmt.Sprintf("majority is %d of %d: the extra sentinel adds no failure tolerance", m.Majority, k),
			"use an odd number (3, 5)")
	}
	var downPeers []string
	for _, s := range m.Peers {
		// Only s_down: "disconnected" alone is normal for a moment after a
		// peer is discovered, and a peer that stays unreachable turns s_down.
		if strings.Contains(s.Flags, "s_down") {
			downPeers = append(downPeers, s.Addr+" ("+s.Flags+")")
		}
	}
	if len(downPeers) > 0 {
		add(Warning, "sentinel-peer-down", n, fmt.Sprintf("%d known sentinel(s) are down", len(downPeers)),
			strings.Join(downPeers, ", "),
			"restart them or fix connectivity; remove a decommissioned sentinel with SENTINEL RESET "+n+" on every sentinel")
	}
	hosts := map[string][]string{}
	for _, s := range m.Peers {
		h, _, err := net.SplitHostPort(s.Addr)
		if err != nil {
			continue
		}
		hosts[h] = append(hosts[h], s.Addr)
	}
	keys := make([]string, 0, len(hosts))
	for h := range hosts {
		keys = append(keys, h)
	}
	sort.Strings(keys)
	for _, h := range keys {
		if len(hosts[h]) > 1 {
			add(Warning, "sentinels-same-host", n, fmt.Sprintf("%d sentinels share host %s", len(hosts[h]), h),
				strings.Join(hosts[h], ", "),
				"place sentinels on separate hosts/zones: one host failure must not take out a majority (Redis docs, Sentinel, 'Fundamental things to know about Sentinel before deploying')")
		}
	}
	if mh, _, err := net.SplitHostPort(m.Addr); err == nil && len(hosts[mh]) > 0 && len(hosts) > 1 {
		add(Info, "sentinel-with-master", n, "a sentinel runs on the master's host", strings.Join(hosts[mh], ", "),
			"a host failure then removes the master and a voter at once; prefer sentinels on application or dedicated hosts")
	}
}

func lintQuorum(m *MasterStatus, add addFunc) {
	n := m.Name
	ev := fmt.Sprintf("quorum=%d, known sentinels=%d, majority=%d", m.Quorum, m.KnownSentinels, m.Majority)
	switch {
	case m.Quorum > m.KnownSentinels:
		add(Error, "quorum-unreachable", n, "quorum is larger than the number of sentinels: ODOWN can never be reached", ev,
			fmt.Sprintf("SENTINEL SET %s quorum %d (the majority)", n, m.Majority))
	case m.Quorum > m.Majority:
		add(Warning, "quorum-above-majority", n, "quorum is above the majority: fewer sentinel failures block failover than needed", ev,
			fmt.Sprintf("SENTINEL SET %s quorum %d unless you want ODOWN to need more agreement", n, m.Majority))
	}
	if m.Quorum < 2 {
		add(Warning, "quorum-low", n, "quorum below 2: a single sentinel's view (e.g. its own network trouble) declares the master objectively down", ev,
			fmt.Sprintf("SENTINEL SET %s quorum %d", n, max(2, m.Majority)))
	}
	if !m.CKQuorumOK {
		add(Error, "ckquorum", n, "SENTINEL CKQUORUM fails: a failover could not be authorised now", m.CKQuorum,
			"bring sentinels back or fix their connectivity until CKQUORUM answers OK (Redis docs, Sentinel, 'Sentinel commands': SENTINEL CKQUORUM)")
	}
}

func lintReplicas(m *MasterStatus, p *Probes, add addFunc) {
	n := m.Name
	var reasons []string
	eligible := 0
	for _, r := range m.Replicas {
		why := ineligible(r, m.DownAfterMs)
		if why == "" {
			eligible++
			continue
		}
		reasons = append(reasons, r.Addr+": "+why)
	}
	if eligible == 0 {
		ev := "no replica known"
		if len(reasons) > 0 {
			ev = strings.Join(reasons, "; ")
		}
		add(Error, "no-eligible-replica", n, "no replica can be promoted: a master failure would not be repaired", ev,
			"add a replica with replica-priority > 0 that is linked and up to date (Redis docs, Sentinel, 'Replica selection and priority')")
	}
	for _, r := range m.Replicas {
		if p.ReplicaReadOnly[r.Addr] == "no" {
			add(Warning, "replica-writable", n, "replica "+r.Addr+" accepts writes", "CONFIG GET replica-read-only = no",
				"set replica-read-only yes: writes to a replica are silently overwritten by replication and vanish at promotion")
		}
	}
}

// ineligible returns why a replica cannot be promoted, or "".
func ineligible(r ReplicaStatus, downAfterMs int64) string {
	var why []string
	if r.Priority == 0 {
		why = append(why, "replica-priority 0")
	}
	for _, f := range []string{"s_down", "o_down", "disconnected"} {
		if strings.Contains(r.Flags, f) {
			why = append(why, "flag "+f)
		}
	}
	if r.LinkStatus != "" && r.LinkStatus != "ok" && r.LinkDownMs > downAfterMs*10 {
		why = append(why, fmt.Sprintf("link to master down for %d ms", r.LinkDownMs))
	}
	if r.LagSec > MaxEligibleLagSec {
		why = append(why, fmt.Sprintf("lagging %d s", r.LagSec))
	}
	return strings.Join(why, ", ")
}
