package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// metricsNode is a gosentinel started with --metrics-addr 127.0.0.1:0.
type metricsNode struct {
	port    int
	conf    string
	log     string
	metrics string // host:port of /metrics, read from the log
}

func (n *metricsNode) addr() string { return "127.0.0.1:" + strconv.Itoa(n.port) }

func (n *metricsNode) logText() string {
	b, _ := os.ReadFile(n.log)
	return string(b)
}

var metricsLine = regexp.MustCompile(`Metrics listening on http://([^/\s"]+)/metrics`)

// startMetricsNode starts gosentinel on body (port, bind, logfile added)
// with extra arguments; it is killed (SIGKILL, by PID) in t.Cleanup.
func startMetricsNode(t *testing.T, body string, args ...string) *metricsNode {
	t.Helper()
	dir := t.TempDir()
	n := &metricsNode{port: testutil.FreePort(t), conf: filepath.Join(dir, "sentinel.conf"), log: filepath.Join(dir, "sentinel.log")}
	conf := fmt.Sprintf("port %d\nbind 127.0.0.1\nlogfile %s\n%s", n.port, strconv.Quote(n.log), body)
	if err := os.WriteFile(n.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{n.conf, "--metrics-addr", "127.0.0.1:0"}, args...)...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	// The metrics line is logged once the sentinel port is bound too (a
	// PING would not do: requirepass answers -NOAUTH).
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := metricsLine.FindStringSubmatch(n.logText()); m != nil {
			n.metrics = m[1]
			return n
		}
		select {
		case <-done:
			t.Fatalf("gosentinel exited:\n%s", n.logText())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no metrics address in the log within 10 s:\n%s", n.logText())
		}
		time.Sleep(10 * time.Millisecond) // poll: the log file has no event to await
	}
}

