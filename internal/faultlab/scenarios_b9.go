package faultlab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// B9: mass failover (redis#4334, #12865). N more groups, each a T3 (a
// master on h1, replicas on h2 and h3, quorum 2), on the same three
// sentinels as the lab's own group mym; every group's redis-server runs on
// its own port of the three redis hosts, with minimal memory settings. All
// N masters are SIGKILLed at once; mym is left alone (its writers are off:
// the point is the sentinels). The schedule polls every sentinel's SENTINEL
// MASTERS and the new masters' ROLE until every group has converged;
// Post takes the per-group switch times, not-elected aborts and epochs
// from the sentinels' events, and the CPU figures from /proc.

// massBasePort is the first port of the groups' redis-servers.
const massBasePort = 7000

func init() {
	register(massFailover("B9", 50, 3), massFailover("B9L", 200, 1))
}

func massFailover(id string, n, runs int) *Scenario {
	return &Scenario{
		ID: id, Title: fmt.Sprintf("mass failover: %d groups on the same 3 sentinels", n), Runs: runs, Solo: true,
		// The sentinels' config directories are tmpfs: every discovered
		// replica and peer of every group is a config rewrite with fsync,
		// and an fsync on this shared machine's disk takes 0.1–0.2 s under
		// load, which stalls redis-sentinel's event loop into TILT before
		// the groups are even healthy. The figure wanted is the failover
		// scheduling, not the disk.
		Setup: Setup{NoWriters: true, SentinelTmpfs: "16m"},
		Fault: fmt.Sprintf("%d more T3 groups (masters on h1, replicas on h2, h3, one redis-server per group and host) monitored by the 3 sentinels; "+
			"SIGKILL all %d masters at once", n, n),
		Expected: "every group fails over; all converged ≤ 60 s (report: per-group RTO_switch p50/p95/max, not-elected aborts, epochs burned, peak sentinel CPU)",
		Settle:   20 * time.Second,
		Schedule: func(ctx context.Context, e *Env) error { return massSchedule(ctx, e, n) },
		Post:     func(r *RunResult, in *workload.Input, top *Topology) { massPost(r, in, n) },
		Criteria: []Criterion{
			extraEquals("groups_converged", float64(n), fmt.Sprintf("all %d groups converged", n)),
			extraAtMost("all_converged_s", 60, "all converged ≤ 60 s"),
			extraEquals("groups_switched", float64(n), fmt.Sprintf("+switch-master for all %d groups", n)),
		},
	}
}

func groupName(i int) string { return fmt.Sprintf("g%d", i) }

// massRedisConf is one group member's config: no persistence, one
// database, no background threads, the smallest backlog, hz 1.
func massRedisConf(dir string, port int, master string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "port %d\nbind * -::*\nprotected-mode no\ndaemonize no\nlogfile \"\"\nloglevel warning\ndir %q\n", port, dir)
	b.WriteString("save \"\"\nappendonly no\nrepl-diskless-sync-delay 0\ndatabases 1\nhz 1\ndynamic-hz no\n")
	b.WriteString("jemalloc-bg-thread no\nrepl-backlog-size 16kb\nmaxclients 256\n")
	if master != "" {
		fmt.Fprintf(&b, "replicaof %s %d\n", master, port)
	}
	return b.String()
}

// massClients are go-redis clients from the observer host with timeouts
// long enough for a pipeline of a few hundred SENTINEL commands.
type massClients struct {
	host *netlab.Host
	mu   sync.Mutex
	c    map[string]*redis.Client
}

func (m *massClients) get(addr string) *redis.Client {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.c[addr]; c != nil {
		return c
	}
	c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, MaxRetries: -1, PoolSize: 1,
		DialTimeout: time.Second, ReadTimeout: 15 * time.Second, WriteTimeout: 5 * time.Second, DisableIdentity: true,
		Dialer: func(ctx context.Context, network, a string) (net.Conn, error) {
			return m.host.DialContext(ctx, network, a)
		}})
	m.c[addr] = c
	return c
}

func (m *massClients) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.c {
		c.Close()
	}
}

