package runner

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"time"

	"github.com/gosentinel/gosentinel/bench/harness"
)

// ScaleConfig is the scale suite's own settings.
type ScaleConfig struct {
	Usage          []int // master counts for CPU and RSS
	Healthy        []int // master counts for time to all healthy
	NamesPerServer int   // 0: namesPerServer picks
	MaxServers     int   // bound on redis-servers when NamesPerServer is 0
	Sentinels      int
	Window         time.Duration
	Settle         time.Duration
	// Limit bounds each run's wait for all healthy (default 3 min); a run
	// over it is reported as not finished.
	Limit time.Duration
}

// Scale measures CPU and RSS of sentinels monitoring many masters, and the
// time until all of them are healthy.
func Scale(cfg Config, sc ScaleConfig, real, ours harness.Impl, out io.Writer) harness.Section {
	c := NewCollector(real, ours, out)
	counts := map[int]bool{}
	var all []int
	for _, l := range [][]int{sc.Usage, sc.Healthy} {
		for _, n := range l {
			if !counts[n] {
				counts[n] = true
				all = append(all, n)
			}
		}
	}
	usage := map[int]bool{}
	for _, n := range sc.Usage {
		usage[n] = true
	}
	npsUsed := map[int]int{}
	var fdNotes []string
	for _, n := range all {
		nps := sc.namesPerServer(n)
		npsUsed[n] = nps
		key := fmt.Sprintf("m%d-", n)
		c.Define(FigureDef{Key: key + "healthy", Label: fmt.Sprintf("%d masters: start → all healthy", n), Unit: "ms", LowerBetter: true, Headline: n >= 2000})
		c.Define(FigureDef{Key: key + "pong", Label: fmt.Sprintf("%d masters: start → first PONG", n), Unit: "ms", LowerBetter: true})
		c.Define(FigureDef{Key: key + "stall", Label: fmt.Sprintf("%d masters: longest wait for an answer during start", n), Unit: "ms", LowerBetter: true})
		if usage[n] {
			c.Define(FigureDef{Key: key + "cpu", Label: fmt.Sprintf("%d masters: CPU (one core = 100)", n), Unit: "%", LowerBetter: true, Headline: n >= 500})
			c.Define(FigureDef{Key: key + "rss", Label: fmt.Sprintf("%d masters: RSS", n), Unit: "MiB", LowerBetter: true, Headline: n >= 500})
			c.Define(FigureDef{Key: key + "conf", Label: fmt.Sprintf("%d masters: config file", n), Unit: "KiB", LowerBetter: true})
			c.Define(FigureDef{Key: key + "flush", Label: fmt.Sprintf("%d masters: SENTINEL FLUSHCONFIG (rewrite + fsync)", n), Unit: "ms", LowerBetter: true})
		}
		if err := fitsDescriptors(n, sc.Sentinels); err != nil {
			// Neither implementation can hold the sockets: report it as not
			// run on both rather than let each fail its own way.
			for _, im := range []harness.Impl{real, ours} {
				if im.Available() {
					c.Fail(im, fmt.Sprintf("%d masters", n), err)
				}
			}
			fdNotes = append(fdNotes, fmt.Sprintf("%d masters not run: %v.", n, err))
			continue
		}
		c.Alternate(cfg.Runs, func(run int, impl harness.Impl) {
			env := harness.NewEnv(nil)
			var r harness.ScaleResult
			err := env.Run(func() error {
				var err error
				r, err = harness.RunScale(env, impl, harness.ScaleOpts{
					Masters: n, NamesPerServer: nps, Sentinels: sc.Sentinels, Window: sc.Window,
					Settle: sc.Settle, Ready: sc.Limit,
				})
				return err
			})
			if err != nil {
				c.Fail(impl, fmt.Sprintf("run %d %d masters", run+1, n), err)
				r = harness.ScaleResult{HealthyMs: nan, StallMs: nan, FirstPongMs: nan, CPUPercent: nan, RSSMiB: nan, ConfKiB: nan, FlushMs: nan}
			}
			c.Add(impl, key+"healthy", r.HealthyMs)
			c.Add(impl, key+"stall", r.StallMs)
			c.Add(impl, key+"pong", r.FirstPongMs)
			if usage[n] {
				c.Add(impl, key+"cpu", r.CPUPercent)
				c.Add(impl, key+"rss", r.RSSMiB)
				c.Add(impl, key+"conf", r.ConfKiB)
				c.Add(impl, key+"flush", r.FlushMs)
			}
			fmt.Fprintf(out, "  run %d %-14s %5d masters: healthy %.0f ms (first PONG %.0f ms, longest wait %.0f ms), CPU %.1f%%, RSS %.1f MiB, config %.0f KiB, FLUSHCONFIG %.0f ms\n", run+1, impl.Name, n, r.HealthyMs, r.FirstPongMs, r.StallMs, r.CPUPercent, r.RSSMiB, r.ConfKiB, r.FlushMs)
		})
	}
	var npsNote []string
	for _, n := range all {
		npsNote = append(npsNote, fmt.Sprintf("%d masters: %d", n, npsUsed[n]))
	}
	notes := []string{
		fmt.Sprintf("Each master has one replica (redis-server 7.0.15, `hz 1`). Names per redis-server pair: %s. With 1, every master and replica is its own process, as in a real fleet. Above that (when one process per instance would not fit the machine), real Sentinel's acceptance of the same address under several master names is used: each pair carries that many sentinel links, and every hello published to it is delivered on the links of all its names, so hello traffic is that many times a real fleet's, a cost both implementations pay and one that pulls the CPU ratio towards 1.", strings.Join(npsNote, ", ")),
		fmt.Sprintf("%d sentinel(s), default timers (down-after 30 s). \"All healthy\": from starting the sentinel processes until SENTINEL MASTERS (polled every 100 ms) lists every master with flags `master`, at least one replica and all other sentinels; \"longest wait for an answer\" is the longer of the wait for the first PONG and the slowest of those SENTINEL MASTERS replies: how long the sentinel stopped answering while starting (real Sentinel rewrites and fsyncs its config file for every replica it discovers, on its only thread). CPU: utime+stime from /proc/<pid>/stat over %v, starting %v after all healthy; RSS: VmRSS at the end of that window. Config file: its size after the window; FLUSHCONFIG: round trip of SENTINEL FLUSHCONFIG (the whole config rewritten and fsynced) after the window. A run whose sentinels are not all healthy within %v is reported as failed (did not finish).", sc.Sentinels, sc.Window, sc.Settle, sc.Limit),
	}
	notes = append(notes, fdNotes...)
	return c.Section("scale", "Scale: many masters", cfg.Runs, notes)
}

