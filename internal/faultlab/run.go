package faultlab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
	"github.com/gosentinel/gosentinel/internal/testutil"
)

// Options configure Run.
type Options struct {
	// Patterns select scenarios by id (globs); empty means all.
	Patterns []string
	// Kinds are the sentinel kinds to run (empty: redis and gosentinel).
	Kinds []Kind
	// Runs per scenario and kind; 0 means the scenario's default (1 with Smoke).
	Runs int
	// Seed is the base seed: run i of a scenario uses Seed+i.
	Seed uint64
	// Out is the results directory (JSON, one file per scenario and kind).
	Out string
	// Smoke selects the smoke set when Patterns is empty, one run each.
	Smoke bool
	// Keep keeps a failed run's lab directory (logs, configs, data).
	Keep bool
	// KeepAll keeps every run's lab directory, passed or failed, with
	// its checker input (to analyse a figure of a run that passed).
	KeepAll bool
	// Parallel is how many labs run at once (default 1: measured runs
	// should not compete for the 2 cores of this machine).
	Parallel int
	// Dir is the work directory (default: a new temp dir, removed at the end).
	Dir string
	// ModuleDir is where the go tool builds gosentinel ("" = current dir).
	ModuleDir string
	// GoBin is a prebuilt gosentinel binary (skips the build).
	GoBin string
	// Soak is how long a soak scenario (F4) keeps its fault in place
	// (0: the scenario's own default).
	Soak time.Duration
	// Log receives progress (default: discard).
	Log *slog.Logger
	// Progress receives one line per finished run (may be nil).
	Progress io.Writer
}

// ErrNoScenario is returned when the patterns match no scenario.
var ErrNoScenario = errors.New("faultlab: no scenario matches")

// Summary is what Run did.
type Summary struct {
	Runs, Passed, Failed, NotYet int
	Results                      []RunResult
	Duration                     time.Duration
}

// Run runs the selected scenarios on the selected kinds and saves the
// results. Cancelling ctx (Ctrl-C, SIGTERM) tears every lab down.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	start := time.Now()
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if len(opts.Kinds) == 0 {
		opts.Kinds = []Kind{KindRedis, KindGosentinel}
	}
	if opts.Parallel <= 0 {
		opts.Parallel = 1
	}
	pats := opts.Patterns
	if len(pats) == 0 {
		if opts.Smoke {
			pats = SmokeIDs()
		} else {
			pats = []string{"*"}
		}
	}
	scens, err := Select(pats)
	if err != nil {
		return nil, fmt.Errorf("faultlab: --scenario: %w", err)
	}
	if len(scens) == 0 {
		return nil, fmt.Errorf("%w %v", ErrNoScenario, pats)
	}
	if os.Geteuid() != 0 {
		return nil, netlab.ErrNotRoot
	}
	dir := opts.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "gsl-lab-")
		if err != nil {
			return nil, fmt.Errorf("faultlab: work dir: %w", err)
		}
		dir = d
	}
	keepDir := false
	defer func() {
		if !keepDir && opts.Dir == "" {
			os.RemoveAll(dir)
		}
	}()
	goBin, err := absBinary(opts.GoBin)
	if err != nil {
		return nil, err
	}
	if goBin == "" {
		goBin, err = testutil.BuildGosentinelContext(ctx, opts.ModuleDir, filepath.Join(dir, "bin"))
		if err != nil {
			return nil, fmt.Errorf("faultlab: %w", err)
		}
	}
	type job struct {
		s    *Scenario
		kind Kind
		run  int
	}
	var jobs []job
	sum := &Summary{}
	for _, s := range scens {
		if s.NotYet != "" {
			sum.NotYet++
			continue
		}
		runs := opts.Runs
		if runs == 0 {
			runs = s.Runs
			if runs == 0 {
				runs = 3
			}
			if opts.Smoke {
				runs = 1
			}
		}
		for _, k := range s.kinds(opts.Kinds) {
			for i := 0; i < runs; i++ {
				jobs = append(jobs, job{s, k, i})
			}
		}
	}
	if opts.Parallel > 1 {
		// Solo scenarios first (they run alone: at the start they wait
		// for no run in progress), then the longest runs first, by the
		// mean duration of the runs stored in Out (longest processing
		// time first: the short runs fill the labs at the end instead
		// of a long run starting last).
		prev, _ := LoadResults(opts.Out)
		est := func(j job) float64 {
			var sum float64
			n := 0
			for _, r := range prev[j.s.ID][j.kind] {
				if r.DurationS > 0 {
					sum += r.DurationS
					n++
				}
			}
			if n == 0 {
				return 1e9 // unknown: may be long, start it early
			}
			return sum / float64(n)
		}
		sort.SliceStable(jobs, func(a, b int) bool {
			if jobs[a].s.Solo != jobs[b].s.Solo {
				return jobs[a].s.Solo
			}
			return est(jobs[a]) > est(jobs[b])
		})
	}
	var mu sync.Mutex
	results := map[string][]RunResult{}
	solo := make([]bool, len(jobs))
	for i, j := range jobs {
		solo[i] = j.s.Solo
	}
	runPool(ctx, opts.Parallel, solo, func(i int) {
		j := jobs[i]
		r := runOne(ctx, opts, j.s, j.kind, j.run, dir, goBin)
		mu.Lock()
		defer mu.Unlock()
		key := j.s.ID + "/" + string(j.kind)
		results[key] = append(results[key], r)
		sum.Results = append(sum.Results, r)
		sum.Runs++
		if r.Pass {
			sum.Passed++
		} else {
			sum.Failed++
		}
		if r.LabDir != "" {
			keepDir = true // a kept run (--keep failed, --keep-all any) keeps the work dir
		}
		if opts.Progress != nil {
			fmt.Fprintln(opts.Progress, progressLine(r))
		}
	})
	if opts.Out != "" {
		for _, runs := range results {
			if err := SaveResults(opts.Out, runs); err != nil {
				return sum, err
			}
		}
	}
	sum.Duration = time.Since(start)
	if ctx.Err() != nil {
		return sum, fmt.Errorf("faultlab: interrupted: %w", ctx.Err())
	}
	return sum, nil
}

