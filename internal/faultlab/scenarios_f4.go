package faultlab

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// F4: one sentinel keeps a wrong auth-pass for a long time (redis#2535:
// memory grew while a sentinel could not authenticate). The sentinel on
// f4Host gets a wrong password with SENTINEL SET while its two peers keep
// the right one, so it alone sees every node down: no failover may follow,
// its memory and open files must stay flat, and once the right password is
// back it must see the master up again within a few seconds.

// f4Auth: requirepass on every redis node (so a failed AUTH leaves a
// connection that can do nothing) and the ACL user the sentinels log in as.
var f4Auth = AuthSetup{RedisPass: "f4-client-secret", SentinelUser: sentinelACLUser, SentinelUserPass: "f4-right-secret"}

const (
	f4Host      = "h3"
	f4WrongPass = "f4-wrong-secret"
	// f4DefaultSoak is how long the wrong password stays by default; the
	// scorecard's full length (1 h) is `sentinelctl lab --scenario F4
	// --soak 1h`.
	f4DefaultSoak = 5 * time.Minute
	// f4Warmup is left out of the growth figures: the sentinel's first
	// reconnects and allocations after the fault settle in it.
	f4Warmup = 30 * time.Second
	// f4Sample is the sampling period of RSS and open files.
	f4Sample = 2 * time.Second
	// f4MaxGrowthKiB bounds the RSS growth between the start and the end
	// of the soak (medians of the first and last tenth after the warm-up):
	// a leak of one allocation per failed AUTH or PING reply shows as a
	// steady climb well above it in an hour; the garbage collector's
	// sawtooth of an idle Go process stays below it.
	f4MaxGrowthKiB = 2048
)

// procSample is one reading of a process's resident set and open files.
type procSample struct {
	at     time.Time
	rssKiB float64
	fds    int
}

// readProc reads VmRSS (KiB) and the number of open descriptors of pid.
func readProc(pid int) (procSample, error) {
	s := procSample{at: time.Now()}
	kb, err := procStatusKB(pid, "VmRSS")
	if err != nil {
		return s, fmt.Errorf("read VmRSS of pid %d: %w", pid, err)
	}
	s.rssKiB = float64(kb)
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return s, fmt.Errorf("list fds of pid %d: %w", pid, err)
	}
	s.fds = len(ents)
	return s, nil
}

// soakGrowth returns the growth of RSS (KiB) and of open files between the
// start and the end of a soak, leaving out the warm-up: medians of the
// first and of the last tenth of the remaining samples (at least 3 each),
// and the least-squares RSS slope in KiB per minute.
func soakGrowth(samples []procSample, start time.Time, warmup time.Duration) (rssKiB, slopeKiBMin float64, fds int, ok bool) {
	var s []procSample
	for _, x := range samples {
		if x.at.Sub(start) >= warmup {
			s = append(s, x)
		}
	}
	if len(s) < 6 {
		return 0, 0, 0, false
	}
	k := len(s) / 10
	if k < 3 {
		k = 3
	}
	med := func(xs []procSample, f func(procSample) float64) float64 {
		v := make([]float64, len(xs))
		for i, x := range xs {
			v[i] = f(x)
		}
		sort.Float64s(v)
		return v[len(v)/2]
	}
	rss := func(x procSample) float64 { return x.rssKiB }
	files := func(x procSample) float64 { return float64(x.fds) }
	rssKiB = med(s[len(s)-k:], rss) - med(s[:k], rss)
	// A sentinel's links come and go (a peer's reconnect, a replica's
	// link): open files are compared as medians too, not as two samples.
	fds = int(med(s[len(s)-k:], files) - med(s[:k], files))
	var n, sx, sy, sxx, sxy float64
	for _, x := range s {
		t := x.at.Sub(s[0].at).Minutes()
		n++
		sx += t
		sy += x.rssKiB
		sxx += t * t
		sxy += t * x.rssKiB
	}
	if d := n*sxx - sx*sx; d > 0 {
		slopeKiBMin = (n*sxy - sx*sy) / d
	}
	return rssKiB, slopeKiBMin, fds, true
}

// masterFlags returns the flags sentinel h shows for the master.
func masterFlags(ctx context.Context, t *Topology, h string) string {
	m, err := t.SentinelMaster(ctx, h)
	if err != nil {
		return "error: " + err.Error()
	}
	return m["flags"]
}

