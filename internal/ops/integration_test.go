package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

func TestStatusAndCheckHealthyDeployment(t *testing.T) {
	t.Parallel()
	d := startDeployment(t, deploySpec{sentinels: 3, quorum: 2, downAfterMs: 5000, failoverTimeout: 60000,
		masterExtra: []string{"min-replicas-to-write", "1", "min-replicas-max-lag", "10"}})
	ctx := context.Background()

	t.Run("status", func(t *testing.T) {
		st, _, err := GetStatus(ctx, d.conn, "")
		if err != nil {
			t.Fatal(err)
		}
		if !st.Healthy() || len(st.Masters) != 1 {
			t.Fatalf("status not healthy: %+v", st)
		}
		m := st.Masters[0]
		if m.Name != "mym" || m.Addr != d.top.Master.Addr() || m.Flags != "master" {
			t.Errorf("master = %s %s %s, want mym %s master", m.Name, m.Addr, m.Flags, d.top.Master.Addr())
		}
		if m.Quorum != 2 || m.KnownSentinels != 3 || m.Majority != 2 || m.FailoverNeeds != 2 {
			t.Errorf("quorum maths = q%d known%d maj%d needs%d, want 2 3 2 2", m.Quorum, m.KnownSentinels, m.Majority, m.FailoverNeeds)
		}
		var got []string
		for _, r := range m.Replicas {
			got = append(got, r.Addr)
			if r.LinkStatus != "ok" || r.Priority != 100 || r.Behind < 0 || r.LagSec < 0 {
				t.Errorf("replica %+v: want link ok, priority 100, known offset and lag", r)
			}
		}
		want := d.replicaAddrs()
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("replicas = %v, want %v", got, want)
		}
		if len(m.Peers) != 3 || !m.CKQuorumOK || len(m.Disagreements) != 0 {
			t.Errorf("peers=%d ckquorum=%v %q disagreements=%v", len(m.Peers), m.CKQuorumOK, m.CKQuorum, m.Disagreements)
		}

		var text bytes.Buffer
		if err := WriteStatus(&text, st); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"MASTER mym  " + d.top.Master.Addr() + "  flags=master", "quorum 2, known sentinels 3, majority 2", "sentinels agree", want[0], want[1]} {
			if !strings.Contains(text.String(), s) {
				t.Errorf("status text lacks %q:\n%s", s, text.String())
			}
		}
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		var back struct {
			Masters []struct {
				Name     string `json:"name"`
				Addr     string `json:"addr"`
				Replicas []struct {
					Addr string `json:"addr"`
				} `json:"replicas"`
				Sentinels []struct {
					Addr string `json:"addr"`
				} `json:"sentinels"`
			} `json:"masters"`
		}
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if len(back.Masters) != 1 || back.Masters[0].Addr != d.top.Master.Addr() || len(back.Masters[0].Replicas) != 2 || len(back.Masters[0].Sentinels) != 3 {
			t.Errorf("JSON content wrong: %s", b)
		}
	})

	t.Run("check", func(t *testing.T) {
		_, fs, err := Check(ctx, d.conn, "mym")
		if err != nil {
			t.Fatal(err)
		}
		// On one test machine the sentinels necessarily share a host.
		if !hasRule(fs, "sentinels-same-host", Warning) {
			t.Errorf("want sentinels-same-host warning, got %s", rules(fs))
		}
		fs = FilterFindings(fs, []string{"sentinels-same-host"})
		if ExitCode(fs) != 0 {
			t.Errorf("healthy deployment: findings %s, want none above info", rules(fs))
		}
	})

	t.Run("disagreement", func(t *testing.T) {
		// A fourth sentinel that monitors mym at a replica's address.
		odd := testutil.StartSentinel(t, testutil.SentinelConf("mym", d.top.Replicas[0].Port, 2, 5000, 60000))
		o := *d.conn
		o.Sentinels = append(slices.Clone(d.conn.Sentinels), odd.Addr())
		st, _, err := GetStatus(ctx, &o, "mym")
		if err != nil {
			t.Fatal(err)
		}
		if st.Healthy() || len(st.Masters) != 1 || len(st.Masters[0].Disagreements) == 0 {
			t.Fatalf("disagreement not flagged: %+v", st.Masters)
		}
		if d := st.Masters[0].Disagreements[0]; !strings.Contains(d, "master address differs") || !strings.Contains(d, odd.Addr()) {
			t.Errorf("disagreement = %q", d)
		}
	})
}

