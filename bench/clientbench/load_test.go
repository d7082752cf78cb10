package clientbench

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/client"
	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// sentinelCounters sums total_connections_received and
// total_commands_processed (INFO stats) over the sentinels: what the
// sentinels accepted, whoever sent it (the sentinels' own links included;
// the "no client" contender measures that baseline).
func sentinelCounters(t *testing.T, sentinels []string) (conns, cmds int64) {
	t.Helper()
	for _, s := range sentinels {
		info, err := testutil.Info(s, "stats")
		for try := 0; err != nil && try < 5; try++ {
			// A sentinel loaded by a fleet may miss testutil.Info's 1 s
			// timeout (each failed try is one more connection counted).
			info, err = testutil.Info(s, "stats")
		}
		if err != nil {
			t.Fatalf("INFO stats on %s: %v", s, err)
		}
		for _, l := range strings.Split(info, "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(l), ":")
			if !ok {
				continue
			}
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "total_connections_received":
				conns += n
			case "total_commands_processed":
				cmds += n
			}
		}
	}
	return conns, cmds
}

// counts is a snapshot of sentinelCounters.
type counts struct{ conns, cmds, n int64 }

func snap(t *testing.T, sentinels []string) counts {
	c, m := sentinelCounters(t, sentinels)
	return counts{c, m, int64(len(sentinels))}
}

// since returns what the sentinels accepted between a and b, without the
// two INFO calls themselves (a's command, b's connection: one each per
// sentinel).
func (b counts) since(a counts) (conns, cmds int64) {
	return b.conns - a.conns - a.n, b.cmds - a.cmds - a.n
}

// loadContender builds n clients for the cluster (nil for the baseline).
type loadContender struct {
	name string
	// make builds one client; lg (nil unless GOSENTINEL_BENCH_PHASES)
	// is the Logger for ours.
	make func(c *testutil.SentinelCluster, lg *slog.Logger) *redis.Client
}

// phaseLog records, for one of our clients, when it was fenced by an
// event and when it verified a new master (the client's own log lines,
// FailoverOptions.Logger), for the GOSENTINEL_BENCH_PHASES breakdown.
type phaseLog struct {
	fenced, verified atomic.Int64
	// after the fence: the client's other log lines until the first
	// "master verified" (at most 32), to tell what a slow client waited
	// for.
	mu    sync.Mutex
	trail []string
}

func (p *phaseLog) Enabled(context.Context, slog.Level) bool { return true }
func (p *phaseLog) WithAttrs([]slog.Attr) slog.Handler       { return p }
func (p *phaseLog) WithGroup(string) slog.Handler            { return p }
func (p *phaseLog) Handle(_ context.Context, rec slog.Record) error {
	switch {
	case strings.Contains(rec.Message, "fenced"):
		p.fenced.CompareAndSwap(0, rec.Time.UnixNano())
	case strings.Contains(rec.Message, "master verified"):
		p.verified.Store(rec.Time.UnixNano())
	}
	if f := p.fenced.Load(); f != 0 && !strings.Contains(rec.Message, "fenced") &&
		(p.verified.Load() < f || strings.Contains(rec.Message, "master verified")) {
		p.mu.Lock()
		if len(p.trail) < 32 {
			var b strings.Builder
			fmt.Fprintf(&b, "+%v %s", time.Duration(rec.Time.UnixNano()-f).Round(time.Millisecond), rec.Message)
			rec.Attrs(func(a slog.Attr) bool {
				v := a.Value.String()
				if len(v) > 400 {
					v = v[:400]
				}
				fmt.Fprintf(&b, " %s=%s", a.Key, v)
				return true
			})
			p.trail = append(p.trail, b.String())
		}
		p.mu.Unlock()
	}
	return nil
}

// trailKind is a log line of a trail without its time and values: what
// happened, to count over the fleet.
func trailKind(line string) string {
	if i := strings.IndexByte(line, ' '); i >= 0 {
		line = line[i+1:]
	}
	// The cause, when the line has an error: the first known one.
	cause := ""
	if i := strings.Index(line, " err="); i >= 0 {
		for _, c := range []string{"operation was canceled", "no answer within SentinelTimeout", "i/o timeout",
			"connection refused", "subscription connection closed", "deadline exceeded", "probe cut", "has role"} {
			if strings.Contains(line[i:], c) {
				cause = " [" + c + "]"
				break
			}
		}
	}
	for _, k := range []string{" err=", " sentinel=", " old=", " addr=", " named=", " streak="} {
		if i := strings.Index(line, k); i >= 0 {
			line = line[:i]
		}
	}
	return line + cause
}

