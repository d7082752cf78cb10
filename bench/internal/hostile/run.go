package hostile

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gosentinel/gosentinel/bench/harness"
	"github.com/gosentinel/gosentinel/internal/testutil"
)

// Options of one measurement.
type Options struct {
	// Interval between the starts of two victim rounds (5 ms).
	Interval time.Duration
	// Baseline is how long the victim is timed before the load starts,
	// Load how long the load runs before the master is stopped.
	Baseline, Load time.Duration
	// DownAfterMs is the victim master's down-after-milliseconds.
	DownAfterMs int
	// SdownWait bounds the wait for +sdown after the stop.
	SdownWait time.Duration
	// NoLogfile leaves the logfile directive out of the sentinel's config
	// (it then logs to its stdout, /dev/null): how much of a load's cost
	// is writing the log.
	NoLogfile bool
	// Subprocess runs the victim in a process of its own (the bench
	// command, which calls ProbeMain); tests run it in-process.
	Subprocess bool
	// SamplesFile, if set, receives every victim round of the run, one
	// line each (see writeSamples): to line up single slow rounds with a
	// profile or trace of the sentinel taken at the same time.
	SamplesFile string
}

// DefaultOptions are the bench command's defaults.
func DefaultOptions() Options {
	return Options{Interval: 5 * time.Millisecond, Baseline: 3 * time.Second, Load: 5 * time.Second,
		DownAfterMs: 1000, SdownWait: 15 * time.Second, Subprocess: true}
}

// Result is one measurement of one load against one sentinel.
type Result struct {
	// Base and During are the victim's round times before the load and
	// while it ran (until +sdown, or the end of the wait for it).
	Base, During []time.Duration
	// Failed counts the victim's rounds that failed (timeout, closed
	// connection); they are in During with their duration.
	Failed int
	// SdownLate is the time from when +sdown was due by the sentinel's own
	// detection rule to the +sdown event at the victim (NaN: no +sdown);
	// StopToSdown the time from the master's SIGSTOP to it. DueUncertainty
	// is half the round trip of the SENTINEL MASTER reply the due time was
	// computed from.
	SdownLate, StopToSdown, DueUncertainty time.Duration
	SdownSeen                              bool
	// Rule says how the due time was computed.
	Rule string
	// Work is what the load did (Counter.Done) per second, Errors its
	// failed connections.
	Work   float64
	Errors int64
	// CPU is the sentinel's utime+stime while the load ran; PeakRSS its
	// VmHWM at the end (bytes).
	CPU     time.Duration
	PeakRSS int64
	// LoadAvg is the 1-minute load average at the end.
	LoadAvg float64
	// Diag says what the sentinel reported when +sdown did not come.
	Diag string
}

// RealRule is the due time of redis-sentinel's SDOWN: down-after after
// the first unanswered PING (sentinel.c, act_ping_time); that PING goes out
// once the last PONG is a ping period (1 s) old, on a timer tick.
const RealRule = "first unanswered PING + down-after"

// OursRule is gosentinel's: down-after after the last valid reply (fast
// detection, internal/core/fastdetect.go silentSince).
const OursRule = "last valid reply + down-after"