// scrape returns /metrics as series ("name{labels}" exactly as printed)
// → value.
func scrape(t *testing.T, hostport string) map[string]float64 {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + hostport + "/metrics")
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("scrape: %s: %s", resp.Status, b)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			t.Fatalf("bad exposition line %q", line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("bad value in %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// TestMetricsFailover: 3 gosentinels over a real master and 2 replicas;
// the series are checked at rest, then the master is SIGKILLed and the
// series must move (status, epochs, failover counters, phase durations,
// +switch-master, lost links). Sentinel 0 logs in JSON.
func TestMetricsFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	const name = "mym"
	top := testutil.StartTopology(t, 2)
	body := testutil.SentinelConf(name, top.Master.Port, 2, 1000, 3000)
	var nodes []*metricsNode
	for i := range 3 {
		var extra []string
		if i == 0 {
			extra = []string{"--log-format", "json"}
		}
		nodes = append(nodes, startMetricsNode(t, body, extra...))
	}
	for _, n := range nodes {
		c := sentinelClient(t, n.addr())
		if err := c.Do(context.Background(), "SENTINEL", "DEBUG", "publish-period", "200").Err(); err != nil {
			t.Fatal(err)
		}
	}
	m := `{master="mym"}`
	for _, n := range nodes {
		testutil.WaitFor(t, 20*time.Second, n.addr()+" sees 2 peers and 2 replicas in its metrics", func() bool {
			s := scrape(t, n.metrics)
			return s["gosentinel_master_known_sentinels"+m] == 2 && s["gosentinel_master_known_replicas"+m] == 2 &&
				s[`gosentinel_link_ping_rtt_seconds_count{kind="sentinel"}`] > 0
		})
	}
	atRest := []struct {
		series string
		want   float64
	}{
		{"gosentinel_snapshot_ok", 1},
		{`gosentinel_master_status{master="mym",status="ok"}`, 1},
		{`gosentinel_master_status{master="mym",status="sdown"}`, 0},
		{"gosentinel_master_quorum" + m, 2},
		{"gosentinel_master_quorum_reachable" + m, 1},
		{"gosentinel_master_majority_reachable" + m, 1},
		{"gosentinel_master_usable_sentinels" + m, 3},
		{"gosentinel_master_promotable_replicas" + m, 2},
		{"gosentinel_master_config_epoch" + m, 0},
		{"gosentinel_current_epoch", 0},
		{"gosentinel_tilt", 0},
		{"gosentinel_config_durable", 1},
		{`gosentinel_master_failover_state{master="mym",state="none"}`, 1},
		{`gosentinel_master_address_info{ip="127.0.0.1",master="mym",port="` + strconv.Itoa(top.Master.Port) + `"}`, 1},
		{`gosentinel_events_total{type="+monitor"}`, 1},
		{"gosentinel_failovers_started_total" + m, 0},
		{`gosentinel_failovers_succeeded_total{end="complete",master="mym"}`, 0},
		{"gosentinel_scripts_running", 0},
		{"gosentinel_scripts_queued", 0},
	}
	for i, n := range nodes {
		s := scrape(t, n.metrics)
		for _, c := range atRest {
			if v, ok := s[c.series]; !ok || v != c.want {
				t.Errorf("sentinel %d at rest: %s = %v (present %v), want %v", i, c.series, v, ok, c.want)
			}
		}
		for _, kind := range []string{"master", "slave", "sentinel"} {
			cnt := s[`gosentinel_link_ping_rtt_seconds_count{kind="`+kind+`"}`]
			sum := s[`gosentinel_link_ping_rtt_seconds_sum{kind="`+kind+`"}`]
			if cnt < 1 || sum <= 0 || sum/cnt > 0.5 {
				t.Errorf("sentinel %d: %s PING RTT count %v sum %v: want samples with a mean under 500 ms", i, kind, cnt, sum)
			}
		}
	}

	oldAddr := top.Master.Addr()
	start := time.Now()
	top.Master.Kill()
	testutil.WaitFor(t, 30*time.Second, "all sentinels agree on a new master and report +switch-master", func() bool {
		for _, n := range nodes {
			a, err := testutil.MasterAddr(n.addr(), name)
			if err != nil || a == oldAddr || scrape(t, n.metrics)["gosentinel_switch_master_total"+m] != 1 {
				return false
			}
		}
		return true
	})
	t.Logf("kill -> +switch-master counted by all 3: %v", time.Since(start))
	newAddr, _ := testutil.MasterAddr(nodes[0].addr(), name)
	_, newPort, _ := strings.Cut(newAddr, ":")

	// A sentinel that learns the new master from the leader's hello before
	// its own down-after expires emits +sdown only later, for the dead old
	// master, now one of its replicas: wait for it rather than race it.
	testutil.WaitFor(t, 15*time.Second, "+sdown counted by every sentinel", func() bool {
		for _, n := range nodes {
			if scrape(t, n.metrics)[`gosentinel_events_total{type="+sdown"}`] < 1 {
				return false
			}
		}
		return true
	})

	var succeeded, started float64
	leader := -1
	for i, n := range nodes {
		s := scrape(t, n.metrics)
		started += s["gosentinel_failovers_started_total"+m]
		done := s[`gosentinel_failovers_succeeded_total{end="complete",master="mym"}`] + s[`gosentinel_failovers_succeeded_total{end="timeout",master="mym"}`]
		succeeded += done
		if done == 1 {
			leader = i
		}
		after := []struct {
			series string
			ok     func(float64) bool
			want   string
		}{
			{"gosentinel_master_config_epoch" + m, func(v float64) bool { return v >= 1 }, ">= 1"},
			{"gosentinel_current_epoch", func(v float64) bool { return v >= 1 }, ">= 1"},
			{`gosentinel_master_address_info{ip="127.0.0.1",master="mym",port="` + newPort + `"}`, func(v float64) bool { return v == 1 }, "1"},
			{`gosentinel_events_total{type="+switch-master"}`, func(v float64) bool { return v == 1 }, "1"},
			{`gosentinel_link_disconnects_total{conn="cmd",kind="master"}`, func(v float64) bool { return v >= 1 }, ">= 1"},
		}
		for _, c := range after {
			if v, ok := s[c.series]; !ok || !c.ok(v) {
				t.Errorf("sentinel %d after failover: %s = %v (present %v), want %s", i, c.series, v, ok, c.want)
			}
		}
	}
	if succeeded != 1 || started < 1 || leader < 0 {
		t.Fatalf("failovers: %v started, %v succeeded (leader %d); want >= 1 started and exactly 1 succeeded", started, succeeded, leader)
	}
	s := scrape(t, nodes[leader].metrics)
	phases := map[string]float64{}
	for _, p := range []string{"election", "promotion", "reconfiguration", "total"} {
		v, ok := s[`gosentinel_last_failover_duration_seconds{master="mym",phase="`+p+`"}`]
		if !ok || v <= 0 || v > 30 {
			t.Errorf("leader: last failover %s = %v (present %v), want in (0, 30] s", p, v, ok)
		}
		phases[p] = v
	}
	if sum := phases["election"] + phases["promotion"] + phases["reconfiguration"]; sum > phases["total"]+1e-3 || sum < phases["total"]-1e-3 {
		t.Errorf("phases %v do not add up to the total", phases)
	}
	t.Logf("leader %d phases: %v", leader, phases)
	if os.Getenv("METRICS_DUMP") != "" {
		t.Logf("leader log:\n%s", nodes[leader].logText())
	}
	// The new master is watched and ok.
	for i, n := range nodes {
		testutil.WaitFor(t, 10*time.Second, fmt.Sprintf("sentinel %d reports the new master ok", i), func() bool {
			return scrape(t, n.metrics)[`gosentinel_master_status{master="mym",status="ok"}`] == 1
		})
	}
	checkJSONEvents(t, nodes[0].logText())
}

// checkJSONEvents checks that a --log-format json log is JSON lines and that
// events carry their fields, each logged once.
func checkJSONEvents(t *testing.T, log string) {
	t.Helper()
	type rec struct {
		Level string            `json:"level"`
		Msg   string            `json:"msg"`
		Event map[string]any    `json:"event"`
		Rest  map[string]string `json:"-"`
	}
	seen := map[string]int{}
	for line := range strings.SplitSeq(strings.TrimSpace(log), "\n") {
		var r rec
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line is not JSON: %v: %q", err, line)
		}
		if r.Event == nil {
			continue
		}
		typ, _ := r.Event["type"].(string)
		if !strings.HasPrefix(r.Msg, typ+" ") {
			t.Errorf("event %q with message %q", typ, r.Msg)
		}
		seen[typ]++
		switch typ {
		case "+sdown":
			if r.Event["master"] != "mym" || r.Event["kind"] == nil || r.Event["port"] == nil || r.Level != "warning" {
				t.Errorf("+sdown record lacks fields: %q", line)
			}
		case "+switch-master":
			if r.Event["master"] != "mym" {
				t.Errorf("+switch-master record lacks master: %q", line)
			}
		}
	}
	if seen["+switch-master"] != 1 || seen["+monitor"] != 1 || seen["+sdown"] < 1 {
		t.Errorf("events logged: %v; want +switch-master and +monitor once, +sdown", seen)
	}
}
