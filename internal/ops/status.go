package ops

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
)

// Status is the merged picture of a deployment, built from every sentinel's
// view (see Gather) and, where reachable, the master's INFO replication.
type Status struct {
	Sentinels []SentinelState `json:"sentinels"` // the sentinels we asked
	Masters   []MasterStatus  `json:"masters"`
}

// SentinelState is one asked sentinel's reachability.
type SentinelState struct {
	Addr      string `json:"addr"`
	MyID      string `json:"myid,omitempty"`
	Reachable bool   `json:"reachable"`
	Error     string `json:"error,omitempty"`
}

// MasterStatus is the status of one monitored master.
type MasterStatus struct {
	Name            string          `json:"name"`
	Addr            string          `json:"addr"` // from the view with the highest config epoch
	Flags           string          `json:"flags"`
	ConfigEpoch     int64           `json:"config_epoch"`
	Quorum          int             `json:"quorum"`
	KnownSentinels  int             `json:"known_sentinels"` // num-other-sentinels + 1
	Majority        int             `json:"majority"`        // floor(known/2)+1
	FailoverNeeds   int             `json:"failover_needs"`  // max(quorum, majority)
	DownAfterMs     int64           `json:"down_after_ms"`
	FailoverTimeout int64           `json:"failover_timeout_ms"`
	ParallelSyncs   int64           `json:"parallel_syncs"`
	FailoverState   string          `json:"failover_state,omitempty"`
	CKQuorum        string          `json:"ckquorum"`
	CKQuorumOK      bool            `json:"ckquorum_ok"`
	MasterOffset    int64           `json:"master_repl_offset"` // -1 when the master could not be asked
	MasterInfoError string          `json:"master_info_error,omitempty"`
	Replicas        []ReplicaStatus `json:"replicas"`
	Peers           []PeerStatus    `json:"sentinels"` // all sentinels known for this master, incl. the reporter
	Opinions        []Opinion       `json:"opinions"`  // what each asked sentinel says
	Disagreements   []string        `json:"disagreements"`
	Source          string          `json:"source"` // the sentinel whose view is shown
}

// ReplicaStatus is one replica as the reporting sentinel sees it, completed
// with the master's INFO replication when available.
type ReplicaStatus struct {
	Addr         string `json:"addr"`
	Flags        string `json:"flags"`
	RoleReported string `json:"role_reported"`
	LinkStatus   string `json:"master_link_status"`
	LinkDownMs   int64  `json:"master_link_down_ms"`
	MasterAddr   string `json:"master_addr"` // whom it replicates from
	Priority     int64  `json:"priority"`
	Offset       int64  `json:"offset"`
	Behind       int64  `json:"behind_bytes"` // master offset - offset, -1 unknown
	LagSec       int64  `json:"lag_sec"`      // from the master's INFO, -1 unknown
}

// PeerStatus is one sentinel monitoring the master.
type PeerStatus struct {
	Addr         string `json:"addr"`
	RunID        string `json:"runid"`
	Flags        string `json:"flags"`
	LastHelloMs  int64  `json:"last_hello_ms"` // -1 for the reporting sentinel itself
	VotedLeader  string `json:"voted_leader,omitempty"`
	IsReporter   bool   `json:"reporter"`
	LastOKPingMs int64  `json:"last_ok_ping_ms"`
}

// Opinion is what one asked sentinel reports about a master.
type Opinion struct {
	Sentinel    string `json:"sentinel"`
	Addr        string `json:"addr,omitempty"`
	ConfigEpoch int64  `json:"config_epoch"`
	Flags       string `json:"flags,omitempty"`
	Error       string `json:"error,omitempty"`
}