func massSchedule(ctx context.Context, e *Env, n int) error {
	t := e.Top
	mc := &massClients{host: t.Host("obs"), c: map[string]*redis.Client{}}
	defer mc.close()
	masterHost, replicaHosts := t.RedisHosts[0], t.RedisHosts[1:]
	// 1. The groups' redis-servers.
	start := time.Now()
	// Eight starts at a time: each waits ~0.3–1.2 s (load-dependent) for
	// its `ip netns exec … unshare … sh` wrapper, and the forks themselves
	// are serialized on the lab's spawner thread anyway (150 servers one
	// by one took 55–185 s, 600 took 351 s).
	type startJob struct {
		i int
		h string
	}
	jobs := make(chan startJob)
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if err := startMassRedis(t, j.h, j.i, masterHost); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
feed:
	for i := 0; i < n; i++ {
		for _, h := range t.RedisHosts {
			select {
			case jobs <- startJob{i, h}:
			case <-ctx.Done():
				break feed
			}
			if len(errs) > 0 {
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	e.Set("setup_start_s", secs(time.Since(start)))
	// Each setup step is bounded and names itself when it gives up, so a
	// run that cannot set the groups up ends with "did not finish: <step>"
	// in the scorecard instead of hanging (redis-sentinel on this shared
	// machine, docs/reliability.md).
	stepErr := func(step string, err error) error {
		return fmt.Errorf("did not finish: setup %s, %.0f s after the start: %w", step, time.Since(start).Seconds(), err)
	}
	// 2. Every replica connected.
	if err := massWait(ctx, 120*time.Second, func() error {
		for i := 0; i < n; i++ {
			addr := net.JoinHostPort(t.origIP[masterHost], strconv.Itoa(massBasePort+i))
			info, err := mc.get(addr).Info(ctx, "replication").Result()
			if err != nil {
				return fmt.Errorf("%s: %w", addr, err)
			}
			if !strings.Contains(info, "connected_slaves:2") {
				return fmt.Errorf("%s: replicas not connected yet", addr)
			}
		}
		return nil
	}); err != nil {
		return stepErr("(replicas connected)", err)
	}
	e.Set("setup_replicas_s", secs(time.Since(start)))
	// 3. Every sentinel monitors every group (at most 120 s for all): the
	// sentinels at once, each sent its MONITOR and SET commands in
	// pipelined batches (one command at a time, 200 groups × 3 sentinels
	// did not fit in 120 s at load ~340 for either sentinel).
	mctx, mcancel := context.WithTimeout(ctx, 120*time.Second)
	defer mcancel()
	monErrs := make([]error, len(t.SentinelHosts))
	var mwg sync.WaitGroup
	for k, s := range t.SentinelHosts {
		mwg.Add(1)
		go func() {
			defer mwg.Done()
			monErrs[k] = massMonitor(mctx, mc.get(t.SentinelAddr(s)), s, n, t.origIP[masterHost], t.Setup)
		}()
	}
	mwg.Wait()
	mcancel()
	if err := errors.Join(monErrs...); err != nil {
		return stepErr("(SENTINEL MONITOR)", err)
	}
	e.Set("setup_monitor_s", secs(time.Since(start)))
	// 4. Healthy: every sentinel knows every group's 2 replicas and 2 other
	// sentinels, and none has the master objectively down or in failover.
	// (A stale s_down is tolerated: a sentinel in TILT does not update it,
	// and on this shared machine a sentinel with 150 instances can be
	// starved into TILT before the kill; the kill then measures that too.)
	if err := massWait(ctx, 180*time.Second, func() error {
		for _, s := range t.SentinelHosts {
			ms, err := sentinelMasters(ctx, mc.get(t.SentinelAddr(s)))
			if err != nil {
				return fmt.Errorf("sentinel %s: %w", s, err)
			}
			for i := 0; i < n; i++ {
				m, ok := ms[groupName(i)]
				if !ok || !strings.HasSuffix(m["flags"], "master") || strings.Contains(m["flags"], "o_down") ||
					m["num-slaves"] != "2" || m["num-other-sentinels"] != "2" {
					return fmt.Errorf("sentinel %s: %s not healthy: %v", s, groupName(i), m)
				}
			}
		}
		return nil
	}); err != nil {
		return stepErr("(sentinels know every group)", err)
	}
	e.Set("setup_healthy_s", secs(time.Since(start)))
	if err := e.Sleep(ctx, 2*time.Second); err != nil {
		return err
	}
	// 5. CPU of every sentinel from /proc, every 250 ms.
	cpu := startCPUSampler(t)
	defer cpu.stop()
	if err := e.Sleep(ctx, time.Second); err != nil {
		return err
	}
	// 6. SIGKILL every group's master at once.
	var procs []*netlab.Proc
	t.mu.Lock()
	for i := 0; i < n; i++ {
		p := t.procs["redis-"+masterHost+"-"+groupName(i)]
		t.expected[p] = true
		procs = append(procs, p)
	}
	t.mu.Unlock()
	e.Fault()
	faultAt := e.FaultAt()
	for _, p := range procs {
		if err := p.Signal(syscall.SIGKILL); err != nil {
			return fmt.Errorf("SIGKILL pid %d: %w", p.PID, err)
		}
	}
	e.Set("kill_spread_ms", float64(time.Since(faultAt).Microseconds())/1000)
	for _, p := range procs {
		_ = p.Kill()
	}
	// 7. Poll until every group has converged: every sentinel names the
	// same new master, without failover flags, whose ROLE is master with
	// the other replica connected.
	conv := map[string]time.Time{}
	deadline := faultAt.Add(120 * time.Second)
	for len(conv) < n && time.Now().Before(deadline) {
		views := map[string]map[string]map[string]string{}
		for _, s := range t.SentinelHosts {
			ms, err := sentinelMasters(ctx, mc.get(t.SentinelAddr(s)))
			if err == nil {
				views[s] = ms
			}
		}
		for i := 0; i < n; i++ {
			g := groupName(i)
			if _, done := conv[g]; done || len(views) < len(t.SentinelHosts) {
				continue
			}
			addr, ok := "", true
			for _, s := range t.SentinelHosts {
				m := views[s][g]
				a := net.JoinHostPort(m["ip"], m["port"])
				if m == nil || m["flags"] != "master" || (addr != "" && a != addr) {
					ok = false
					break
				}
				addr = a
			}
			if !ok || t.HostOf(addr) == masterHost || t.HostOf(addr) == "" {
				continue
			}
			other := ""
			for _, h := range replicaHosts {
				if h != t.HostOf(addr) {
					other = t.origIP[h]
				}
			}
			if massRoleOK(ctx, mc.get(addr), other) {
				conv[g] = time.Now()
			}
		}
		if len(conv) < n {
			if err := e.Sleep(ctx, 250*time.Millisecond); err != nil {
				return err
			}
		}
	}
	e.Heal()
	var last time.Time
	for _, at := range conv {
		if at.After(last) {
			last = at
		}
	}
	e.Set("groups_converged", float64(len(conv)))
	if len(conv) == n {
		e.Set("all_converged_s", secs(last.Sub(faultAt)))
	} else {
		e.Set("all_converged_s", -1)
		var missing []string
		for i := 0; i < n && len(missing) < 10; i++ {
			if _, ok := conv[groupName(i)]; !ok {
				missing = append(missing, groupName(i))
			}
		}
		e.Note("not converged after 120 s: %d groups, e.g. %s", n-len(conv), strings.Join(missing, " "))
	}
	if err := e.Sleep(ctx, 500*time.Millisecond); err != nil {
		return err
	}
	peak, total := cpu.figures(faultAt, last)
	e.Set("peak_sentinel_cpu_pct", peak)
	e.Set("sentinel_cpu_s", total)
	return nil
}

// massMonitorBatch is how many groups one pipeline of massMonitor carries.
const massMonitorBatch = 25

// massMonitor sends sentinel s SENTINEL MONITOR and SENTINEL SET for
// groups 0..n-1 (masters on ip, ports from massBasePort), pipelined
// massMonitorBatch groups at a time, and returns the first failure.
func massMonitor(ctx context.Context, c *redis.Client, s string, n int, ip string, setup Setup) error {
	for lo := 0; lo < n; lo += massMonitorBatch {
		hi := min(n, lo+massMonitorBatch)
		cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := lo; i < hi; i++ {
				g := groupName(i)
				p.Do(ctx, "SENTINEL", "MONITOR", g, ip, massBasePort+i, setup.Quorum)
				p.Do(ctx, "SENTINEL", "SET", g, "down-after-milliseconds", setup.DownAfterMs,
					"failover-timeout", setup.FailoverTimeoutMs, "parallel-syncs", setup.ParallelSyncs)
			}
			return nil
		})
		for _, cmd := range cmds {
			if e := cmd.Err(); e != nil {
				a := cmd.Args()
				return fmt.Errorf("sentinel %s: %v %v %v: %w", s, a[0], a[1], a[2], e)
			}
		}
		if err != nil {
			return fmt.Errorf("sentinel %s: groups %d–%d: %w", s, lo, hi-1, err)
		}
	}
	return nil
}

// massRoleOK: ROLE on c says master and lists the replica at ip.
func massRoleOK(ctx context.Context, c *redis.Client, ip string) bool {
	v, err := c.Do(ctx, "ROLE").Slice()
	if err != nil || len(v) < 3 || v[0] != "master" {
		return false
	}
	reps, _ := v[2].([]any)
	for _, r := range reps {
		if f, ok := r.([]any); ok && len(f) >= 1 && f[0] == ip {
			return true
		}
	}
	return false
}

// sentinelMasters is SENTINEL MASTERS as name → fields.
func sentinelMasters(ctx context.Context, c *redis.Client) (map[string]map[string]string, error) {
	v, err := c.Do(ctx, "SENTINEL", "MASTERS").Slice()
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for _, m := range v {
		f := flat(m)
		out[f["name"]] = f
	}
	return out, nil
}

// startMassRedis writes the config of group i's redis-server on host h
// (a replica of masterHost unless it is masterHost) and starts it.
func startMassRedis(t *Topology, h string, i int, masterHost string) error {
	dir := t.hostDir(h, groupName(i))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("group dir: %w", err)
	}
	master := ""
	if h != masterHost {
		master = t.origIP[masterHost]
	}
	conf := filepath.Join(dir, "redis.conf")
	if err := os.WriteFile(conf, []byte(massRedisConf(dir, massBasePort+i, master)), 0o644); err != nil {
		return fmt.Errorf("group config: %w", err)
	}
	return t.start(h, "redis-"+h+"-"+groupName(i), []string{t.RedisBin(), conf}, dir, netlab.ProcSpec{})
}

