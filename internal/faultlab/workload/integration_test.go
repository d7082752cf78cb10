package workload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

const labMaster = "lab"

// labCluster is the loopback T3: a master, two replicas, three sentinels
// of one kind, with the fault lab's timers shortened (down-after 1 s).
type labCluster struct {
	top       *testutil.Topology
	sentinels []*testutil.Process
	redis     []Target
	sentTgts  []Target
}

func (c *labCluster) sentinelAddrs() []string {
	var out []string
	for _, s := range c.sentinels {
		out = append(out, s.Addr())
	}
	return out
}

func startLab(t *testing.T, bin string) *labCluster {
	t.Helper()
	c := &labCluster{top: testutil.StartTopology(t, 2)}
	for i, p := range append([]*testutil.Process{c.top.Master}, c.top.Replicas...) {
		c.redis = append(c.redis, Target{Name: "r" + strconv.Itoa(i+1), Addr: p.Addr()})
	}
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		dir := t.TempDir()
		port := testutil.FreePort(t)
		conf := filepath.Join(dir, "sentinel.conf")
		log := filepath.Join(dir, "sentinel.log")
		body := fmt.Sprintf("port %d\nbind 127.0.0.1\nlogfile %s\n%ssentinel parallel-syncs %s 1\n", port, strconv.Quote(log),
			testutil.SentinelConf(labMaster, c.top.Master.Port, 2, 1000, 10000), labMaster)
		if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		s := testutil.StartSentinelConf(t, bin, conf, port, log)
		sc := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, Protocol: 2})
		err := sc.Do(ctx, "SENTINEL", "DEBUG", "publish-period", "200", "info-period", "300").Err()
		sc.Close()
		if err != nil {
			t.Fatalf("SENTINEL DEBUG on %s: %v", s.Addr(), err)
		}
		c.sentinels = append(c.sentinels, s)
		c.sentTgts = append(c.sentTgts, Target{Name: "s" + strconv.Itoa(i+1), Addr: s.Addr()})
	}
	for _, s := range c.sentinels {
		testutil.WaitFor(t, 20*time.Second, "sentinel "+s.Addr()+" sees its peers and replicas", func() bool {
			m, err := testutil.SentinelMaster(s.Addr(), labMaster)
			return err == nil && m["num-other-sentinels"] == "2" && m["num-slaves"] == "2"
		})
	}
	return c
}

// converged returns nil when every sentinel names addr and every other
// redis replicates from it with its link up, else what is missing.
func (c *labCluster) converged(addr string, redisAddrs []string) error {
	for _, s := range c.sentinels {
		if a, err := testutil.MasterAddr(s.Addr(), labMaster); err != nil || a != addr {
			return fmt.Errorf("sentinel %s names %s (%v)", s.Addr(), a, err)
		}
	}
	_, port, _ := splitHostPort(addr)
	for _, r := range redisAddrs {
		info, err := testutil.Info(r, "replication")
		if err != nil {
			return fmt.Errorf("%s: %v", r, err)
		}
		if r == addr {
			if !contains(info, "role:master") {
				return fmt.Errorf("%s is not master: %s", r, info)
			}
			continue
		}
		if !contains(info, "role:slave") || !contains(info, "master_port:"+port) || !contains(info, "master_link_status:up") {
			return fmt.Errorf("%s does not replicate from %s: %s", r, addr, info)
		}
	}
	return nil
}

// TestLabKillMaster is the A1 shape on loopback with real processes: both
// writer kinds in three modes, SIGKILL of the master, failover, restart of
// the old master (heal), read-back and Check, against real redis-sentinel
// and against gosentinel.
func TestLabKillMaster(t *testing.T) {
	kinds := []struct {
		name, bin string
		real      bool
	}{
		{"redis-sentinel", "", true},
		{"gosentinel", gosentinelBin, false},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			bin := k.bin
			if bin == "" {
				bin = testutil.Binary(t, "redis-sentinel")
			}
			runKillMaster(t, bin, k.real)
		})
	}
}