// namesPerServer is the multiplexing used for n masters: the configured
// value, else 1 unless that needs more than MaxServers redis-servers.
func (sc ScaleConfig) namesPerServer(n int) int {
	if sc.NamesPerServer > 0 {
		return sc.NamesPerServer
	}
	maxServers := sc.MaxServers
	if maxServers <= 0 {
		maxServers = 1000
	}
	pairs := max(maxServers/2, 1)
	return max(1, (n+pairs-1)/pairs)
}

// ErrTooManySockets is reported for a master count whose sockets do not fit
// the open-file limit of one sentinel process.
var ErrTooManySockets = errors.New("one sentinel needs more sockets than the open-file limit allows")

// fitsDescriptors checks that one sentinel monitoring n masters with one
// replica each fits the hard open-file limit: a sentinel holds a command
// and a pub/sub connection to every master and every replica (4n sockets,
// both implementations), plus its peers, listener, files and clients.
func fitsDescriptors(n, sentinels int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return nil // unknown: let the run find out
	}
	need := uint64(4*n + 4*max(sentinels, 1) + 64)
	if lim.Max != ^uint64(0) && need > lim.Max {
		return fmt.Errorf("%w: %d masters + %d replicas need about %d descriptors, the hard limit here is %d (raise it with ulimit -Hn / LimitNOFILE)", ErrTooManySockets, n, n, need, lim.Max)
	}
	return nil
}