// massWait polls cond every 250 ms until it holds or timeout passes.
func massWait(ctx context.Context, timeout time.Duration, cond func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %v: %w", timeout, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// cpuSampler reads utime+stime of some processes from /proc/PID/stat
// every 250 ms (B9: every sentinel; G8: the flooded one).
type cpuSampler struct {
	stopc chan struct{}
	done  chan struct{}
	mu    sync.Mutex
	at    []time.Time
	ticks map[string][]int64 // name → cumulative clock ticks, one per at (0: not read)
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's utime and stime
// (100 on every Linux architecture Go supports here).
const clockTicks = 100

// startCPUSampler samples every sentinel of t.
func startCPUSampler(t *Topology) *cpuSampler {
	return sampleCPU(t.SentinelHosts, func(h string) (int, bool) {
		if p := t.Proc("sentinel-" + h); p != nil {
			return p.PID, true
		}
		return 0, false
	})
}

// sampleCPU samples the processes pidOf names until stop.
func sampleCPU(names []string, pidOf func(name string) (int, bool)) *cpuSampler {
	c := &cpuSampler{stopc: make(chan struct{}), done: make(chan struct{}), ticks: map[string][]int64{}}
	go func() {
		defer close(c.done)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			now := time.Now()
			row := map[string]int64{}
			for _, n := range names {
				if pid, ok := pidOf(n); ok {
					if v, err := procCPUTicks(pid); err == nil {
						row[n] = v
					}
				}
			}
			c.mu.Lock()
			c.at = append(c.at, now)
			for _, n := range names {
				c.ticks[n] = append(c.ticks[n], row[n])
			}
			c.mu.Unlock()
			select {
			case <-c.stopc:
				return
			case <-tick.C:
			}
		}
	}()
	return c
}

func (c *cpuSampler) stop() {
	select {
	case <-c.stopc:
	default:
		close(c.stopc)
	}
	<-c.done
}

// figures: the peak CPU of one sentinel over any 1 s window from the
// fault to end (% of one core), and the CPU seconds all sentinels used
// in that interval.
func (c *cpuSampler) figures(from, end time.Time) (peak, total float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if end.Before(from) {
		end = time.Now()
	}
	lo := sort.Search(len(c.at), func(i int) bool { return !c.at[i].Before(from) }) - 1
	if lo < 0 {
		lo = 0
	}
	hi := sort.Search(len(c.at), func(i int) bool { return c.at[i].After(end) })
	if hi >= len(c.at) {
		hi = len(c.at) - 1
	}
	for _, l := range c.ticks {
		if hi > lo && l[hi] > 0 && l[lo] > 0 {
			total += float64(l[hi]-l[lo]) / clockTicks
		}
		for i := lo; i <= hi; i++ {
			j := i
			for j <= hi && c.at[j].Sub(c.at[i]) < time.Second {
				j++
			}
			if j > hi || l[i] == 0 {
				break
			}
			pct := float64(l[j]-l[i]) / clockTicks / c.at[j].Sub(c.at[i]).Seconds() * 100
			peak = max(peak, pct)
		}
	}
	return float64(int(peak*10)) / 10, float64(int(total*100)) / 100
}

// figuresOf: the peak CPU of process name over any window of ≥ 1 s
// between from and to (% of one core) and the CPU seconds it used between
// them (cpuFigures, over the samples that could be read).
func (c *cpuSampler) figuresOf(name string, from, to time.Time) (peak, total float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var at []time.Time
	var ticks []int64
	for i, v := range c.ticks[name] {
		if v > 0 {
			at, ticks = append(at, c.at[i]), append(ticks, v)
		}
	}
	return cpuFigures(at, ticks, from, to)
}

// procCPUTicks is utime+stime of pid in clock ticks.
func procCPUTicks(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("bad /proc stat")
	}
	f := strings.Fields(s[i+1:])
	// After the comm field: state(0) ... utime is field 14 overall (index 11 here), stime 15 (12).
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("bad /proc stat times")
	}
	return u + st, nil
}

