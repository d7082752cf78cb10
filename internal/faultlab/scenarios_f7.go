package faultlab

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// F7 drives the notification script of the sentinel on h1 with SENTINEL
// RESET (each one is a +reset-master event, a warning, so it queues one
// script job). The script's behaviour is chosen by a mode file: "hold"
// (runs 3600 s unless released), "fail" (exits 1 at once), "ok".
const f7Script = `#!/bin/sh
d=%q
echo "start $$ $(date +%%s.%%N) $1" >> "$d/runs.log"
ls -l /proc/self/fd > "$d/fd.$$" 2>&1
mode=$(cat "$d/mode" 2>/dev/null)
case "$mode" in
hold)
	i=0
	while [ $i -lt 3600 ] && [ ! -e "$d/release" ]; do sleep 1; i=$((i+1)); done ;;
fail)
	exit 1 ;;
esac
exit 0
`

// The limits of Sentinel's script runner (sentinel.c SENTINEL_SCRIPT_*).
const (
	f7Events     = 300
	f7MaxQueue   = 256
	f7MaxRunning = 16
	f7MaxRetry   = 10
	f7MaxRuntime = 60 * time.Second
)

func f7Dir(t *Topology) string { return filepath.Join(t.Dir, "f7") }

func f7Prepare(ctx context.Context, t *Topology) error {
	d := f7Dir(t)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return fmt.Errorf("f7 dir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(d, "notify.sh"), []byte(fmt.Sprintf(f7Script, d)), 0o755); err != nil {
		return fmt.Errorf("f7 script: %w", err)
	}
	return os.WriteFile(filepath.Join(d, "mode"), []byte("ok\n"), 0o644)
}

// f7Run is one script run, from the script's own log line.
type f7Run struct {
	pid     int
	start   time.Time
	mode    string // the mode when the runner first saw it
	end     time.Time
	endSeen bool
	alive   bool   // seen running at least once
	ticks   string // /proc starttime when first seen: a reused PID has another
}

// f7Watch polls the sentinel's script counters and the script processes.
type f7Watch struct {
	mu                   sync.Mutex
	maxRunning, maxQueue int
	maxProcs, maxRetry   int
	running, queue       int
	list                 []*f7Run // in the order of the script's log
	logOff               int64
	mode                 string
	infoErrs             int
}

// pollInfo reads the sentinel's script counters (and retry numbers).
func (w *f7Watch) pollInfo(ctx context.Context, e *Env, withPending bool) {
	info, err := e.Top.SentinelDo(ctx, "h1", "INFO", "sentinel")
	w.mu.Lock()
	if err == nil {
		s := fmt.Sprint(info)
		w.running = infoInt(s, "sentinel_running_scripts")
		w.queue = infoInt(s, "sentinel_scripts_queue_length")
		w.maxRunning = max(w.maxRunning, w.running)
		w.maxQueue = max(w.maxQueue, w.queue)
	} else {
		w.infoErrs++
	}
	w.mu.Unlock()
	if withPending {
		if v, err := e.Top.SentinelDo(ctx, "h1", "SENTINEL", "PENDING-SCRIPTS"); err == nil {
			l, _ := v.([]any)
			w.mu.Lock()
			for _, j := range l {
				n, _ := strconv.Atoi(flat(j)["retry-num"])
				w.maxRetry = max(w.maxRetry, n)
			}
			w.mu.Unlock()
		}
	}
}

// pollProcs picks up new runs from the script's log and checks which run
// processes are alive (local /proc reads only, so a slow sentinel does not
// delay it). A run's start is its process's start time from /proc (the
// script's own stamp comes after a fork of date, late under load).
func (w *f7Watch) pollProcs(dir string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if f, err := os.Open(filepath.Join(dir, "runs.log")); err == nil {
		if _, err := f.Seek(w.logOff, 0); err == nil {
			r := bufio.NewReader(f)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					break
				}
				w.logOff += int64(len(line))
				fs := strings.Fields(line)
				if len(fs) < 3 {
					continue
				}
				pid, _ := strconv.Atoi(fs[1])
				ts, _ := strconv.ParseFloat(fs[2], 64)
				w.list = append(w.list, &f7Run{pid: pid, start: time.UnixMicro(int64(ts * 1e6)), mode: w.mode})
			}
		}
		f.Close()
	}
	alive := 0
	now := time.Now()
	for _, r := range w.list {
		if r.endSeen {
			continue
		}
		if ok, started, ticks := procAlive(r.pid); ok && (r.ticks == "" || ticks == r.ticks) {
			alive++
			if !r.alive && !started.IsZero() {
				r.start, r.ticks = started, ticks
			}
			r.alive = true
		} else {
			r.end, r.endSeen = now, true
		}
	}
	w.maxProcs = max(w.maxProcs, alive)
}