// eventWatch records when each sentinel published its first
// +promoted-slave and +switch-master (GOSENTINEL_BENCH_PHASES): how long
// the failover itself took under the fleet's load.
type eventWatch struct {
	mu   sync.Mutex
	seen map[string]time.Time // "sentinel channel" → first arrival
	subs []*redis.PubSub
	cls  []*redis.Client
}

func watchEvents(sentinels []string) *eventWatch {
	w := &eventWatch{seen: map[string]time.Time{}}
	for _, s := range sentinels {
		c := redis.NewClient(&redis.Options{Addr: s})
		ps := c.Subscribe(context.Background(), "+promoted-slave", "+switch-master")
		w.cls, w.subs = append(w.cls, c), append(w.subs, ps)
		go func() {
			for m := range ps.Channel() {
				w.mu.Lock()
				if _, ok := w.seen[s+" "+m.Channel]; !ok {
					w.seen[s+" "+m.Channel] = time.Now()
				}
				w.mu.Unlock()
			}
		}()
	}
	return w
}

func (w *eventWatch) report(kill time.Time) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for k, at := range w.seen {
		out = append(out, fmt.Sprintf("%s %v", k, at.Sub(kill).Round(time.Millisecond)))
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

func (w *eventWatch) close() {
	for i := range w.subs {
		w.subs[i].Close()
		w.cls[i].Close()
	}
}

// phasesOn reports whether the per-client phase breakdown is wanted
// (GOSENTINEL_BENCH_PHASES=1): kill → fence → new master verified →
// first acknowledged write, as percentiles over the fleet.
func phasesOn() bool { return os.Getenv("GOSENTINEL_BENCH_PHASES") == "1" }

// logPhases reports the phase breakdown of our clients (logs[i] belongs to
// the writer i; nil for go-redis).
func logPhases(t *testing.T, name string, kill time.Time, logs []*phaseLog, firstAfter []atomic.Int64) {
	var fence, verify, write []time.Duration
	for i, l := range logs {
		f, v, w := l.fenced.Load(), l.verified.Load(), firstAfter[i].Load()
		if f == 0 || v == 0 || w == 0 || f < kill.UnixNano() {
			continue
		}
		fence = append(fence, time.Duration(f-kill.UnixNano()))
		verify = append(verify, time.Duration(v-f))
		write = append(write, time.Duration(w-v))
	}
	q := func(ds []time.Duration) string {
		if len(ds) == 0 {
			return "-"
		}
		slices.Sort(ds)
		return fmt.Sprintf("p10 %v p50 %v p90 %v", ds[len(ds)/10].Round(time.Millisecond), ds[len(ds)/2].Round(time.Millisecond), ds[len(ds)*9/10].Round(time.Millisecond))
	}
	t.Logf("%s phases (%d clients fenced by an event): kill → fence %s; fence → verified %s; verified → first write %s", name, len(fence), q(fence), q(verify), q(write))
	// What the slow clients (fence → verified > 2 s) logged in between,
	// against the others, and two of their trails in full.
	slow, fast := map[string]int{}, map[string]int{}
	nSlow, nFast, shown := 0, 0, 0
	for _, l := range logs {
		f, v := l.fenced.Load(), l.verified.Load()
		if f == 0 || f < kill.UnixNano() {
			continue
		}
		l.mu.Lock()
		trail := append([]string(nil), l.trail...)
		l.mu.Unlock()
		m := fast
		if v == 0 || v-f > int64(2*time.Second) {
			m = slow
			nSlow++
			if shown < 2 {
				shown++
				t.Logf("%s: a slow client's trail after its fence (verified %v after it):\n  %s", name, time.Duration(v-f).Round(time.Millisecond), strings.Join(trail, "\n  "))
			}
		} else {
			nFast++
		}
		seen := map[string]bool{}
		for _, line := range trail {
			if k := trailKind(line); !seen[k] {
				seen[k] = true
				m[k]++
			}
		}
	}
	for _, g := range []struct {
		name string
		n    int
		m    map[string]int
	}{{"slow (> 2 s)", nSlow, slow}, {"fast", nFast, fast}} {
		var ks []string
		for k, c := range g.m {
			ks = append(ks, fmt.Sprintf("%d× %s", c, k))
		}
		slices.Sort(ks)
		t.Logf("%s: %d %s clients; log lines after the fence (clients with at least one): %s", name, g.n, g.name, strings.Join(ks, "; "))
	}
}

var loadContenders = []loadContender{
	{"no client (sentinels' own traffic)", nil},
	{"gosentinel client (default)", func(c *testutil.SentinelCluster, lg *slog.Logger) *redis.Client {
		return client.NewFailoverClient(&client.FailoverOptions{MasterName: c.Name, SentinelAddrs: c.SentinelAddrs(), Logger: lg})
	}},
	{"gosentinel client, no pub/sub", func(c *testutil.SentinelCluster, lg *slog.Logger) *redis.Client {
		return client.NewFailoverClient(&client.FailoverOptions{MasterName: c.Name, SentinelAddrs: c.SentinelAddrs(), DisablePubSub: true, Logger: lg})
	}},
	{"go-redis NewFailoverClient", func(c *testutil.SentinelCluster, _ *slog.Logger) *redis.Client {
		return redis.NewFailoverClient(&redis.FailoverOptions{MasterName: c.Name, SentinelAddrs: c.SentinelAddrs()})
	}},
}

// loadRun is what one contender cost the sentinels in one round.
type loadRun struct {
	window       time.Duration // kill → every client wrote again (or the timeout)
	conns, cmds  int64         // accepted by the sentinels in the window
	setupConns   int64         // accepted while the clients started (first write each)
	idleConns    int64         // accepted in the idle second before the kill
	idleCmds     int64         // commands in that second
	recovered    int           // clients that wrote again after the kill
	ownDials     uint64        // our clients only: Stats.SentinelDials in the window
	ownCommands  uint64        // our clients only: Stats.SentinelCommands in the window
	slowestWrite time.Duration // kill → last client's first acknowledged write
	lost, verifs uint64        // our clients: subscriptions found dead, verifications (Stats)
	idleCPU      time.Duration // sentinels' CPU time (sum) in the idle second
	windowCPU    time.Duration // sentinels' CPU time (sum) in the window
}

// runLoad starts a fresh cluster, n clients of contender k (each writes
// every period), SIGKILLs the master and counts what the sentinels
// accepted until every client wrote again.
func runLoad(t *testing.T, k loadContender, n int, period time.Duration) loadRun {
	c := testutil.StartSentinelCluster(t, "mymaster", 2, 3, 2, 1000, 3000)
	sentinels := c.SentinelAddrs()
	var run loadRun
	s0 := snap(t, sentinels)
	var rdbs []*redis.Client
	var logs []*phaseLog
	startAt := time.Now()
	if k.make != nil {
		for i := 0; i < n; i++ {
			var lg *slog.Logger
			if phasesOn() && !strings.HasPrefix(k.name, "go-redis") {
				l := &phaseLog{}
				logs = append(logs, l)
				lg = slog.New(l)
			}
			rdbs = append(rdbs, k.make(c, lg))
		}
	}
	defer func() {
		for _, r := range rdbs {
			r.Close()
		}
	}()
	var killAt atomic.Int64
	firstAfter := make([]atomic.Int64, len(rdbs))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	ready := make(chan struct{}, len(rdbs))
	for i, r := range rdbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := time.NewTicker(period)
			defer tk.Stop()
			first := true
			for j := 0; ; j++ {
				issued := time.Now().UnixNano()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				err := r.Set(ctx, "load:"+strconv.Itoa(i), j, 0).Err()
				cancel()
				if err == nil {
					if first {
						first = false
						ready <- struct{}{}
					}
					// Issued after the master is surely dead (SIGKILL is
					// asynchronous: a write issued at the kill may pass).
					if ka := killAt.Load(); ka != 0 && issued > ka+int64(20*time.Millisecond) && firstAfter[i].Load() == 0 {
						firstAfter[i].Store(time.Now().UnixNano())
					}
				}
				select {
				case <-stop:
					return
				case <-tk.C:
				}
			}
		}()
	}
	for range rdbs {
		select {
		case <-ready:
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: clients did not all write within 60 s", k.name)
		}
	}
	t.Logf("%s: start-up (first client built → every client wrote once) %v", k.name, time.Since(startAt).Round(time.Millisecond))
	s1 := snap(t, sentinels)
	cpu1 := sentinelCPU(c)
	idle0 := ownStats(rdbs)
	if k.make != nil {
		t.Logf("%s: start-up, own Stats: sentinel dials %d, sentinel commands %d, subscriptions lost %d, verifications %d, resolutions %d, reconciliations %d, sentinel errors %d",
			k.name, idle0.dials, idle0.cmds, idle0.lost, idle0.verifs, idle0.resolutions, idle0.reconciles, idle0.sentinelErrors)
	}
	run.setupConns, _ = s1.since(s0)
	// One idle second (writes go on) before the kill.
	idleFrom := time.Now()
	idle := time.NewTimer(time.Second)
	<-idle.C
	idleTook := time.Since(idleFrom)
	s2 := snap(t, sentinels)
	cpu2 := sentinelCPU(c)
	run.idleCPU = cpu2 - cpu1
	run.idleConns, run.idleCmds = s2.since(s1)
	own0 := ownStats(rdbs)
	if k.make != nil {
		t.Logf("%s: idle second (measured %v on the clock: a starved process wakes late), own Stats: sentinel dials %d, sentinel commands %d, subscriptions lost %d, verifications %d, resolutions %d, reconciliations %d, sentinel errors %d",
			k.name, idleTook.Round(time.Millisecond), own0.dials-idle0.dials, own0.cmds-idle0.cmds, own0.lost-idle0.lost, own0.verifs-idle0.verifs,
			own0.resolutions-idle0.resolutions, own0.reconciles-idle0.reconciles, own0.sentinelErrors-idle0.sentinelErrors)
	}
	var watch *eventWatch
	if phasesOn() && k.make != nil {
		watch = watchEvents(sentinels)
		defer watch.close()
	}
	// The master the sentinels name now: on a loaded machine the
	// sentinels may have failed over while the fleet started (a master
	// not answering within down-after), and killing the original master,
	// then a replica, would measure nothing.
	victim := c.Top.Master
	if m, err := testutil.SentinelMaster(sentinels[0], c.Name); err == nil {
		named := net.JoinHostPort(m["ip"], m["port"])
		for _, p := range c.Top.Replicas {
			if p.Addr() == named {
				t.Logf("%s: the sentinels failed over during start-up; killing the current master %s", k.name, named)
				victim = p
			}
		}
	}
	stopProfile := windowProfile(t, k.name)
	kill := time.Now()
	killAt.Store(kill.UnixNano())
	victim.Kill()
	deadline := time.Now().Add(30 * time.Second)
	if k.make == nil {
		// Baseline: the sentinels alone over a typical window (kill →
		// writes again is ≈ 2.3 s with these settings), without a
		// client of ours asking anything.
		base := time.NewTimer(baselineWindow)
		<-base.C
	}
	for k.make != nil && time.Now().Before(deadline) {
		all := true
		for i := range firstAfter {
			if firstAfter[i].Load() == 0 {
				all = false
				break
			}
		}
		if all {
			break
		}
		time.Sleep(10 * time.Millisecond) // polling the writers' progress
	}
	run.window = time.Since(kill)
	stopProfile()
	run.conns, run.cmds = snap(t, sentinels).since(s2)
	run.windowCPU = sentinelCPU(c) - cpu2
	// The sentinels' own failover, from their logs: whether the fleet's
	// load delayed it (compare with the other contenders of the run).
	t.Logf("%s: sentinels' failover steps after the kill (first sentinel to log each): %s", k.name, sentinelSteps(c, kill))
	var ds []time.Duration
	for i := range firstAfter {
		if at := firstAfter[i].Load(); at != 0 {
			ds = append(ds, time.Duration(at-kill.UnixNano()))
		}
	}
	slices.Sort(ds)
	if len(ds) > 0 {
		t.Logf("%s: kill → first write per client: min %v p10 %v p50 %v p90 %v p99 %v max %v", k.name, ds[0], ds[len(ds)/10], ds[len(ds)/2], ds[len(ds)*9/10], ds[len(ds)*99/100], ds[len(ds)-1])
	}
	if watch != nil {
		t.Logf("%s: sentinel events after the kill (one observer connection per sentinel): %s", k.name, watch.report(kill))
	}
	if len(logs) == len(rdbs) && len(logs) > 0 {
		logPhases(t, k.name, kill, logs, firstAfter)
	}
	own1 := ownStats(rdbs)
	if k.make != nil {
		t.Logf("%s: window, own Stats: resolutions %d, reconciliations %d, sentinel errors %d",
			k.name, own1.resolutions-own0.resolutions, own1.reconciles-own0.reconciles, own1.sentinelErrors-own0.sentinelErrors)
	}
	run.ownDials, run.ownCommands = own1.dials-own0.dials, own1.cmds-own0.cmds
	run.lost, run.verifs = own1.lost-own0.lost, own1.verifs-own0.verifs
	for i := range firstAfter {
		if at := firstAfter[i].Load(); at != 0 {
			run.recovered++
			run.slowestWrite = max(run.slowestWrite, time.Duration(at-kill.UnixNano()))
		}
	}
	close(stop)
	wg.Wait()
	return run
}