// massPost computes the per-group figures from the sentinels' events. The
// checker's S4 (one vote per sentinel and epoch) assumes one master:
// +vote-for-leader names no master, and with many masters a sentinel
// rightly votes for different leaders of different masters in one epoch,
// so S4 findings are dropped here (noted); S1–S3, S5, S6 stay, on mym.
func massPost(r *RunResult, in *workload.Input, n int) {
	switchAt := map[string]time.Time{}
	notElected, elected, tries := 0, 0, 0
	maxBefore, maxAfter := int64(0), int64(0)
	for _, e := range in.Events {
		if !strings.HasPrefix(e.Channel, "+") && !strings.HasPrefix(e.Channel, "-") {
			continue
		}
		f := strings.Fields(e.Payload)
		after := !e.At.Before(in.FaultAt)
		switch e.Channel {
		case "+switch-master":
			if len(f) > 0 && after {
				if t, ok := switchAt[f[0]]; !ok || e.At.Before(t) {
					switchAt[f[0]] = e.At
				}
			}
		case "-failover-abort-not-elected":
			if after {
				notElected++
			}
		case "+elected-leader":
			if after {
				elected++
			}
		case "+try-failover":
			if after {
				tries++
			}
		case "+new-epoch":
			if len(f) > 0 {
				if ep, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					if after {
						maxAfter = max(maxAfter, ep)
					} else {
						maxBefore = max(maxBefore, ep)
					}
				}
			}
		}
	}
	var rto []float64
	for i := 0; i < n; i++ {
		if t, ok := switchAt[groupName(i)]; ok {
			rto = append(rto, secs(t.Sub(in.FaultAt)))
		}
	}
	sort.Float64s(rto)
	r.Extra["groups_switched"] = float64(len(rto))
	if len(rto) > 0 {
		r.Extra["rto_switch_p50_s"] = rto[(len(rto)-1)/2]
		r.Extra["rto_switch_p95_s"] = rto[(len(rto)*95+99)/100-1]
		r.Extra["rto_switch_max_s"] = rto[len(rto)-1]
		r.Extra["all_switched_s"] = rto[len(rto)-1]
	}
	r.Extra["not_elected"] = float64(notElected)
	r.Extra["elections_won"] = float64(elected)
	r.Extra["failover_attempts"] = float64(tries)
	if maxAfter > 0 {
		r.Extra["epochs_burned"] = float64(maxAfter - maxBefore)
	}
	kept := r.Violations[:0]
	dropped := 0
	for _, v := range r.Violations {
		if v.ID == "S4" {
			dropped++
			continue
		}
		kept = append(kept, v)
	}
	r.Violations = kept
	r.Figures.Violations = len(kept)
	if dropped > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("S4 not checkable with %d masters (+vote-for-leader names no master): %d findings dropped", n+1, dropped))
	}
}
