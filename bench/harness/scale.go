package harness

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// ScaleOpts configures a scale measurement: many masters, each with one
// replica, monitored by the same sentinels.
//
// Real Sentinel accepts several master names for the same address, so the
// masters are names multiplexed on a few redis-server pairs (master +
// replica): NamesPerServer names per pair. Each pair then carries that many
// sentinel links, and every hello published to it is delivered on each of
// them; that overhead is the same for both implementations.
type ScaleOpts struct {
	Masters        int           // number of monitored master names
	NamesPerServer int           // names per redis-server pair; default 10
	Sentinels      int           // default 1
	Window         time.Duration // CPU measurement window; default 10 s
	Ready          time.Duration // bound on the time to all healthy; default 3 min
	PollEvery      time.Duration // SENTINEL MASTERS poll period; default 100 ms
	// Settle is the wait between "all healthy" and the CPU window (0: none).
	// Right after start-up the sentinels still exchange the first hellos
	// and rewrite their configs; a settled window is the steady state.
	Settle time.Duration
}

func (o *ScaleOpts) defaults() {
	if o.NamesPerServer == 0 {
		o.NamesPerServer = 10
	}
	if o.Sentinels == 0 {
		o.Sentinels = 1
	}
	if o.Window == 0 {
		o.Window = 10 * time.Second
	}
	if o.Ready == 0 {
		o.Ready = 3 * time.Minute
	}
	if o.PollEvery == 0 {
		o.PollEvery = 100 * time.Millisecond
	}
}

// ScaleResult is the outcome of one scale run.
type ScaleResult struct {
	HealthyMs float64 // sentinel start → every master healthy on every sentinel
	// StallMs is the longest wait for an answer while starting: the wait for
	// the first PONG or the slowest SENTINEL MASTERS reply until all healthy,
	// whichever is longer.
	StallMs float64
	// FirstPongMs is the time from starting the sentinels until all of them
	// answer PING.
	FirstPongMs float64
	CPUPercent  float64 // median over sentinels, one core = 100
	RSSMiB      float64 // median over sentinels
	ConfKiB     float64 // first sentinel's config file after the window
	FlushMs     float64 // SENTINEL FLUSHCONFIG round trip on the first sentinel (a full rewrite + fsync)
}