// Run measures load l against the sentinel binary impl: it starts a
// redis-server (the victim master) and the sentinel, times the victim for
// o.Baseline, starts the load, times the victim for o.Load, stops the
// master (SIGSTOP) while the load goes on, and waits for +sdown. Every
// process it starts is killed by PID when env's Run returns.
func Run(env *harness.Env, impl harness.Impl, l Load, o Options) (Result, error) {
	res := Result{SdownLate: nan, StopToSdown: nan, DueUncertainty: nan}
	master := testutil.StartRedis(env)
	t := Target{MasterAddr: master.Addr(), MasterPort: master.Port, Victim: VictimName, EventNames: "m*", DeadPort: testutil.FreePort(env)}
	s, err := startSentinel(env, impl, l, o, master.Port)
	if err != nil {
		return res, err
	}
	t.Addr = s.Addr()
	if err := waitHealthy(t.Addr, t.Victim, 20*time.Second); err != nil {
		return res, fmt.Errorf("%s: %w", impl.Name, err)
	}
	p, err := startProber(env, t.Addr, t.Victim, o.Interval, o.Subprocess)
	if err != nil {
		return res, err
	}
	ctl, err := harness.Dial(t.Addr, 5*time.Second)
	if err != nil {
		return res, fmt.Errorf("control connection: %w", err)
	}
	env.Cleanup(func() { _ = ctl.Close() })

	baseStart := time.Now()
	time.Sleep(o.Baseline)
	ctx, cancel := context.WithCancel(context.Background())
	var c Counter
	var wg sync.WaitGroup
	wg.Add(1)
	env.Cleanup(func() { cancel(); wg.Wait() })
	cpu0, cpuErr := harness.CPUTime(s.PID())
	loadStart := time.Now()
	go func() {
		defer wg.Done()
		l.Run(ctx, t, &c)
	}()
	time.Sleep(o.Load)

	// The master stops answering; the sentinel's link stays up.
	if err := syscall.Kill(master.PID(), syscall.SIGSTOP); err != nil {
		return res, fmt.Errorf("SIGSTOP master: %w", err)
	}
	stopped := time.Now()
	env.Cleanup(func() { _ = syscall.Kill(master.PID(), syscall.SIGCONT) })
	due, unc, rule, err := dueTime(ctl, impl, t.Victim, time.Duration(o.DownAfterMs)*time.Millisecond, p.sdownCh, stopped.Add(o.SdownWait))
	if err != nil {
		return res, err
	}
	select {
	case <-p.sdownCh:
	case <-time.After(time.Until(stopped.Add(o.SdownWait))):
	}
	loadEnd := time.Now()
	cpu1, cpuErr2 := harness.CPUTime(s.PID())
	select {
	case <-p.sdownCh:
	default:
		// Say why: the sentinel's view of the master and its last log
		// lines about it.
		if m, err := harness.Master(ctl, t.Victim); err == nil {
			res.Diag = fmt.Sprintf("no +sdown %v after the stop: flags %s, last-ping-sent %s, last-ok-ping-reply %s, s-down-time %s, link-pending-commands %s",
				o.SdownWait, m["flags"], m["last-ping-sent"], m["last-ok-ping-reply"], m["s-down-time"], m["link-pending-commands"])
		} else {
			res.Diag = fmt.Sprintf("no +sdown %v after the stop; SENTINEL MASTER: %v", o.SdownWait, err)
		}
		for _, line := range strings.Split(s.Log(), "\n") {
			if strings.Contains(line, "tilt") {
				res.Diag += "; log: " + strings.TrimSpace(line)
			}
		}
	}
	cancel()
	wg.Wait()
	samples, sdown := p.finish()
	if !sdown.IsZero() {
		loadEnd = sdown
		res.SdownSeen = true
		res.StopToSdown = sdown.Sub(stopped)
		if !due.IsZero() {
			res.SdownLate = sdown.Sub(due)
			res.DueUncertainty = unc
		}
	}
	res.Rule = rule
	for _, sm := range samples {
		switch {
		case !sm.start.Before(baseStart) && sm.start.Before(loadStart):
			res.Base = append(res.Base, sm.dur)
		case !sm.start.Before(loadStart) && sm.start.Before(loadEnd):
			res.During = append(res.During, sm.dur)
			if !sm.ok {
				res.Failed++
			}
		}
	}
	if o.SamplesFile != "" {
		if err := writeSamples(o.SamplesFile, s.PID(), baseStart, loadStart, stopped, loadEnd, samples); err != nil {
			return res, err
		}
	}
	if len(res.Base) == 0 || len(res.During) == 0 {
		return res, fmt.Errorf("victim timed %d rounds before and %d during the load (prober: %v)", len(res.Base), len(res.During), p.error())
	}
	res.Work = float64(c.Done.Load()) / loadEnd.Sub(loadStart).Seconds()
	res.Errors = c.Errors.Load()
	if cpuErr == nil && cpuErr2 == nil {
		res.CPU = cpu1 - cpu0
	} else {
		res.CPU = nan
	}
	res.PeakRSS = vmHWM(s.PID())
	res.LoadAvg = loadAvg1()
	return res, nil
}

// nan marks a duration that was not observed.
const nan = time.Duration(math.MinInt64)

// IsNaN reports whether d was not observed.
func IsNaN(d time.Duration) bool { return d == nan }

// startSentinel writes the sentinel's config (the victim master, quorum 2
// so that one sentinel never starts a failover, and l.Masters unreachable
// masters) and starts impl on it.
func startSentinel(env *harness.Env, impl harness.Impl, l Load, o Options, masterPort int) (*testutil.Process, error) {
	port := testutil.FreePort(env)
	dir, err := os.MkdirTemp(env.TempDir(), "sentinel-"+strconv.Itoa(port)+"-")
	if err != nil {
		return nil, fmt.Errorf("sentinel dir: %w", err)
	}
	conf := filepath.Join(dir, "sentinel.conf")
	log := filepath.Join(dir, "sentinel.log")
	var b strings.Builder
	fmt.Fprintf(&b, "port %d\nbind 127.0.0.1\nmaxclients 10000\n", port)
	if !o.NoLogfile {
		fmt.Fprintf(&b, "logfile %s\n", strconv.Quote(log))
	}
	b.WriteString(testutil.SentinelConf(VictimName, masterPort, 2, o.DownAfterMs, 60000))
	for i := range l.Masters {
		name := fmt.Sprintf("m%04d-", i) + strings.Repeat("x", max(l.NameLen, 6))
		name = name[:max(l.NameLen, 6)]
		// A claimed free port: nothing listens there, connections are
		// refused at once.
		fmt.Fprintf(&b, "sentinel monitor %s 127.0.0.1 %d 2\n", name, testutil.FreePort(env))
	}
	if err := os.WriteFile(conf, []byte(b.String()), 0o644); err != nil {
		return nil, fmt.Errorf("write %s: %w", conf, err)
	}
	return testutil.StartSentinelConfReady(env, impl.Bin, conf, port, log, 30*time.Second), nil
}