func TestCheckBadDeployment(t *testing.T) {
	t.Parallel()
	d := startDeployment(t, deploySpec{sentinels: 2, quorum: 1, downAfterMs: 1000, failoverTimeout: 5000,
		replicaExtra: [][]string{{"replica-priority 0"}, {"replica-priority 0", "replica-read-only no"}}})
	_, fs, err := Check(context.Background(), d.conn, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		rule string
		sev  Severity
	}{
		{"sentinel-count", Error},
		{"no-eligible-replica", Error},
		{"quorum-low", Warning},
		{"down-after-low", Warning},
		{"failover-timeout-low", Warning},
		{"min-replicas-off", Warning},
		{"replica-writable", Warning},
	} {
		if !hasRule(fs, want.rule, want.sev) {
			t.Errorf("missing %s %s; got %s", want.sev, want.rule, rules(fs))
		}
	}
	if hasRule(fs, "sentinel-count-even", Warning) {
		t.Errorf("two sentinels are reported as too few, not as even: %s", rules(fs))
	}
	if got := ExitCode(fs); got != 2 {
		t.Errorf("exit code = %d, want 2", got)
	}
}

func TestWatchCapturesForcedFailover(t *testing.T) {
	t.Parallel()
	d := startDeployment(t, deploySpec{sentinels: 3, quorum: 2, downAfterMs: 5000, failoverTimeout: 60000})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tl := NewTimeline()
	var events []Event
	// Done when every sentinel has published +switch-master.
	switched := make(chan struct{})
	sources := map[string]bool{}
	ready, done, err := Watch(ctx, d.conn, func(e Event) {
		events = append(events, e)
		tl.Add(e)
		if e.Type == "+switch-master" && !sources[e.Source] {
			sources[e.Source] = true
			if len(sources) == len(d.sentinels) {
				close(switched)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); <-done })
	<-ready
	if _, err := SentinelFailover(ctx, d.conn, "mym"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-switched:
	case <-ctx.Done():
		t.Fatalf("no +switch-master; events: %v", events)
	}
	cancel()
	<-done
	fo := tl.Failovers()
	if len(fo) != 1 || !fo[0].Complete || fo[0].From != d.top.Master.Addr() {
		t.Fatalf("failovers = %+v", fo)
	}
	var order []string
	for _, s := range fo[0].Steps {
		order = append(order, s.Type)
	}
	want := []string{"+try-failover", "+elected-leader", "+selected-slave", "+failover-state-wait-promotion", "+promoted-slave", "+switch-master"}
	// The leader's +failover-end may arrive after an observer's
	// +switch-master (and after the watch was cancelled): allowed at the end.
	if n := len(order); n == len(want)+1 && order[n-1] == "+failover-end" {
		order = order[:n-1]
	}
	if !slices.Equal(order, want) {
		t.Errorf("timeline = %v, want %v", order, want)
	}
	for i := 1; i < len(fo[0].Steps); i++ {
		if fo[0].Steps[i].Since < fo[0].Steps[i-1].Since {
			t.Errorf("timeline not monotonic: %+v", fo[0].Steps)
		}
	}
	if !slices.Contains(d.replicaAddrs(), fo[0].To) {
		t.Errorf("switched to %s, not a replica %v", fo[0].To, d.replicaAddrs())
	}
	if sw, _ := fo[0].StepAt("+switch-master"); sw.Seen != len(d.sentinels) {
		t.Errorf("+switch-master seen %d times in the timeline, want once per sentinel (%d)", sw.Seen, len(d.sentinels))
	}
}

func TestDrillSentinelFailover(t *testing.T) {
	t.Parallel()
	d := startDeployment(t, deploySpec{sentinels: 3, quorum: 2, downAfterMs: 5000, failoverTimeout: 60000})
	var progress bytes.Buffer
	rep, err := RunDrill(context.Background(), DrillOptions{Conn: d.conn, Master: "mym", Timeout: 20 * time.Second,
		Settle: 200 * time.Millisecond, Progress: &progress, MaxLost: -1})
	if err != nil {
		t.Fatalf("drill: %v\n%s", err, progress.String())
	}
	if !rep.Completed || !rep.Passed() {
		t.Fatalf("drill did not pass: %+v", rep)
	}
	if rep.Before != d.top.Master.Addr() || !slices.Contains(d.replicaAddrs(), rep.After) || rep.AfterRole != "master" {
		t.Errorf("before %s after %s (%s); want %s -> a replica", rep.Before, rep.After, rep.AfterRole, d.top.Master.Addr())
	}
	if rep.SwitchMs <= 0 || rep.Writes.OK < 50 || rep.Writes.AckedBy[rep.After] == 0 || rep.LostChecked != rep.Writes.OK {
		t.Errorf("figures: switch %.0f ms, writes %+v, lost checked %d", rep.SwitchMs, rep.Writes, rep.LostChecked)
	}
	if rep.Client != "gosentinel client" || rep.PoolFlushes < 0 {
		t.Errorf("client %q pool flushes %d", rep.Client, rep.PoolFlushes)
	}
	var text bytes.Buffer
	WriteDrillReport(&text, rep)
	if !strings.Contains(text.String(), "RESULT: passed") || !strings.Contains(text.String(), "+switch-master") {
		t.Errorf("report text:\n%s", text.String())
	}
}

func TestDemoWithRealSentinel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	t.Parallel()
	bin := testutil.Binary(t, "redis-sentinel")
	var out bytes.Buffer
	// Events on: progress and events share the buffer (serialised by RunDrill).
	rep, err := RunDemo(context.Background(), DemoOptions{SentinelBin: bin, Out: &out, Wait: 30 * time.Second, Events: true})
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	dr := rep.Drill
	if !dr.Completed || !dr.Passed() || dr.SdownMs <= 0 || dr.OdownMs < dr.SdownMs || dr.SwitchMs < dr.OdownMs {
		t.Errorf("demo figures: %+v\n%s", dr, out.String())
	}
	if !dr.Writes.GapFound || dr.Writes.GapMs <= 0 {
		t.Errorf("no client write gap measured: %+v", dr.Writes)
	}
	if _, err := os.Stat(rep.Dir); !os.IsNotExist(err) {
		t.Errorf("demo dir %s not removed: %v", rep.Dir, err)
	}
	if !strings.Contains(out.String(), "+switch-master") {
		t.Errorf("events not printed:\n%s", out.String())
	}
}