// f4Schedule sets the wrong password on f4Host's sentinel, samples every
// sentinel for the soak, then puts the right password back.
func f4Schedule(ctx context.Context, e *Env) error {
	t := e.Top
	soak := e.Soak
	if soak <= 0 {
		soak = f4DefaultSoak
	}
	e.Set("soak_s", soak.Seconds())
	e.Fault()
	if _, err := t.SentinelDo(ctx, f4Host, "SENTINEL", "SET", MasterName, "auth-pass", f4WrongPass); err != nil {
		return fmt.Errorf("SENTINEL SET auth-pass (wrong) on %s: %w", f4Host, err)
	}
	start := time.Now()
	// The fault must bite: the sentinel with the wrong password sees the
	// master subjectively down after down-after-milliseconds.
	bit := -1.0
	for time.Since(start) < 15*time.Second {
		if strings.Contains(masterFlags(ctx, t, f4Host), "s_down") {
			bit = secs(time.Since(start))
			break
		}
		if err := e.Sleep(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
	e.Set("sdown_after_s", bit)
	samples := map[string][]procSample{}
	for time.Since(start) < soak {
		for _, h := range t.SentinelHosts {
			p := t.Proc("sentinel-" + h)
			if p == nil {
				continue
			}
			s, err := readProc(p.PID)
			if err != nil {
				e.Note("%s: %v", h, err)
				continue
			}
			samples[h] = append(samples[h], s)
		}
		if err := e.Sleep(ctx, f4Sample); err != nil {
			return err
		}
	}
	if f := masterFlags(ctx, t, f4Host); !strings.Contains(f, "s_down") {
		e.Note("%s: master flags at the end of the soak: %q (not s_down)", f4Host, f)
		e.Set("sdown_at_end", 0)
	} else {
		e.Set("sdown_at_end", 1)
	}
	for _, h := range t.SentinelHosts {
		g, slope, fds, ok := soakGrowth(samples[h], start, f4Warmup)
		if !ok {
			e.Note("%s: %d samples, too few for a growth figure", h, len(samples[h]))
			continue
		}
		s := samples[h]
		e.Note("%s: RSS %.0f KiB at the start, %.0f at the end (growth %.0f KiB, slope %.1f KiB/min), open files %d → %d, %d samples",
			h, s[0].rssKiB, s[len(s)-1].rssKiB, g, slope, s[0].fds, s[len(s)-1].fds, len(s))
		suffix := "_ctrl"
		if h == f4Host {
			suffix = ""
		} else if _, done := e.Get("rss_growth_kib_ctrl"); done {
			continue // one control sentinel is enough
		}
		e.Set("rss_growth_kib"+suffix, g)
		e.Set("rss_slope_kib_min"+suffix, slope)
		e.Set("fd_growth"+suffix, float64(fds))
		e.Set("rss_end_kib"+suffix, s[len(s)-1].rssKiB)
	}
	if _, err := t.SentinelDo(ctx, f4Host, "SENTINEL", "SET", MasterName, "auth-pass", f4Auth.SentinelUserPass); err != nil {
		return fmt.Errorf("SENTINEL SET auth-pass (right) on %s: %w", f4Host, err)
	}
	back := time.Now()
	upAgain := -1.0
	for time.Since(back) < 15*time.Second {
		if f := masterFlags(ctx, t, f4Host); f == "master" {
			upAgain = secs(time.Since(back))
			break
		}
		if err := e.Sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
	e.Set("recover_s", upAgain)
	e.Heal()
	return nil
}

func init() {
	register(&Scenario{
		ID: "F4", Title: "wrong auth-pass for a long time",
		Setup:    Setup{Auth: f4Auth},
		Fault:    "sentinels log in to redis as an ACL user; SENTINEL SET mym auth-pass <wrong> on sentinel h3 only, kept for the soak (default 5 min, `--soak 1h` for the scorecard's hour); RSS and open files of every sentinel sampled every 2 s; then the right password back",
		Expected: "h3 sees the master s_down (its PINGs get -NOAUTH) but no failover; h3's memory and open files stay flat (redis#2535); the master is up for h3 again ≤ 5 s after the right password",
		Schedule: f4Schedule,
		Runs:     2,
		Criteria: []Criterion{noFailover(),
			{Name: "the wrong password bites (h3: master s_down)", Check: func(r *RunResult) (bool, string) {
				v, end := r.Extra["sdown_after_s"], r.Extra["sdown_at_end"]
				return v >= 0 && end == 1, fmt.Sprintf("sdown_after_s = %g, sdown_at_end = %g", v, end)
			}},
			growthAtMost("rss_growth_kib", f4MaxGrowthKiB, "h3 RSS growth ≤ 2 MiB over the soak"),
			growthAtMost("fd_growth", 2, "h3 open files grow by ≤ 2"),
			extraAtMost("recover_s", 5, "master up for h3 ≤ 5 s after the right password"),
		},
	})
}

// growthAtMost: a growth figure is present and ≤ max (a negative growth, a
// shrink, passes: unlike extraAtMost, -1 is not "never" here).
func growthAtMost(name string, max float64, label string) Criterion {
	return Criterion{Name: label, Check: func(r *RunResult) (bool, string) {
		v, ok := r.Extra[name]
		if !ok {
			return false, name + " not measured"
		}
		return v <= max, fmt.Sprintf("%s = %g", name, v)
	}}
}