// runKillMaster runs the A1 shape. real says the sentinels are Debian's
// redis-sentinel, which sometimes (≈3 %, reference §7) fails over a second
// time away from the freshly promoted master: the run then follows the
// final master and reports the extra failover instead of failing.
func runKillMaster(t *testing.T, bin string, real bool) {
	c := startLab(t, bin)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	var d Dialer = (&netDialer{}).DialContext
	smp, err := StartSampler(ctx, SamplerConfig{MasterName: labMaster, Redis: c.redis, Sentinels: c.sentTgts, Dialer: d})
	if err != nil {
		t.Fatal(err)
	}
	defer smp.Stop()
	specs := []WriterConfig{
		{Name: "gs-plain", Client: ClientGosentinel, Mode: ModePlain},
		{Name: "gr-plain", Client: ClientGoRedis, Mode: ModePlain},
		{Name: "gs-waitall", Client: ClientGosentinel, Mode: ModeWaitAll, Replicas: 2},
		{Name: "gr-wait1", Client: ClientGoRedis, Mode: ModeWait1},
	}
	var writers []*Writer
	for _, s := range specs {
		s.MasterName, s.Sentinels, s.Dialer, s.Rate, s.Keys = labMaster, c.sentinelAddrs(), d, 40, 4
		w, err := StartWriter(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		writers = append(writers, w)
		defer w.Stop()
	}
	for _, w := range writers {
		testutil.WaitFor(t, 10*time.Second, "writes acknowledged before the fault", func() bool { return w.Progress().OK >= 5 })
	}
	old := c.top.Master
	oldAddr := old.Addr()
	faultAt := time.Now()
	old.Kill()
	testutil.WaitFor(t, 20*time.Second, "the sentinels switch to a replica", func() bool {
		a, err := testutil.MasterAddr(c.sentinels[0].Addr(), labMaster)
		return err == nil && a != oldAddr
	})
	for _, w := range writers[:2] { // plain writers: waitall needs the old master back
		testutil.WaitFor(t, 15*time.Second, "writes acknowledged by the new master", func() bool {
			p := w.Progress()
			return p.LastOK.After(faultAt) && p.LastOKNode != "" && p.LastOKNode != oldAddr
		})
	}
	// Heal: the old master comes back (empty, as after a crash without
	// persistence) and the sentinels turn it into a replica.
	healAt := time.Now()
	testutil.StartRedisOnPort(t, old.Port)
	all := []string{c.redis[0].Addr, c.redis[1].Addr, c.redis[2].Addr}
	// Converged on whatever the sentinels name now (after a second
	// failover it is not the first promoted replica).
	var newAddr string
	converged := func() error {
		a, err := testutil.MasterAddr(c.sentinels[0].Addr(), labMaster)
		if err != nil {
			return err
		}
		if a == oldAddr {
			return fmt.Errorf("the sentinels name the old master %s", a)
		}
		newAddr = a
		return c.converged(a, all)
	}
	// Converged means: held for 3 s (3× down-after), because real
	// redis-sentinel may fail over again about 1 s after a switch (§7).
	var why error
	deadline := time.Now().Add(30 * time.Second)
	var since time.Time
	for time.Now().Before(deadline) {
		prev := newAddr
		if why = converged(); why != nil || newAddr != prev {
			since = time.Time{}
		} else if since.IsZero() {
			since = time.Now()
		} else if time.Since(since) >= 3*time.Second {
			break
		}
		time.Sleep(50 * time.Millisecond) // polling other processes' state; there is no event for "stays converged"
	}
	if why == nil && (since.IsZero() || time.Since(since) < 3*time.Second) {
		why = fmt.Errorf("did not stay converged for 3 s")
	}
	if why != nil {
		for _, s := range c.sentinels {
			t.Logf("log of %s:\n%s", s.Addr(), s.Log())
		}
		t.Fatalf("not converged on %s within 30 s: %v", newAddr, why)
	}
	// WAIT for both replicas succeeds again once the old master resynced.
	testutil.WaitFor(t, 15*time.Second, "waitall writes acknowledged by the new master", func() bool {
		p := writers[2].Progress()
		return p.LastOK.After(healAt) && p.LastOKNode == newAddr
	})
	var ops []Op
	for _, w := range writers {
		ops = append(ops, w.Stop()...)
	}
	if err := smp.WaitRounds(ctx, 10); err != nil {
		t.Fatal(err)
	}
	samples, events := smp.Stop()
	final, err := ReadBack(ctx, d, newAddr, 4, "")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	var crashes []string
	for i, s := range c.sentinels {
		b, err := os.ReadFile(s.Conf)
		if err != nil {
			t.Fatal(err)
		}
		files[c.sentTgts[i].Name] = b
		if s.Exited() {
			crashes = append(crashes, c.sentTgts[i].Name)
		}
	}
	r := Check(Input{
		FaultAt: faultAt, HealAt: healAt, OldMaster: oldAddr, Quorum: 2,
		Ops: ops, Samples: samples, Events: events, Final: final, FinalMaster: newAddr,
		ConfigFiles: files, Crashes: crashes, MasterName: labMaster, ExpectFailover: true,
	})
	t.Logf("report: writes %d acked %d lost %d unknown %d failed %d phantom %d dup %d stale %d/%d split-brain %.2fs",
		r.Writes, r.Acked, r.LostAck, r.Unknown, r.Failed, r.Phantom, r.Duplicates, r.StaleAcks, r.StaleAcksLate, r.SplitBrainS)
	t.Logf("RTO detect %v switch %v converged %v client %v (by %v); failovers %d epochs %d per-sentinel %v",
		r.RTODetect, r.RTOSwitch, r.RTOConverged, r.RTOClient, r.RTOClientBy, r.Failovers, r.EpochsBurned, r.SwitchesBy)
	t.Logf("per writer: %+v; samples %d events %d; notes %v", r.PerWriter, len(samples), len(events), r.Notes)
	for _, v := range r.Violations {
		t.Errorf("violation %s: %s", v.ID, v.Detail)
	}
	failovers := 1
	if real && r.Failovers == 2 {
		t.Logf("redis-sentinel failed over a second time away from the promoted replica (reference §7): reported as 1 false failover")
		failovers = 2
	}
	if r.Phantom != 0 || r.Failovers != failovers || r.FalseFailovers != failovers-1 {
		t.Errorf("phantom %d failovers %d false %d, want 0 %d %d", r.Phantom, r.Failovers, r.FalseFailovers, failovers, failovers-1)
	}
	if r.RTODetect <= 0 || r.RTOSwitch <= r.RTODetect || r.RTOConverged <= 0 || r.RTOClient <= 0 {
		t.Errorf("RTOs must be positive and ordered: detect %v switch %v converged %v client %v", r.RTODetect, r.RTOSwitch, r.RTOConverged, r.RTOClient)
	}
	for _, s := range c.sentTgts {
		if r.SwitchesBy[s.Name] != failovers {
			t.Errorf("%s published %d +switch-master, want %d", s.Name, r.SwitchesBy[s.Name], failovers)
		}
	}
	// WAIT for both replicas: an acknowledged write is on the promoted one.
	if pw := r.PerWriter["gs-waitall"]; pw.LostAck != 0 || pw.Acked == 0 {
		t.Errorf("waitall writer: %+v, want acks and none lost", pw)
	}
	// Every sentinel's current epoch was heard (hellos on the redis nodes,
	// named after the sentinel target, or +new-epoch), and every sentinel
	// ends in config epoch ≥ 1.
	hellos := map[string]int{}
	channels := map[string]int{}
	for _, e := range events {
		channels[e.Channel]++
		if e.Channel == HelloChannel {
			hellos[e.Sentinel]++
		}
		// The sentinels never stop: their event subscriptions (kept alive
		// by pings while idle) must not break.
		if e.Channel == ChanDisconnected && e.Sentinel[0] == 's' {
			t.Errorf("event subscription to %s lost: %s", e.Sentinel, e.Payload)
		}
	}
	t.Logf("channels: %v", channels)
	last := map[string]Sample{}
	for _, s := range samples {
		if s.Kind == KindSentinel && s.Err == "" {
			last[s.Target] = s
		}
	}
	for _, s := range c.sentTgts {
		if hellos[s.Name] == 0 {
			t.Errorf("no hello attributed to %s: %v", s.Name, hellos)
		}
		if l := last[s.Name]; l.CurrentEpoch < 1 || l.ConfigEpoch < 1 || l.MasterAddr != newAddr {
			t.Errorf("%s last sample %+v, want epochs ≥ 1 naming %s", s.Name, l, newAddr)
		}
	}
	if r.EpochsBurned < failovers {
		t.Errorf("epochs burned %d, want ≥ %d", r.EpochsBurned, failovers)
	}
}
