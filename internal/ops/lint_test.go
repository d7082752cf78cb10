package ops

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// goodMaster is a healthy master on three hosts; tests mutate copies.
func goodMaster() MasterStatus {
	return MasterStatus{
		Name: "mym", Addr: "10.0.0.1:6379", Flags: "master", ConfigEpoch: 1, Quorum: 2,
		KnownSentinels: 3, Majority: 2, FailoverNeeds: 2, DownAfterMs: 5000, FailoverTimeout: 60000,
		CKQuorum: "OK 3 usable Sentinels.", CKQuorumOK: true, Source: "10.0.1.1:26379",
		Replicas: []ReplicaStatus{
			{Addr: "10.0.0.2:6379", Flags: "slave", LinkStatus: "ok", Priority: 100, LagSec: 0},
			{Addr: "10.0.0.3:6379", Flags: "slave", LinkStatus: "ok", Priority: 100, LagSec: 1},
		},
		Peers: []PeerStatus{{Addr: "10.0.1.1:26379", IsReporter: true}, {Addr: "10.0.1.2:26379"}, {Addr: "10.0.1.3:26379"}},
	}
}

func goodProbes() *Probes {
	return &Probes{MinReplicasToWrite: 1, ReplicaReadOnly: map[string]string{"10.0.0.2:6379": "yes", "10.0.0.3:6379": "yes"}, Unreachable: map[string]string{}}
}

func TestLintRules(t *testing.T) {
	t.Parallel()
	type want struct {
		rule string
		sev  Severity
	}
	tests := []struct {
		name   string
		mutate func(m *MasterStatus, p *Probes, st *Status)
		want   []want // exactly these findings
		exit   int
	}{
		{"healthy", func(*MasterStatus, *Probes, *Status) {}, nil, 0},
		{"two sentinels", func(m *MasterStatus, _ *Probes, _ *Status) {
			m.KnownSentinels, m.Majority, m.Peers = 2, 2, m.Peers[:2]
		}, []want{{"sentinel-count", Error}}, 2},
		{"four sentinels", func(m *MasterStatus, _ *Probes, _ *Status) {
			m.KnownSentinels, m.Majority = 4, 3
			m.Quorum = 3
			m.Peers = append(m.Peers, PeerStatus{Addr: "10.0.1.4:26379"})
		}, []want{{"sentinel-count-even", Warning}}, 1},
		{"same host", func(m *MasterStatus, _ *Probes, _ *Status) {
			m.Peers[1].Addr = "10.0.1.1:26380"
		}, []want{{"sentinels-same-host", Warning}}, 1},
		{"sentinel with master", func(m *MasterStatus, _ *Probes, _ *Status) {
			m.Peers[2].Addr = "10.0.0.1:26379"
		}, []want{{"sentinel-with-master", Info}}, 0},
		{"peer sentinel down", func(m *MasterStatus, _ *Probes, _ *Status) {
			m.Peers[2].Flags = "s_down,sentinel,disconnected"
		}, []want{{"sentinel-peer-down", Warning}}, 1},
		{"peer sentinel just discovered", func(m *MasterStatus, _ *Probes, _ *Status) {
			m.Peers[2].Flags = "sentinel,disconnected"
		}, nil, 0},
		{"quorum 1", func(m *MasterStatus, _ *Probes, _ *Status) { m.Quorum = 1 }, []want{{"quorum-low", Warning}}, 1},
		{"quorum above majority", func(m *MasterStatus, _ *Probes, _ *Status) { m.Quorum = 3 }, []want{{"quorum-above-majority", Warning}}, 1},
		{"quorum above sentinels", func(m *MasterStatus, _ *Probes, _ *Status) { m.Quorum = 4 }, []want{{"quorum-unreachable", Error}}, 2},
		{"ckquorum fails", func(m *MasterStatus, _ *Probes, _ *Status) {
			m.CKQuorumOK, m.CKQuorum = false, "NOQUORUM 1 usable Sentinels."
		}, []want{{"ckquorum", Error}}, 2},
		{"all priority 0", func(m *MasterStatus, _ *Probes, _ *Status) {
			m.Replicas[0].Priority, m.Replicas[1].Priority = 0, 0
		}, []want{{"no-eligible-replica", Error}}, 2},
		{"one replica down one lagging", func(m *MasterStatus, _ *Probes, _ *Status) {
			m.Replicas[0].Flags = "s_down,slave,disconnected"
			m.Replicas[1].LagSec = 60
		}, []want{{"no-eligible-replica", Error}}, 2},
		{"one eligible replica is enough", func(m *MasterStatus, _ *Probes, _ *Status) {
			m.Replicas[0].Priority = 0
		}, nil, 0},
		{"no replicas", func(m *MasterStatus, _ *Probes, _ *Status) { m.Replicas = nil }, []want{{"no-eligible-replica", Error}}, 2},
		{"link down long", func(m *MasterStatus, _ *Probes, _ *Status) {
			m.Replicas = m.Replicas[:1]
			m.Replicas[0].LinkStatus, m.Replicas[0].LinkDownMs = "err", 60000
		}, []want{{"no-eligible-replica", Error}}, 2},
		{"down-after low", func(m *MasterStatus, _ *Probes, _ *Status) { m.DownAfterMs = 1000 }, []want{{"down-after-low", Warning}}, 1},
		{"failover-timeout low", func(m *MasterStatus, _ *Probes, _ *Status) { m.FailoverTimeout = 3000 }, []want{{"failover-timeout-low", Warning}}, 1},
		{"min-replicas off", func(_ *MasterStatus, p *Probes, _ *Status) { p.MinReplicasToWrite = 0 }, []want{{"min-replicas-off", Warning}}, 1},
		{"min-replicas unknown", func(_ *MasterStatus, p *Probes, _ *Status) {
			p.MinReplicasToWrite, p.MinReplicasError = -1, "ERR unknown command 'CONFIG'"
		}, []want{{"min-replicas-unknown", Info}}, 0},
		{"writable replica", func(_ *MasterStatus, p *Probes, _ *Status) { p.ReplicaReadOnly["10.0.0.3:6379"] = "no" }, []want{{"replica-writable", Warning}}, 1},
		{"unreachable replica", func(_ *MasterStatus, p *Probes, _ *Status) { p.Unreachable["10.0.0.3:6379"] = "i/o timeout" }, []want{{"address-unreachable", Warning}}, 1},
		{"unreachable master", func(_ *MasterStatus, p *Probes, _ *Status) { p.Unreachable["10.0.0.1:6379"] = "refused" }, []want{{"address-unreachable", Error}}, 2},
		{"master down", func(m *MasterStatus, _ *Probes, _ *Status) { m.Flags = "s_down,o_down,master" }, []want{{"master-down", Error}}, 2},
		{"failover in progress", func(m *MasterStatus, _ *Probes, _ *Status) { m.FailoverState = "wait_promotion" }, []want{{"failover-in-progress", Info}}, 0},
		{"disagreement", func(m *MasterStatus, _ *Probes, _ *Status) {
			m.Disagreements = []string{"master address differs: 10.0.0.1:6379 per a; 10.0.0.2:6379 per b"}
		}, []want{{"sentinels-disagree", Error}}, 2},
		{"unreachable sentinel", func(_ *MasterStatus, _ *Probes, st *Status) {
			st.Sentinels = append(st.Sentinels, SentinelState{Addr: "10.0.1.9:26379", Error: "refused"})
		}, []want{{"sentinel-unreachable", Error}}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, p := goodMaster(), goodProbes()
			st := &Status{Sentinels: []SentinelState{{Addr: "10.0.1.1:26379", Reachable: true}}}
			tc.mutate(&m, p, st)
			st.Masters = []MasterStatus{m}
			fs := Lint(&CheckInput{Status: st, Probes: map[string]*Probes{"mym": p}})
			if len(fs) != len(tc.want) {
				t.Fatalf("findings %s, want %v", rules(fs), tc.want)
			}
			for i, w := range tc.want {
				if fs[i].Rule != w.rule || fs[i].Severity != w.sev {
					t.Errorf("finding %d = %s %s, want %s %s", i, fs[i].Severity, fs[i].Rule, w.sev, w.rule)
				}
				if fs[i].Message == "" || fs[i].Evidence == "" || fs[i].Fix == "" {
					t.Errorf("finding %s lacks message, evidence or fix: %+v", fs[i].Rule, fs[i])
				}
			}
			if got := ExitCode(fs); got != tc.exit {
				t.Errorf("exit = %d, want %d", got, tc.exit)
			}
		})
	}
}