// waitHealthy waits until the sentinel reports the victim master with
// flags "master" and a recent PING reply.
func waitHealthy(addr, name string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		c, err := harness.Dial(addr, time.Second)
		if err == nil {
			m, err := harness.Master(c, name)
			_ = c.Close()
			if err == nil && m["flags"] == "master" {
				if ms, err := strconv.Atoi(m["last-ok-ping-reply"]); err == nil && ms < 1000 {
					return nil
				}
			}
			last = fmt.Sprint(m, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("master %s not healthy within %v: %s", name, timeout, last)
}

// dueTime polls SENTINEL MASTER after the master's stop until a PING is
// pending (or +sdown came, or deadline), and returns when +sdown is due by
// the sentinel's own rule: for redis-sentinel down-after after the first
// unanswered PING, for gosentinel down-after after the last valid reply
// (never earlier than two PING intervals before the pending PING, its
// silentSince). The reply's fields are relative to when the sentinel
// computed them, somewhere within the round trip: its midpoint is used and
// half the round trip returned as the uncertainty.
func dueTime(c *harness.Conn, impl harness.Impl, name string, downAfter time.Duration, sdown <-chan struct{}, deadline time.Time) (time.Time, time.Duration, string, error) {
	rule := OursRule
	if impl.Name == harness.RealName {
		rule = RealRule
	}
	for time.Now().Before(deadline) {
		select {
		case <-sdown:
			// gosentinel's fields still give its rule after +sdown (the
			// PING stays pending and the last valid reply stays what it
			// was while the master is stopped), so a +sdown that came
			// before the first read (a sentinel slow to answer under the
			// load) still gets its due time. redis-sentinel's
			// last-ping-sent may restart with a reconnected link after
			// SDOWN: not read then.
			if rule == RealRule {
				return time.Time{}, 0, rule, nil
			}
		default:
		}
		t0 := time.Now()
		if err := c.SetDeadline(t0.Add(5 * time.Second)); err != nil {
			return time.Time{}, 0, rule, fmt.Errorf("SENTINEL MASTER: %w", err)
		}
		m, err := harness.Master(c, name)
		t1 := time.Now()
		if err != nil {
			return time.Time{}, 0, rule, fmt.Errorf("SENTINEL MASTER after the stop: %w", err)
		}
		sent, err1 := strconv.Atoi(m["last-ping-sent"])
		ok, err2 := strconv.Atoi(m["last-ok-ping-reply"])
		if err1 != nil || err2 != nil {
			return time.Time{}, 0, rule, fmt.Errorf("SENTINEL MASTER: last-ping-sent %q last-ok-ping-reply %q", m["last-ping-sent"], m["last-ok-ping-reply"])
		}
		if sent > 0 {
			at := t0.Add(t1.Sub(t0) / 2)
			act := at.Add(-time.Duration(sent) * time.Millisecond)
			lastOK := at.Add(-time.Duration(ok) * time.Millisecond)
			if impl.Name == harness.RealName {
				return act.Add(downAfter), t1.Sub(t0) / 2, rule, nil
			}
			// pingInterval = max(down-after/10, 10 ms) at these timers.
			iv := max(downAfter/10, 10*time.Millisecond)
			since := lastOK
			if act.Before(since) {
				since = act
			}
			if b := act.Add(-2 * iv); since.Before(b) {
				since = b
			}
			return since.Add(downAfter), t1.Sub(t0) / 2, rule, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Time{}, 0, rule, nil
}

// vmHWM returns the peak RSS of pid in bytes (0 when unknown).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// loadAvg1 returns the 1-minute load average (NaN when unknown).
func loadAvg1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return math.NaN()
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// Percentiles returns p50, p99 and max of ds in milliseconds (nearest
// rank).
func Percentiles(ds []time.Duration) (p50, p99, maxMs float64) {
	if len(ds) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	v := make([]float64, len(ds))
	for i, d := range ds {
		v[i] = float64(d.Microseconds()) / 1000
	}
	slices.Sort(v)
	return harness.Percentile(v, 50), harness.Percentile(v, 99), v[len(v)-1]
}

// Over counts the durations above limit.
func Over(ds []time.Duration, limit time.Duration) int {
	n := 0
	for _, d := range ds {
		if d > limit {
			n++
		}
	}
	return n
}