func progressLine(r RunResult) string {
	verdict := "PASS"
	if !r.Pass {
		verdict = "FAIL"
	}
	f := r.Figures
	line := fmt.Sprintf("%-5s %-4s %-12s run %d seed %d  %5.1fs  switch %.2fs conv %.2fs lost %d splitbrain %.2fs failovers %d epochs %d viol %d",
		verdict, r.Scenario, r.Kind, r.Run, r.Seed, r.DurationS, f.RTOSwitchS, f.RTOConvS, f.LostAck, f.SplitBrainS, f.Failovers, f.EpochsBurned, f.Violations)
	if r.Error != "" {
		line += "\n      error: " + r.Error
	}
	for _, fl := range r.Failed {
		line += "\n      failed: " + fl
	}
	if r.LabDir != "" {
		line += "\n      kept: " + r.LabDir
	}
	return line
}

func runSeed(base uint64, run int) uint64 { return base + uint64(run) }

func idHash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// runOne carries out one run in a lab of its own.
func runOne(ctx context.Context, opts Options, s *Scenario, kind Kind, run int, dir, goBin string) (r RunResult) {
	seed := runSeed(opts.Seed, run)
	r = RunResult{Scenario: s.ID, Kind: kind, Run: run, Seed: seed, Start: time.Now().UTC(), Extra: map[string]float64{}, Phases: map[string]float64{}}
	labDir := filepath.Join(dir, fmt.Sprintf("%s-%s-%d", s.ID, kind, run))
	defer func() { r.DurationS = float64(time.Since(r.Start).Round(100*time.Millisecond)) / float64(time.Second) }()
	ph := phaseClock{r: &r, at: time.Now()}
	if err := os.MkdirAll(labDir, 0o755); err != nil {
		r.Error = err.Error()
		return r
	}
	keep := false
	defer func() {
		if !keep {
			os.RemoveAll(labDir)
		}
	}()
	lab, err := netlab.New(ctx, netlab.Options{Dir: labDir, Log: opts.Log})
	if err != nil {
		r.Error = fmt.Sprintf("lab: %v", err)
		return r
	}
	ph.mark("lab")
	defer func() {
		lab.Close()
		ph.mark("teardown")
	}()
	in := execute(ctx, s, kind, lab, labDir, goBin, seed, opts.Soak, &r, &ph)
	if (!r.Pass && opts.Keep) || opts.KeepAll {
		keep = true
		r.LabDir = labDir
		if in != nil {
			if err := saveInput(filepath.Join(labDir, "checker-input.json"), in); err != nil {
				r.Notes = append(r.Notes, err.Error())
			}
		}
	}
	return r
}