// Merge combines sentinel views into a Status. For each master the view with
// the highest config epoch (ties: first asked) is shown; every difference
// in master address or config epoch between sentinels is listed as a
// disagreement, as is a sentinel that does not know the master.
func Merge(views []SentinelView) *Status {
	st := &Status{}
	byName := map[string][]int{} // master name -> indexes into views
	var names []string
	for i, v := range views {
		st.Sentinels = append(st.Sentinels, SentinelState{Addr: v.Addr, MyID: v.MyID, Reachable: v.Error == "", Error: v.Error})
		for _, m := range v.Masters {
			if _, ok := byName[m.Name]; !ok {
				names = append(names, m.Name)
			}
			byName[m.Name] = append(byName[m.Name], i)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		st.Masters = append(st.Masters, mergeMaster(n, views))
	}
	return st
}

func findMaster(v SentinelView, name string) (MasterView, bool) {
	for _, m := range v.Masters {
		if m.Name == name {
			return m, true
		}
	}
	return MasterView{}, false
}

func masterAddr(m map[string]string) string {
	if m["ip"] == "" {
		return ""
	}
	return net.JoinHostPort(m["ip"], m["port"])
}

func mergeMaster(name string, views []SentinelView) MasterStatus {
	ms := MasterStatus{Name: name, MasterOffset: -1, Replicas: []ReplicaStatus{}, Peers: []PeerStatus{}, Disagreements: []string{}}
	best, bestEpoch := -1, int64(-1)
	for i, v := range views {
		op := Opinion{Sentinel: v.Addr}
		mv, ok := findMaster(v, name)
		switch {
		case v.Error != "":
			op.Error = "unreachable: " + v.Error
		case !ok || mv.Unknown:
			op.Error = "does not monitor " + name
		case mv.Master == nil:
			op.Error = mv.Error
		default:
			op.Addr = masterAddr(mv.Master)
			op.ConfigEpoch = atoi(mv.Master, "config-epoch", 0)
			op.Flags = mv.Master["flags"]
			if op.ConfigEpoch > bestEpoch {
				best, bestEpoch = i, op.ConfigEpoch
			}
		}
		ms.Opinions = append(ms.Opinions, op)
	}
	ms.Disagreements = disagreements(name, ms.Opinions)
	if best < 0 {
		return ms
	}
	mv, _ := findMaster(views[best], name)
	m := mv.Master
	ms.Source = views[best].Addr
	ms.Addr = masterAddr(m)
	ms.Flags = m["flags"]
	ms.ConfigEpoch = atoi(m, "config-epoch", 0)
	ms.Quorum = int(atoi(m, "quorum", 0))
	ms.KnownSentinels = int(atoi(m, "num-other-sentinels", 0)) + 1
	ms.Majority = ms.KnownSentinels/2 + 1
	ms.FailoverNeeds = max(ms.Quorum, ms.Majority)
	ms.DownAfterMs = atoi(m, "down-after-milliseconds", 0)
	ms.FailoverTimeout = atoi(m, "failover-timeout", 0)
	ms.ParallelSyncs = atoi(m, "parallel-syncs", 0)
	ms.FailoverState = m["failover-state"]
	ms.CKQuorum, ms.CKQuorumOK = mv.CKQuorum, mv.CKQuorumOK
	for _, r := range mv.Replicas {
		ms.Replicas = append(ms.Replicas, ReplicaStatus{
			Addr:         masterAddr(r),
			Flags:        r["flags"],
			RoleReported: r["role-reported"],
			LinkStatus:   r["master-link-status"],
			LinkDownMs:   atoi(r, "master-link-down-time", 0),
			MasterAddr:   net.JoinHostPort(r["master-host"], r["master-port"]),
			Priority:     atoi(r, "slave-priority", -1),
			Offset:       atoi(r, "slave-repl-offset", 0),
			Behind:       -1,
			LagSec:       -1,
		})
	}
	sort.Slice(ms.Replicas, func(i, j int) bool { return ms.Replicas[i].Addr < ms.Replicas[j].Addr })
	ms.Peers = append(ms.Peers, PeerStatus{Addr: views[best].Addr, RunID: views[best].MyID, Flags: "sentinel", LastHelloMs: -1, IsReporter: true})
	for _, s := range mv.Sentinels {
		ms.Peers = append(ms.Peers, PeerStatus{
			Addr:         masterAddr(s),
			RunID:        s["runid"],
			Flags:        s["flags"],
			LastHelloMs:  atoi(s, "last-hello-message", -1),
			VotedLeader:  s["voted-leader"],
			LastOKPingMs: atoi(s, "last-ok-ping-reply", -1),
		})
	}
	return ms
}

// disagreements lists differences between the sentinels' opinions.
func disagreements(name string, ops []Opinion) []string {
	out := []string{}
	addrs := map[string][]string{}
	epochs := map[int64][]string{}
	for _, op := range ops {
		if op.Error != "" {
			if !strings.HasPrefix(op.Error, "unreachable") {
				out = append(out, fmt.Sprintf("sentinel %s: %s", op.Sentinel, op.Error))
			}
			continue
		}
		addrs[op.Addr] = append(addrs[op.Addr], op.Sentinel)
		epochs[op.ConfigEpoch] = append(epochs[op.ConfigEpoch], op.Sentinel)
	}
	if len(addrs) > 1 {
		out = append(out, "master address differs: "+describeGroups(addrs))
	}
	if len(epochs) > 1 {
		g := map[string][]string{}
		for e, s := range epochs {
			g["epoch "+strconv.FormatInt(e, 10)] = s
		}
		out = append(out, "config epoch differs: "+describeGroups(g))
	}
	return out
}

func describeGroups(g map[string][]string) string {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s per %s", k, strings.Join(g[k], ",")))
	}
	return strings.Join(parts, "; ")
}

// GetStatus gathers views from every sentinel, merges them and completes
// replica offsets and lag from each master's INFO replication.
func GetStatus(ctx context.Context, o *ConnOptions, name string) (*Status, []SentinelView, error) {
	views, err := Gather(ctx, o, name)
	if err != nil {
		return nil, nil, fmt.Errorf("gather: %w", err)
	}
	st := Merge(views)
	for i := range st.Masters {
		addReplicationInfo(ctx, o, &st.Masters[i])
	}
	return st, views, nil
}

func addReplicationInfo(ctx context.Context, o *ConnOptions, ms *MasterStatus) {
	if ms.Addr == "" {
		return
	}
	c, err := o.NodeClient(ms.Addr)
	if err != nil {
		ms.MasterInfoError = err.Error()
		return
	}
	defer c.Close()
	info, err := c.Info(ctx, "replication").Result()
	if err != nil {
		ms.MasterInfoError = fmt.Sprintf("INFO replication on %s: %v", ms.Addr, err)
		return
	}
	ri := ParseReplicationInfo(info)
	ms.MasterOffset = ri.Offset
	for i := range ms.Replicas {
		r := &ms.Replicas[i]
		if ms.MasterOffset >= 0 {
			r.Behind = max(ms.MasterOffset-r.Offset, 0)
		}
		if s, ok := ri.Replicas[r.Addr]; ok {
			r.LagSec = s.Lag
		}
	}
}

// Healthy reports whether every asked sentinel answered and no master shows
// a disagreement between sentinels.
func (st *Status) Healthy() bool {
	for _, s := range st.Sentinels {
		if !s.Reachable {
			return false
		}
	}
	for _, m := range st.Masters {
		if len(m.Disagreements) > 0 {
			return false
		}
	}
	return len(st.Masters) > 0
}