// RunScale starts the redis-servers and the sentinels of impl monitoring
// o.Masters names, waits until all are healthy (flags "master", at least one
// replica known, all other sentinels known) and measures CPU and RSS over
// o.Window.
func RunScale(env *Env, impl Impl, o ScaleOpts) (ScaleResult, error) {
	o.defaults()
	if o.Masters <= 0 {
		return ScaleResult{}, fmt.Errorf("scale: masters must be > 0, got %d", o.Masters)
	}
	pairs := (o.Masters + o.NamesPerServer - 1) / o.NamesPerServer
	ports := make([]int, pairs)
	replicas := make([]*testutil.Process, pairs)
	// Pairs start 8 at a time: one by one, a thousand redis-servers took
	// 7 minutes on the loaded machine, mostly waiting for each to answer.
	var (
		starting sync.WaitGroup
		failMu   sync.Mutex
		failure  any
		parallel = make(chan struct{}, 8)
	)
	for i := range ports {
		starting.Add(1)
		parallel <- struct{}{}
		go func(i int) {
			defer starting.Done()
			defer func() { <-parallel }()
			defer func() {
				// env.Fatalf panics; re-raised below on the Run goroutine.
				if p := recover(); p != nil {
					failMu.Lock()
					if failure == nil {
						failure = p
					}
					failMu.Unlock()
				}
			}()
			// hz 1 keeps hundreds of idle redis-servers from loading the machine.
			m := testutil.StartRedis(env, "hz 1")
			ports[i] = m.Port
			replicas[i] = testutil.StartRedis(env, "hz 1", fmt.Sprintf("replicaof 127.0.0.1 %d", m.Port))
		}(i)
	}
	starting.Wait()
	if failure != nil {
		panic(failure)
	}
	for _, r := range replicas {
		testutil.WaitFor(env, 30*time.Second, "replica "+r.Addr()+" linked", func() bool {
			info, err := testutil.Info(r.Addr(), "replication")
			return err == nil && strings.Contains(info, "master_link_status:up")
		})
	}
	quorum := o.Sentinels/2 + 1
	var body strings.Builder
	for i := 0; i < o.Masters; i++ {
		fmt.Fprintf(&body, "sentinel monitor %s 127.0.0.1 %d %d\n", scaleName(i), ports[i/o.NamesPerServer], quorum)
	}
	t0 := time.Now()
	var sents []*testutil.Process
	for i := 0; i < o.Sentinels; i++ {
		// Not testutil's 10 s readiness bound: with thousands of masters
		// real Sentinel may not answer PING for longer than that, and that
		// delay is part of what is measured.
		conf, port, log := writeSentinelConf(env, body.String())
		sents = append(sents, testutil.StartSentinelConfReady(env, impl.Bin, conf, port, log, o.Ready))
	}
	firstPong := sinceMs(t0, time.Now())
	stall := time.Duration(firstPong * float64(time.Millisecond))
	for _, s := range sents {
		addr := s.Addr()
		for {
			left := o.Ready - time.Since(t0)
			if left <= 0 {
				return ScaleResult{}, fmt.Errorf("scale %s %d masters: %w within %v", impl.Name, o.Masters, ErrNotHealthy, o.Ready)
			}
			q0 := time.Now()
			err := scaleHealthy(addr, o.Masters, o.Sentinels-1, left)
			stall = max(stall, time.Since(q0))
			if err == nil {
				break
			}
			if time.Since(t0) > o.Ready {
				return ScaleResult{}, fmt.Errorf("scale %s %d masters: %w within %v: %v", impl.Name, o.Masters, ErrNotHealthy, o.Ready, err)
			}
			time.Sleep(o.PollEvery) // no event says "all healthy": poll
		}
	}
	r := ScaleResult{HealthyMs: sinceMs(t0, time.Now()), StallMs: float64(stall.Microseconds()) / 1000, FirstPongMs: firstPong}
	time.Sleep(o.Settle) // a fixed settling time is the method, not a wait for an event
	us := make([]Usage, len(sents))
	errs := make([]error, len(sents))
	var wg sync.WaitGroup
	for i, s := range sents {
		wg.Add(1)
		go func(i, pid int) {
			defer wg.Done()
			us[i], errs[i] = MeasureUsage(pid, o.Window)
		}(i, s.PID())
	}
	wg.Wait()
	var cpu, rss []float64
	for i := range us {
		if errs[i] != nil {
			return r, fmt.Errorf("scale %s: %w", impl.Name, errs[i])
		}
		cpu = append(cpu, us[i].CPUPercent)
		rss = append(rss, us[i].RSSMiB)
	}
	r.CPUPercent = Summarize(cpu).Median
	r.RSSMiB = Summarize(rss).Median
	r.FlushMs, r.ConfKiB = math.NaN(), math.NaN()
	f0 := time.Now()
	if _, err := ask(sents[0].Addr(), func(c *Conn) (any, error) { return c.Do(o.Ready, "SENTINEL", "FLUSHCONFIG") }); err == nil {
		r.FlushMs = sinceMs(f0, time.Now())
	}
	if st, err := os.Stat(sents[0].Conf); err == nil {
		r.ConfKiB = float64(st.Size()) / 1024
	}
	return r, nil
}

// ErrNotHealthy is returned when the masters are not all healthy in time.
var ErrNotHealthy = errors.New("masters not all healthy")

func scaleName(i int) string { return "m" + strconv.Itoa(i) }

// scaleHealthy checks one sentinel's SENTINEL MASTERS: n masters, each with
// flags exactly "master", at least one replica and the other sentinels.
// The reply may take long while the sentinel is busy starting up, so the
// timeout is what is left of the wait, not a short poll timeout.
func scaleHealthy(addr string, n, others int, timeout time.Duration) error {
	ms, err := ask(addr, func(c *Conn) ([]map[string]string, error) { return Masters(c, timeout) })
	if err != nil {
		return err
	}
	if len(ms) != n {
		return fmt.Errorf("%d masters, want %d", len(ms), n)
	}
	bad := []string{}
	for _, m := range ms {
		ns, _ := strconv.Atoi(m["num-slaves"])
		if m["flags"] != "master" || ns < 1 || m["num-other-sentinels"] != strconv.Itoa(others) {
			bad = append(bad, m["name"])
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("%d masters not healthy yet (first %s)", len(bad), bad[0])
	}
	return nil
}