func TestDrillKillFindsMasterByPort(t *testing.T) {
	t.Parallel()
	d := startDeployment(t, deploySpec{sentinels: 3, quorum: 2, downAfterMs: 1000, failoverTimeout: 10000})
	var progress bytes.Buffer
	rep, err := RunDrill(context.Background(), DrillOptions{Conn: d.conn, Master: "mym", Kill: true, Timeout: 30 * time.Second,
		Settle: 200 * time.Millisecond, Progress: &progress, MaxLost: -1, NewClient: GoRedisClientFactory})
	if err != nil {
		t.Fatalf("drill: %v\n%s", err, progress.String())
	}
	if rep.KilledPID != d.top.Master.PID() {
		t.Errorf("killed PID %d, want the master's %d", rep.KilledPID, d.top.Master.PID())
	}
	select {
	case <-d.top.Master.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the master process is still running")
	}
	if !rep.Passed() || rep.SdownMs < 0 || rep.OdownMs < rep.SdownMs || rep.SwitchMs < rep.OdownMs {
		t.Errorf("report: passed=%v problems=%v sdown=%.0f odown=%.0f switch=%.0f", rep.Passed(), rep.Problems, rep.SdownMs, rep.OdownMs, rep.SwitchMs)
	}
	// Replication is asynchronous: writes the old master acknowledged in
	// the instants before the SIGKILL may not have reached any replica (on a
	// loaded machine a replica can be descheduled for the whole pre-kill
	// window). What must hold: nothing acknowledged by the new master is
	// lost, so the losses never exceed the old master's acknowledgements.
	if old := rep.Writes.AckedBy[rep.Before]; rep.LostChecked == 0 || rep.Lost > old {
		t.Errorf("lost %d of %d checked; the old master %s acknowledged %d", rep.Lost, rep.LostChecked, rep.Before, old)
	}
	if rep.Client != "go-redis FailoverClient" || rep.PoolFlushes != -1 || !rep.Writes.GapFound || rep.Writes.GapMs < 500 {
		t.Errorf("client %q flushes %d writes %+v", rep.Client, rep.PoolFlushes, rep.Writes)
	}
}