func (w *f7Watch) setMode(dir, mode string) error {
	w.mu.Lock()
	w.mode = mode
	w.mu.Unlock()
	return os.WriteFile(filepath.Join(dir, "mode"), []byte(mode+"\n"), 0o644)
}

func (w *f7Watch) counters() (running, queue int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.running, w.queue
}

// procAlive reports whether the process exists and is not a zombie, when
// it started (from /proc/PID/stat starttime and /proc/uptime, read
// together; zero if unknown) and its raw starttime, which tells a reused
// PID apart (pid_max is 32768 here).
func procAlive(pid int) (bool, time.Time, string) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	up, uerr := os.ReadFile("/proc/uptime")
	now := time.Now()
	if err != nil {
		return false, time.Time{}, ""
	}
	s := string(data)
	i := strings.LastIndex(s, ")")
	if i < 0 || i+2 >= len(s) || s[i+2] == 'Z' {
		return false, time.Time{}, ""
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state); starttime is field 22
	if len(f) < 20 || uerr != nil {
		return true, time.Time{}, ""
	}
	ticks, err1 := strconv.ParseFloat(f[19], 64)
	upS, err2 := strconv.ParseFloat(strings.Fields(string(up))[0], 64)
	if err1 != nil || err2 != nil {
		return true, time.Time{}, f[19]
	}
	const clkTck = 100 // USER_HZ on Linux
	return true, now.Add(-time.Duration((upS - ticks/clkTck) * float64(time.Second))), f[19]
}

func infoInt(info, key string) int {
	i := strings.Index(info, key+":")
	if i < 0 {
		return -1
	}
	rest := info[i+len(key)+1:]
	if j := strings.IndexAny(rest, "\r\n"); j >= 0 {
		rest = rest[:j]
	}
	n, _ := strconv.Atoi(strings.TrimSpace(rest))
	return n
}

// f7InheritedFDs counts, over every run's descriptor listing, the
// descriptors beyond 0-2. The listing is ls's own /proc/self/fd: what the
// script's shell inherited from the sentinel and passed on (the shell's own
// descriptors — the script file, its saved stdout — are close-on-exec),
// plus ls's handle on the directory it lists.
func f7InheritedFDs(dir string, notes *[]string) int {
	files, _ := filepath.Glob(filepath.Join(dir, "fd.*"))
	script := filepath.Join(dir, "notify.sh")
	n := 0
	seen := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(data), "\n") {
			i := strings.Index(l, " -> ")
			if i < 0 {
				continue
			}
			fs := strings.Fields(l[:i])
			fd := fs[len(fs)-1]
			target := l[i+4:]
			if fd == "0" || fd == "1" || fd == "2" || target == script || strings.HasPrefix(target, "/proc/") {
				continue
			}
			n++
			if !seen[fd+target] && len(seen) < 10 {
				seen[fd+target] = true
				*notes = append(*notes, fmt.Sprintf("inherited fd %s -> %s", fd, target))
			}
		}
	}
	return n
}