// windowProfile starts a CPU profile of the test process for the
// failover window when GOSENTINEL_BENCH_CPUPROFILE names a file prefix
// (one file per contender: <prefix>-<contender>.pprof): where a starved
// process spends the CPU it gets. The returned function stops it.
func windowProfile(t *testing.T, contender string) func() {
	prefix := os.Getenv("GOSENTINEL_BENCH_CPUPROFILE")
	if prefix == "" {
		return func() {}
	}
	name := prefix + "-" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, strings.ToLower(contender)) + ".pprof"
	f, err := os.Create(name)
	if err != nil {
		t.Fatalf("cpu profile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		t.Logf("cpu profile not started: %v", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		t.Logf("%s: CPU profile of the window in %s", contender, name)
	}
}

// baselineWindow is how long the "no client" contender observes the
// sentinels after the kill.
const baselineWindow = 2300 * time.Millisecond

type ownCounts struct{ dials, cmds, lost, verifs, resolutions, reconciles, sentinelErrors uint64 }

func ownStats(rdbs []*redis.Client) ownCounts {
	var o ownCounts
	for _, r := range rdbs {
		if st, ok := client.StatsOf(r); ok {
			o.dials += st.SentinelDials
			o.cmds += st.SentinelCommands
			o.lost += st.PubSubLost
			o.verifs += st.Verifications
			o.resolutions += st.Resolutions
			o.reconciles += st.Reconciles
			o.sentinelErrors += st.SentinelErrors
		}
	}
	return o
}