func TestLintNoMaster(t *testing.T) {
	t.Parallel()
	fs := Lint(&CheckInput{Status: &Status{Sentinels: []SentinelState{{Addr: "a", Reachable: true}}}})
	if len(fs) != 1 || fs[0].Rule != "no-master" || ExitCode(fs) != 2 {
		t.Errorf("findings = %s", rules(fs))
	}
}

func TestFindingsHelpers(t *testing.T) {
	t.Parallel()
	fs := []Finding{
		{Severity: Info, Rule: "i", Message: "m"},
		{Severity: Error, Rule: "e", Master: "b", Message: "m"},
		{Severity: Warning, Rule: "w", Message: "m"},
		{Severity: Error, Rule: "e", Master: "a", Message: "m"},
	}
	SortFindings(fs)
	var order []string
	for _, f := range fs {
		order = append(order, f.Severity.String()+"/"+f.Master)
	}
	if strings.Join(order, " ") != "error/a error/b warning/ info/" {
		t.Errorf("order = %v", order)
	}
	tests := []struct {
		ignore []string
		exit   int
	}{
		{nil, 2}, {[]string{"e"}, 1}, {[]string{"e", "w"}, 0}, {[]string{"e", "w", "i"}, 0},
	}
	for _, tc := range tests {
		if got := ExitCode(FilterFindings(fs, tc.ignore)); got != tc.exit {
			t.Errorf("ignore %v: exit %d, want %d", tc.ignore, got, tc.exit)
		}
	}
	if len(fs) != 4 {
		t.Errorf("FilterFindings modified its input")
	}
	var buf bytes.Buffer
	WriteFindings(&buf, fs)
	if !strings.Contains(buf.String(), "2 error(s), 1 warning(s), 1 info") || !strings.Contains(buf.String(), "ERROR   e [a]: m") {
		t.Errorf("WriteFindings:\n%s", buf.String())
	}
	buf.Reset()
	WriteFindings(&buf, nil)
	if buf.String() != "no findings\n" {
		t.Errorf("empty: %q", buf.String())
	}
	b, err := json.Marshal(fs[0])
	if err != nil || !strings.Contains(string(b), `"severity":"error"`) {
		t.Errorf("JSON = %s, %v", b, err)
	}
	if Severity(9).String() != "severity(9)" {
		t.Errorf("unknown severity string")
	}
}