func f7Schedule(ctx context.Context, e *Env) error {
	dir := f7Dir(e.Top)
	w := &f7Watch{mode: "ok"}
	w.pollProcs(dir) // runs before the schedule (+monitor) are "ok" runs
	pctx, stop := context.WithCancel(ctx)
	done := make(chan struct{}, 2)
	every := func(d time.Duration, f func(i int)) {
		defer func() { done <- struct{}{} }()
		for i := 0; pctx.Err() == nil; i++ {
			f(i)
			select {
			case <-pctx.Done():
			case <-time.After(d):
			}
		}
	}
	go every(50*time.Millisecond, func(int) { w.pollProcs(dir) })
	go every(100*time.Millisecond, func(i int) { w.pollInfo(pctx, e, i%5 == 0) })
	stopped := false
	stopPolls := func() {
		if !stopped {
			stopped = true
			stop()
			<-done
			<-done
		}
	}
	defer stopPolls()

	// Phase 1: scripts that hang, and 300 events.
	if err := w.setMode(dir, "hold"); err != nil {
		return err
	}
	e.Fault()
	start := time.Now()
	errs, err := pipelineCommand(ctx, e.Top.Host("obs"), e.Top.SentinelAddr("h1"), e.Top.Setup.Auth.SentinelRequirePass,
		f7Events, 60*time.Second, "SENTINEL", "RESET", MasterName)
	if err != nil {
		return fmt.Errorf("%d × SENTINEL RESET: %w", f7Events, err)
	}
	if errs > 0 {
		return fmt.Errorf("%d × SENTINEL RESET: %d errors", f7Events, errs)
	}
	e.Set("events_s", secs(time.Since(start)))
	if err := e.Sleep(ctx, f7MaxRuntime+6*time.Second-time.Since(start)); err != nil {
		return err
	}
	// Phase 2: release the hung scripts; from now on every run exits 1.
	if err := w.setMode(dir, "fail"); err != nil {
		return err
	}
	releaseAt := time.Now()
	if err := os.WriteFile(filepath.Join(dir, "release"), nil, 0o644); err != nil {
		return err
	}
	if err := e.Sleep(ctx, 35*time.Second); err != nil {
		return err
	}
	// Phase 3: scripts succeed again; the retries drain the queue.
	if err := w.setMode(dir, "ok"); err != nil {
		return err
	}
	okAt := time.Now()
	zero := -1.0
	for time.Since(okAt) < 150*time.Second {
		if err := e.Sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
		if r, q := w.counters(); r == 0 && q == 0 {
			zero = secs(time.Since(okAt))
			break
		}
	}
	stopPolls()
	w.pollProcs(dir)
	w.pollInfo(ctx, e, true)

	w.mu.Lock()
	defer w.mu.Unlock()
	killed, late, held := 0, 0, 0
	maxRT, minRT := 0.0, -1.0
	for _, r := range w.list {
		if r.mode != "hold" || !r.alive || !r.start.Before(releaseAt) {
			continue
		}
		held++
		end := releaseAt
		if r.endSeen && r.end.Before(releaseAt) {
			end = r.end
			killed++
			rt := secs(end.Sub(r.start))
			maxRT = max(maxRT, rt)
			if minRT < 0 || rt < minRT {
				minRT = rt
			}
		}
		if end.Sub(r.start) > f7MaxRuntime+2*time.Second {
			late++
		}
	}
	e.Set("script_runs", float64(len(w.list)))
	e.Set("held_scripts", float64(held))
	e.Set("killed_scripts", float64(killed))
	e.Set("killed_runtime_max_s", maxRT)
	e.Set("killed_runtime_min_s", minRT)
	e.Set("held_past_62s", float64(late))
	e.Set("max_running", float64(w.maxRunning))
	e.Set("max_script_procs", float64(w.maxProcs))
	e.Set("max_queue", float64(w.maxQueue))
	e.Set("max_retry_num", float64(w.maxRetry))
	e.Set("counters_zero_s", zero)
	if w.infoErrs > 0 {
		e.Note("INFO sentinel failed %d times during the run", w.infoErrs)
	}
	var notes []string
	e.Set("inherited_fds", float64(f7InheritedFDs(dir, &notes)))
	for _, n := range notes {
		e.Note("%s", n)
	}
	e.Heal()
	return nil
}

func init() {
	register(&Scenario{
		ID: "F7", Title: "notification scripts misbehaving",
		// A tmpfs config directory: every SENTINEL RESET saves the config
		// (fsync), which takes up to 0.5 s on a loaded disk; the script
		// queue, not the disk, is what F7 measures.
		Setup: Setup{NoWriters: true, SentinelTmpfs: "1m", Prepare: f7Prepare, SentinelExtra: func(t *Topology, h string) string {
			if h != t.SentinelHosts[0] {
				return ""
			}
			return fmt.Sprintf("sentinel notification-script %s %s\n", MasterName, filepath.Join(f7Dir(t), "notify.sh"))
		}},
		Fault: "notification script on the sentinel on h1 (tmpfs config dir); 300 × SENTINEL RESET on it, pipelined (300 +reset-master events) while the script hangs (3600 s); " +
			"66 s later release the hung runs and make every run exit 1 for 35 s; then let runs succeed (~3 min a run)",
		Expected: "killed at 60 s; ≤ 16 running; queue ≤ 256; retry-num ≤ 10 (exit 1 and killed runs are retried); no inherited FDs; running and queued counters return to 0 (redis 9d27e00dd)",
		Schedule: f7Schedule,
		Settle:   60 * time.Second,
		Criteria: []Criterion{noFailover(),
			extraAtMost("max_running", f7MaxRunning, "≤ 16 scripts running (INFO)"),
			extraAtMost("max_script_procs", f7MaxRunning, "≤ 16 script processes alive"),
			extraAtMost("max_queue", f7MaxQueue, "queue ≤ 256"),
			extraAtMost("held_past_62s", 0, "hung scripts killed at 60 s"),
			{Name: "the first 16 hung scripts were killed", Check: func(r *RunResult) (bool, string) {
				return r.Extra["killed_scripts"] >= f7MaxRunning, fmt.Sprintf("killed %g, runtime %.1f–%.1f s", r.Extra["killed_scripts"], r.Extra["killed_runtime_min_s"], r.Extra["killed_runtime_max_s"])
			}},
			extraAtMost("max_retry_num", f7MaxRetry, "retry-num ≤ 10"),
			extraEquals("inherited_fds", 0, "no inherited FDs"),
			{Name: "counters return to 0", Check: func(r *RunResult) (bool, string) {
				v := r.Extra["counters_zero_s"]
				return v >= 0, fmt.Sprintf("counters_zero_s = %g", v)
			}},
		},
	})
}