// TestSentinelLoad measures what the clients cost the sentinels through a
// SIGKILL failover (3 sentinels, quorum 2, down-after 1000 ms): sentinel
// connections and commands per second per client for one client writing
// every ms, and connections/commands for a fleet (GOSENTINEL_BENCH_FLEET,
// default 1000 clients, one write each per 200 ms) — ours vs go-redis,
// with the sentinels' own traffic as a baseline. Only with
// GOSENTINEL_BENCH=1. GOSENTINEL_BENCH_BURN=n adds n busy-loop processes
// (see startBurners) for a loaded machine.
func TestSentinelLoad(t *testing.T) {
	if os.Getenv("GOSENTINEL_BENCH") != "1" {
		t.Skip("set GOSENTINEL_BENCH=1 to run the sentinel load measurement")
	}
	startBurners(t)
	fleet := envPositiveInt("GOSENTINEL_BENCH_FLEET", 1000)
	var b strings.Builder
	b.WriteString("| clients | contender | kill → all wrote again | sentinel conns (window) | sentinel cmds (window) | conns/s per client | cmds/s per client | conns at start-up | conns in 1 s idle | cmds in 1 s idle | sentinel CPU ms/s idle / window | own dials / cmds / subscriptions lost / verifications (Stats) |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, size := range []struct {
		n      int
		period time.Duration
	}{{1, time.Millisecond}, {fleet, 200 * time.Millisecond}} {
		var base loadRun
		for _, k := range loadContenders {
			var run loadRun
			t.Run(fmt.Sprintf("%d/%s", size.n, k.name), func(t *testing.T) { run = runLoad(t, k, size.n, size.period) })
			n := size.n
			if k.make == nil {
				n = 0
				base = run
			}
			// Per client and second, net of the sentinels' own traffic
			// (the baseline's rate over the same window).
			per := func(v, b int64) string {
				if n == 0 {
					return fmt.Sprintf("%.1f (sentinels alone, total)", float64(v)/run.window.Seconds())
				}
				net := float64(v) - float64(b)/base.window.Seconds()*run.window.Seconds()
				return fmt.Sprintf("%.2f", max(net, 0)/run.window.Seconds()/float64(n))
			}
			cpuRate := func(d, over time.Duration) string {
				if d < 0 || over <= 0 {
					return "-"
				}
				return fmt.Sprintf("%.0f", float64(d.Milliseconds())/over.Seconds())
			}
			fmt.Fprintf(&b, "| %d | %s | %v (%d/%d) | %d | %d | %s | %s | %d | %d | %d | %s / %s | %d / %d / %d / %d |\n",
				n, k.name, run.window.Round(time.Millisecond), run.recovered, n, run.conns, run.cmds,
				per(run.conns, base.conns), per(run.cmds, base.cmds), run.setupConns, run.idleConns, run.idleCmds,
				cpuRate(run.idleCPU, time.Second), cpuRate(run.windowCPU, run.window), run.ownDials, run.ownCommands, run.lost, run.verifs)
		}
	}
	t.Logf("sentinel load (%s):\n%s", sentinelKind(), b.String())
}

func sentinelKind() string {
	if bin := os.Getenv(testutil.SentinelBinEnv); bin != "" {
		return "gosentinel " + bin
	}
	return "redis-sentinel"
}