// saveInput writes what the checker was given (operations, samples,
// events, config copies) as JSON, for the analysis of a kept failed run.
func saveInput(path string, in *workload.Input) error {
	data, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("checker input: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("checker input: %w", err)
	}
	return nil
}

// execute is one run on a fresh lab: topology, workload, schedule,
// convergence, read-back, check, criteria. It returns the checker's input
// (nil when the run ended before the check).
func execute(ctx context.Context, s *Scenario, kind Kind, lab *netlab.Lab, labDir, goBin string, seed uint64, soak time.Duration, r *RunResult, ph *phaseClock) *workload.Input {
	top, err := BuildTopology(ctx, lab, kind, s.Setup, labDir, goBin)
	ph.mark("topology")
	if top != nil {
		defer top.Close()
		for k, v := range top.SetupPhases {
			r.Phases["topology_"+k] = v
		}
	}
	if err != nil {
		r.Error = fmt.Sprintf("topology: %v", err)
		return nil
	}
	setup := top.Setup
	var redisT, sentT []workload.Target
	for _, h := range top.RedisHosts {
		redisT = append(redisT, workload.Target{Name: h, Addr: top.RedisAddr(h), Kind: workload.KindRedis})
	}
	for _, h := range top.SentinelHosts {
		sentT = append(sentT, workload.Target{Name: "sentinel-" + h, Addr: top.SentinelAddr(h), Kind: workload.KindSentinel})
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	sampler, err := workload.StartSampler(runCtx, workload.SamplerConfig{MasterName: MasterName, Redis: redisT, Sentinels: sentT, Dialer: top.Dialer("obs"),
		Password: setup.Auth.RedisPass, SentinelPassword: setup.Auth.SentinelRequirePass})
	if err != nil {
		r.Error = fmt.Sprintf("sampler: %v", err)
		return nil
	}
	samplerStopped := false
	stopSampler := func() ([]workload.Sample, []workload.Event) {
		samplerStopped = true
		return sampler.Stop()
	}
	defer func() {
		if !samplerStopped {
			sampler.Stop()
		}
	}()
	hist := startConfigHistory(runCtx, top)
	var writers []*workload.Writer
	stopWriters := func() []workload.Op {
		var ops []workload.Op
		for _, w := range writers {
			ops = append(ops, w.Stop()...)
		}
		writers = nil
		return ops
	}
	defer stopWriters()
	for _, ws := range setup.Writers {
		order := ws.SentinelOrder
		if len(order) == 0 {
			order = top.SentinelHosts
		}
		var addrs []string
		for _, h := range order {
			addrs = append(addrs, top.ClientSentinelAddr(h))
		}
		w, err := workload.StartWriter(runCtx, workload.WriterConfig{Name: ws.Name, Client: ws.Client, MasterName: MasterName,
			Sentinels: addrs, Dialer: top.Dialer(ws.Host), Mode: ws.Mode, Replicas: len(top.RedisHosts) - 1, Rate: ws.Rate, Keys: 8,
			Password: setup.Auth.RedisPass, SentinelPassword: setup.Auth.SentinelRequirePass})
		if err != nil {
			r.Error = fmt.Sprintf("writer %s: %v", ws.Name, err)
			return nil
		}
		writers = append(writers, w)
	}
	env := &Env{Top: top, Lab: lab, Kind: kind, Rand: rand.New(rand.NewPCG(seed, idHash(s.ID))), Soak: soak, extra: map[string]float64{}}
	// Steady state before the schedule: every writer has acknowledged writes.
	if err := waitWritesFlow(runCtx, writers, 20*time.Second); err != nil {
		r.Error = err.Error()
		return nil
	}
	if err := sampler.WaitRounds(runCtx, 10); err != nil {
		r.Error = err.Error()
		return nil
	}
	ph.mark("steady")
	schedErr := s.Schedule(runCtx, env)
	env.healAll()
	ph.mark("schedule")
	if schedErr != nil {
		r.Error = fmt.Sprintf("schedule: %v", schedErr)
	}
	env.mu.Lock()
	if env.healAt.IsZero() {
		env.healAt = time.Now()
	}
	faultAt, healAt := env.faultAt, env.healAt
	env.mu.Unlock()
	if faultAt.IsZero() {
		faultAt = healAt
	}
	master, convAt, convErr := top.WaitConverged(runCtx, s.settle())
	if convErr == nil {
		r.Figures.ConvAfterHealS = secs(convAt.Sub(healAt))
	}
	ph.mark("converge")
	_ = env.Sleep(runCtx, s.observe())
	_ = sampler.WaitRounds(runCtx, 3)
	ph.mark("observe")
	defer ph.mark("check")
	ops := stopWriters()
	if master == "" {
		// Not converged: read back from the majority's master, if any.
		master = env.Master(ctx)
	}
	samples, events := stopSampler()
	hist.stop()
	in := workload.Input{FaultAt: faultAt, HealAt: healAt, OldMaster: top.RedisAddr(top.RedisHosts[0]), Quorum: setup.Quorum,
		Ops: ops, Samples: samples, Events: events, MasterName: MasterName, ExpectFailover: s.ExpectFailover,
		Aliases: top.Aliases(), EpochResets: env.epochResets, ConfigHistory: hist.copies(), Crashes: top.Crashes(),
		Observed: env.observedEvents()}
	for h, p := range setup.Priority {
		if p == 0 {
			in.Priority0 = append(in.Priority0, top.RedisAddr(h))
		}
	}
	in.ConfigFiles = top.ConfigFiles(ctx)
	if master != "" {
		in.FinalMaster = top.RedisAddr(master)
		if len(ops) > 0 {
			rctx, rcancel := context.WithTimeout(ctx, 10*time.Second)
			fr, err := workload.ReadBack(rctx, top.Dialer("obs"), top.currentRedisAddr(master), 8, setup.Auth.RedisPass)
			rcancel()
			if err != nil {
				r.Notes = append(r.Notes, fmt.Sprintf("read-back from %s failed: %v", master, err))
			} else {
				in.Final = fr
			}
		}
	}
	rep := workload.Check(in)
	r.Figures = mergeConv(figuresOf(rep), r.Figures.ConvAfterHealS)
	r.Figures.Crashes = len(in.Crashes)
	if exp := s.expectedFailovers(); rep.Failovers > exp {
		r.Figures.FalseFailovers = rep.Failovers - exp
	} else {
		r.Figures.FalseFailovers = 0
	}
	r.Violations = rep.Violations
	r.Notes = append(r.Notes, rep.Notes...)
	r.ByWriter = byWriter(in, setup.Writers)
	r.Figures.RTOClientS = plainRTOClient(r.ByWriter)
	env.mu.Lock()
	for k, v := range env.extra {
		r.Extra[k] = v
	}
	r.Notes = append(r.Notes, env.notes...)
	env.mu.Unlock()
	if s.Post != nil {
		s.Post(r, &in, top)
	}
	if convErr != nil && !s.NoConverge {
		r.Failed = append(r.Failed, "L1: "+convErr.Error())
	}
	if in.Final == nil && len(ops) > 0 {
		r.Failed = append(r.Failed, "read-back: no final read, LostAck not measured")
	}
	judge(s, r)
	return &in
}

// phaseClock records how long each phase of a run took (RunResult.Phases).
type phaseClock struct {
	r  *RunResult
	at time.Time
}

// mark ends the current phase under name and starts the next one.
func (p *phaseClock) mark(name string) {
	now := time.Now()
	p.r.Phases[name] += secs(now.Sub(p.at))
	p.at = now
}

func mergeConv(f Figures, conv float64) Figures {
	f.ConvAfterHealS = conv
	return f
}

// byWriter checks each writer's operations alone, for the per-client and
// per-mode figures.
func byWriter(in workload.Input, specs []WriterSpec) map[string]WriterFigures {
	if len(specs) == 0 {
		return nil
	}
	ops := map[string][]workload.Op{}
	for _, op := range in.Ops {
		ops[op.Writer] = append(ops[op.Writer], op)
	}
	out := map[string]WriterFigures{}
	for _, ws := range specs {
		sub := in
		sub.Ops = ops[ws.Name]
		// Ids of other writers in the final read are not phantoms of this one.
		sub.Final = workload.FinalRead{}
		prefix := ws.Name + "-"
		for k, ids := range in.Final {
			for _, id := range ids {
				if strings.HasPrefix(id, prefix) {
					sub.Final[k] = append(sub.Final[k], id)
				}
			}
		}
		if in.Final == nil {
			sub.Final = nil
		}
		rep := workload.Check(sub)
		out[ws.Name] = WriterFigures{Client: string(ws.Client), Mode: string(ws.Mode), Writes: rep.Writes, Acked: rep.Acked,
			LostAck: rep.LostAck, Unknown: rep.Unknown, Failed: rep.Failed, StaleAcks: rep.StaleAcks, StaleAcksLate: rep.StaleAcksLate,
			FailedApplied: rep.FailedApplied, UnknownApplied: rep.UnknownApplied, RTOClientS: secs(rep.RTOClient)}
	}
	return out
}

// judge applies the global criteria and the scenario's own.
func judge(s *Scenario, r *RunResult) {
	f := r.Figures
	if r.Error != "" {
		r.Failed = append(r.Failed, "error: "+r.Error)
	}
	if len(r.Violations) > 0 {
		var ids []string
		for _, v := range r.Violations {
			ids = append(ids, v.ID+": "+v.Detail)
		}
		sort.Strings(ids)
		if len(ids) > 5 {
			ids = append(ids[:5], fmt.Sprintf("... %d more", len(ids)-5))
		}
		r.Failed = append(r.Failed, "invariants: "+strings.Join(ids, "; "))
	}
	if f.Phantom > 0 {
		r.Failed = append(r.Failed, fmt.Sprintf("phantom ids: %d", f.Phantom))
	}
	if f.FalseFailovers > 0 {
		r.Failed = append(r.Failed, fmt.Sprintf("false failovers: %d (failovers %d, expected %d)", f.FalseFailovers, f.Failovers, s.expectedFailovers()))
	}
	if s.ExpectFailover && !s.AnyFailovers && f.Failovers == 0 {
		r.Failed = append(r.Failed, "no failover happened")
	}
	for _, c := range s.Criteria {
		if ok, detail := c.Check(r); !ok {
			r.Failed = append(r.Failed, c.Name+": "+detail)
		}
	}
	r.Pass = len(r.Failed) == 0
}

// configHistory copies every sentinel's config file whenever it changes
// (every 200 ms), for L2 "loads at every instant".
type configHistory struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	list   []workload.ConfigFile
}

