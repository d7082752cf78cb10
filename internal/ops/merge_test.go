package ops

import (
	"strings"
	"testing"
)

func view(addr, masterAddr string, epoch string) SentinelView {
	ip, port, _ := strings.Cut(masterAddr, ":")
	return SentinelView{Addr: addr, MyID: "id-" + addr, Masters: []MasterView{{
		Name:   "mym",
		Master: map[string]string{"name": "mym", "ip": ip, "port": port, "flags": "master", "config-epoch": epoch, "quorum": "2", "num-other-sentinels": "2"},
		Replicas: []map[string]string{
			{"ip": "10.0.0.3", "port": "6379", "flags": "slave", "slave-priority": "100", "slave-repl-offset": "90", "master-link-status": "ok", "master-host": ip, "master-port": port},
		},
		Sentinels:  []map[string]string{{"ip": "10.0.1.2", "port": "26379", "runid": "x", "flags": "sentinel", "last-hello-message": "120"}},
		CKQuorumOK: true,
	}}}
}

func TestMerge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		views    []SentinelView
		addr     string
		source   string
		disagree []string // substrings, in order
		healthy  bool
	}{
		{"agree", []SentinelView{view("a", "10.0.0.1:6379", "1"), view("b", "10.0.0.1:6379", "1")}, "10.0.0.1:6379", "a", nil, true},
		{"address and epoch differ: highest epoch wins", []SentinelView{view("a", "10.0.0.1:6379", "1"), view("b", "10.0.0.2:6379", "2")},
			"10.0.0.2:6379", "b", []string{"master address differs: 10.0.0.1:6379 per a; 10.0.0.2:6379 per b", "config epoch differs: epoch 1 per a; epoch 2 per b"}, false},
		{"unknown master", []SentinelView{view("a", "10.0.0.1:6379", "1"), {Addr: "b", Masters: []MasterView{{Name: "mym", Unknown: true}}}},
			"10.0.0.1:6379", "a", []string{"sentinel b: does not monitor mym"}, false},
		{"unreachable sentinel is not a disagreement", []SentinelView{view("a", "10.0.0.1:6379", "1"), {Addr: "b", Error: "refused"}},
			"10.0.0.1:6379", "a", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := Merge(tc.views)
			if len(st.Masters) != 1 {
				t.Fatalf("masters = %d", len(st.Masters))
			}
			m := st.Masters[0]
			if m.Addr != tc.addr || m.Source != tc.source {
				t.Errorf("addr %s source %s, want %s %s", m.Addr, m.Source, tc.addr, tc.source)
			}
			if len(m.Disagreements) != len(tc.disagree) {
				t.Fatalf("disagreements = %q, want %q", m.Disagreements, tc.disagree)
			}
			for i, d := range tc.disagree {
				if !strings.Contains(m.Disagreements[i], d) {
					t.Errorf("disagreement %d = %q, want %q", i, m.Disagreements[i], d)
				}
			}
			if st.Healthy() != tc.healthy {
				t.Errorf("Healthy = %v, want %v", st.Healthy(), tc.healthy)
			}
			if m.KnownSentinels != 3 || m.Majority != 2 || m.FailoverNeeds != 2 || len(m.Peers) != 2 || len(m.Replicas) != 1 {
				t.Errorf("derived fields wrong: %+v", m)
			}
			if r := m.Replicas[0]; r.Addr != "10.0.0.3:6379" || r.Priority != 100 || r.Offset != 90 || r.Behind != -1 {
				t.Errorf("replica = %+v", r)
			}
		})
	}
}

func TestReplyMap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want map[string]string
		err  bool
	}{
		{[]any{"name", "mym", "port", int64(6379)}, map[string]string{"name": "mym", "port": "6379"}, false},
		{map[any]any{"name": "mym", "x": nil}, map[string]string{"name": "mym", "x": ""}, false},
		{map[string]any{"a": []byte("b")}, map[string]string{"a": "b"}, false},
		{[]any{"odd"}, nil, true},
		{"scalar", nil, true},
	}
	for i, tc := range tests {
		got, err := replyMap(tc.in)
		if (err != nil) != tc.err || len(got) != len(tc.want) {
			t.Errorf("case %d: %v %v", i, got, err)
			continue
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("case %d: %s=%q, want %q", i, k, got[k], v)
			}
		}
	}
	if _, err := replyMaps([]any{[]any{"a"}}); err == nil {
		t.Error("replyMaps accepted a bad element")
	}
	if _, err := replyMaps("x"); err == nil {
		t.Error("replyMaps accepted a scalar")
	}
	m := map[string]string{"n": "12", "bad": "x"}
	if atoi(m, "n", -1) != 12 || atoi(m, "bad", -1) != -1 || atoi(m, "missing", 7) != 7 {
		t.Error("atoi")
	}
}

func TestParseReplicationInfo(t *testing.T) {
	t.Parallel()
	info := "# Replication\r\nrole:master\r\nconnected_slaves:2\r\n" +
		"slave0:ip=10.0.0.2,port=6379,state=online,offset=980,lag=0\r\n" +
		"slave1:ip=10.0.0.3,port=6380,state=wait_bgsave,offset=x,lag=3\r\n" +
		"master_repl_offset:1000\r\nslave_read_only:1\r\ngarbage\r\n"
	ri := ParseReplicationInfo(info)
	if ri.Role != "master" || ri.Offset != 1000 || len(ri.Replicas) != 2 {
		t.Fatalf("parsed %+v", ri)
	}
	if r := ri.Replicas["10.0.0.2:6379"]; r.State != "online" || r.Offset != 980 || r.Lag != 0 {
		t.Errorf("slave0 = %+v", r)
	}
	if r := ri.Replicas["10.0.0.3:6380"]; r.Offset != -1 || r.Lag != 3 {
		t.Errorf("slave1 = %+v", r)
	}
	if ParseReplicationInfo("").Offset != -1 {
		t.Error("empty INFO must give offset -1")
	}
}