func startConfigHistory(ctx context.Context, top *Topology) *configHistory {
	ctx, cancel := context.WithCancel(ctx)
	h := &configHistory{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		last := map[string][]byte{}
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			for name, data := range top.ConfigFiles(ctx) {
				if !bytes.Equal(last[name], data) {
					last[name] = data
					h.mu.Lock()
					h.list = append(h.list, workload.ConfigFile{At: time.Now(), Sentinel: name, Data: data})
					h.mu.Unlock()
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

func (h *configHistory) stop() {
	h.cancel()
	<-h.done
}

func (h *configHistory) copies() []workload.ConfigFile {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]workload.ConfigFile(nil), h.list...)
}

// waitWritesFlow waits until every writer has at least 5 acknowledged writes.
func waitWritesFlow(ctx context.Context, writers []*workload.Writer, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		ok := true
		for _, w := range writers {
			if w.Progress().OK < 5 {
				ok = false
			}
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("writes do not flow after %v", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// plainRTOClient is the worst RTO_client of the plain writers (WAIT-all
// writers cannot recover while a replica is missing): -1 when one never
// recovered or there is none.
func plainRTOClient(ws map[string]WriterFigures) float64 {
	worst, seen := -1.0, false
	for _, w := range ws {
		if w.Mode != string(workload.ModePlain) {
			continue
		}
		if w.RTOClientS < 0 {
			return -1
		}
		seen = true
		worst = max(worst, w.RTOClientS)
	}
	if !seen {
		return -1
	}
	return worst
}

// absBinary makes a prebuilt gosentinel path absolute (the lab starts it
// inside each host's namespace from another working directory, where a
// relative path is "not found") and checks that it is an executable file.
func absBinary(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("faultlab: gosentinel binary %s: %w", p, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("faultlab: gosentinel binary: %w", err)
	}
	if st.IsDir() || st.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("faultlab: gosentinel binary %s is not an executable file", abs)
	}
	return abs, nil
}
