package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// replTickPeriod is how often the replication model advances.
const replTickPeriod = 50

// maxViolations caps the violations recorded for one run.
const maxViolations = 20

// World is one simulation run: the modelled instances, the sentinels, the
// network and the invariant checker, driven by one event queue.
type World struct {
	opt Options
	sch scheduler
	rng *rand.Rand

	masters []string    // monitored master names, one per instance group
	inst    []*instance // all instances, group by group
	sent    []*sentinel
	conns   []*conn
	// blocked[a][b]: packets from node a to node b are held (partition).
	blocked [][]bool
	cuts    [][]int // overlapping partitions per direction
	noDial  [][]int // firewall rules: new connections a→b dropped (counted)

	trace *strings.Builder // nil unless tracing
	chk   checker
	live  liveState
	steps int

	ignore map[string]bool // invariants not reported

	// netDisturbed is, per node, the last time a partition, connection
	// reset, stall or clock jump touched it (S6 judges only calm nodes).
	netDisturbed []int64

	nextPID int // pids of simulated scripts

	renamedFrom map[string]string // rename-command: new name → original (upper case)
	passGen     int               // current password generation (Auth)
	rotating    bool              // a password rotation is in progress

	// Sentinel AUTH (sentauth.go).
	sentGen      int            // current sentinel password generation
	sentAccepted []string       // passwords every sentinel's server accepts
	sentWant     map[int]string // sentinel-pass each sentinel should have
	sentRotating bool
	// forgot[g][id]: sentinel id forgot the replicas of group g at least
	// once, by a SENTINEL RESET or a lost config file (operator.go).
	forgot      map[int]map[int]bool
	sentPushing bool

	replGen int               // replication ids handed out (psync.go)
	ipMoves int               // names moved to a new IP (hostnames.go)
	dns     map[string]string // simulated DNS: hostname → IP
}

// Result is the outcome of one seed.
type Result struct {
	Seed       uint64      // the seed that was run
	Options    Options     // what the seed expanded into
	Failovers  int         // completed failovers (distinct (master, config epoch) that reached +switch-master)
	Violations []Violation // each distinct check at most once, in order of occurrence
	Steps      int         // core Steps executed
	Trace      string      // full event trace (only with tracing on)
}

// Violation is a broken invariant.
type Violation struct {
	Seed      uint64 // the seed that shows it
	Time      int64  // virtual ms
	Invariant string // S1..S9, L1..L4, P1..P2 (core contract), OPTIONS, BOOT
	Sentinel  int    // -1 when not about one sentinel
	Detail    string // what happened
}

// String renders a violation on one line.
func (v Violation) String() string {
	who := ""
	if v.Sentinel >= 0 {
		who = fmt.Sprintf(" sentinel %d", v.Sentinel)
	}
	return fmt.Sprintf("seed %d: %s violated at %dms%s: %s", v.Seed, v.Invariant, v.Time, who, v.Detail)
}

// Config says how to run seeds.
type Config struct {
	// Trace records the full event trace in Result.Trace.
	Trace bool
	// Ignore lists invariants (e.g. "S8") whose violations are not
	// reported, so that known findings do not hide new ones. "S5/text"
	// ignores only the S5 checks whose message contains text.
	Ignore []string
}

// Run simulates one seed. With trace set, the Result carries the full
// event trace.
func Run(seed uint64, trace bool) Result {
	return RunOptions(NewOptions(seed), Config{Trace: trace})
}

// RunOptions simulates explicit options (tests use it to pin a scenario).
func RunOptions(o Options, cfg Config) Result {
	if err := o.Validate(); err != nil {
		return Result{Seed: o.Seed, Options: o, Violations: []Violation{{Seed: o.Seed, Invariant: "OPTIONS", Sentinel: -1, Detail: err.Error()}}}
	}
	w := newWorld(o, cfg.Trace)
	for _, inv := range cfg.Ignore {
		w.ignore[inv] = true
	}
	w.run()
	res := Result{
		Seed:       o.Seed,
		Options:    o,
		Failovers:  w.chk.failovers(),
		Violations: w.chk.violations,
		Steps:      w.steps,
	}
	if w.trace != nil {
		res.Trace = w.trace.String()
	}
	return res
}

// newWorld builds the instances and sentinels of o: per master group g, a
// master 10.g.0.1 and its replicas 10.g.0.2…; sentinels 10.0.1.1….
func newWorld(o Options, trace bool) *World {
	w := &World{opt: o, rng: rand.New(rand.NewPCG(o.Seed, 0xfa_17)), ignore: map[string]bool{}}
	if trace {
		w.trace = &strings.Builder{}
	}
	w.chk.init(o)
	w.dns = map[string]string{}
	if o.RenameCommands {
		w.renamedFrom = map[string]string{}
		for _, c := range renamedCommands {
			w.renamedFrom[strings.ToUpper(renamedName(c))] = c
		}
	}
	for g := 0; g < o.masterCount(); g++ {
		name := MasterName
		if g > 0 {
			name = fmt.Sprintf("master%d", g+1)
		}
		w.masters = append(w.masters, name)
		var master core.Addr
		for k := 0; k <= o.Replicas; k++ {
			ip := fmt.Sprintf("10.%d.0.%d", g, k+1)
			in := &instance{
				id:        len(w.inst),
				group:     g,
				addr:      core.Addr{Host: ip, IP: ip, Port: 6379},
				up:        true,
				runID:     w.runID(),
				role:      roleMaster,
				priority:  100,
				announced: true,
			}
			if o.Hostnames {
				in.addr.Host = nodeHostname(g, k)
				w.dns[in.addr.Host] = ip
			}
			if k == 0 {
				master = in.addr
				w.chk.epochAddr[mepoch{name, 0}] = master
			} else {
				in.role, in.masterHost, in.masterPort = roleSlave, master.Host, master.Port
				in.priority, in.announced = o.Priority[k-1], o.Announced[k-1]
			}
			in.confRole, in.confMasterHost, in.confMasterPort = in.role, in.masterHost, in.masterPort
			in.shownPriority, in.prevPriority, in.priorityAt = -1, in.priority, neverChanged
			if o.Auth {
				in.passwords = []string{password(0)}
			}
			w.inst = append(w.inst, in)
		}
	}
	m := len(w.inst)
	for j := 0; j < o.Sentinels; j++ {
		s := &sentinel{
			id:   j,
			node: m + j,
			addr: core.Addr{Host: fmt.Sprintf("10.0.1.%d", j+1), IP: fmt.Sprintf("10.0.1.%d", j+1), Port: 26379},
		}
		s.pub = s.addr
		if o.SentinelAnnounce {
			s.pub = sentinelPublicAddr(j)
		}
		w.sent = append(w.sent, s)
	}
	ids := make([]string, o.Sentinels)
	for j := range ids {
		ids[j] = w.runID()
	}
	for j, s := range w.sent {
		st := core.State{MyID: ids[j], DenyScriptsReconfig: true}
		if o.Hostnames {
			st.ResolveHostnames, st.AnnounceHostnames = true, true
		}
		if o.SentinelAuth {
			st.SentinelPass = sentinelPassword(0)
		}
		if o.SentinelAnnounce {
			st.AnnounceIP, st.AnnounceIPSet, st.AnnouncePort = s.pub.IP, true, s.pub.Port
		}
		for g, name := range w.masters {
			mc := core.MasterConfig{Name: name, Addr: w.groupMaster(g).addr, Quorum: o.Quorum,
				DownAfter: o.DownAfter, FailoverTimeout: o.FailoverTimeout, ParallelSyncs: o.ParallelSyncs}
			if o.Auth {
				mc.AuthPass = password(0)
			}
			if o.RenameCommands {
				for _, c := range renamedCommands {
					mc.RenameCommands = append(mc.RenameCommands, core.Rename{From: c, To: renamedName(c)})
				}
			}
			if o.Scripts != ScriptsNone {
				mc.NotificationScript, mc.ClientReconfigScript = notifyScript, reconfigScript
			}
			if o.PreconfiguredPeers {
				for k, p := range w.sent {
					if k != j {
						mc.KnownSentinels = append(mc.KnownSentinels, core.KnownSentinel{Addr: p.pub, RunID: ids[k]})
					}
				}
			}
			if g == 0 && o.Misconfigured && j == len(w.sent)-1 {
				mc.Addr = w.inst[1].addr
			}
			st.Masters = append(st.Masters, mc)
		}
		s.disk = st
		s.template = cloneState(st)
	}
	if o.PSync {
		w.initPSync()
	}
	if o.SentinelAuth {
		w.sentAccepted = []string{sentinelPassword(0)}
		w.sentWant = map[int]string{}
		for _, s := range w.sent {
			w.sentWant[s.id] = sentinelPassword(0)
		}
	}
	n := m + o.Sentinels
	w.blocked = make([][]bool, n)
	w.cuts = make([][]int, n)
	w.noDial = make([][]int, n)
	w.netDisturbed = make([]int64, n)
	for i := range w.blocked {
		w.blocked[i] = make([]bool, n)
		w.cuts[i] = make([]int, n)
		w.noDial[i] = make([]int, n)
	}
	return w
}

// groupMaster is the instance that starts as master of group g.
func (w *World) groupMaster(g int) *instance { return w.inst[g*(1+w.opt.Replicas)] }

// group lists the instances of master group g.
func (w *World) group(g int) []*instance {
	n := 1 + w.opt.Replicas
	return w.inst[g*n : (g+1)*n]
}

// masterAt returns the name of the master group the instance at a
// belongs to ("" if none).
func (w *World) masterAt(a core.Addr) string {
	if id := w.lookup(a); id >= 0 && id < len(w.inst) {
		return w.masters[w.inst[id].group]
	}
	return ""
}

// runID draws a 40-hex-char run id.
func (w *World) runID() string {
	const hex = "0123456789abcdef"
	b := make([]byte, 40)
	for i := range b {
		b[i] = hex[w.rng.IntN(16)]
	}
	return string(b)
}

// run executes the whole scenario.
func (w *World) run() {
	for _, s := range w.sent {
		s := s
		w.sch.after(w.rng.Int64N(100), func() { w.startSentinel(s) })
	}
	w.sch.after(replTickPeriod, w.replTick)
	w.scheduleFaults()
	w.scheduleHeal()
	end := w.opt.end()
	for {
		fn, ok := w.sch.next(end)
		if !ok {
			break
		}
		fn()
		if w.live.phase == phaseDone {
			return
		}
	}
	if w.live.phase != phaseDone {
		w.violate("L1", nil, "run ended in liveness phase %d\n%s", w.live.phase, w.stateDump())
	}
}

// tracef appends a line to the trace (when tracing).
func (w *World) tracef(format string, a ...any) {
	if w.trace == nil {
		return
	}
	fmt.Fprintf(w.trace, "%7d ", w.sch.now)
	fmt.Fprintf(w.trace, format, a...)
	w.trace.WriteByte('\n')
}

// violate records a violation.
func (w *World) violate(inv string, s *sentinel, format string, a ...any) {
	// Each check reports once per run (keyed by its format); the run goes
	// on, so later and different violations still show.
	key := inv + "|" + format
	if w.ignored(inv, format) || w.chk.seen[key] || len(w.chk.violations) >= maxViolations {
		return
	}
	w.chk.seen[key] = true
	id := -1
	if s != nil {
		id = s.id
	}
	v := Violation{Seed: w.opt.Seed, Time: w.sch.now, Invariant: inv, Sentinel: id, Detail: fmt.Sprintf(format, a...)}
	w.chk.violations = append(w.chk.violations, v)
	w.tracef("VIOLATION %s", v)
}

// ignored reports whether Config.Ignore drops a check.
func (w *World) ignored(inv, format string) bool {
	if w.ignore[inv] {
		return true
	}
	for k := range w.ignore {
		if i, sub, ok := strings.Cut(k, "/"); ok && i == inv && strings.Contains(format, sub) {
			return true
		}
	}
	return false
}

// replTick advances replication: offsets grow on masters, replica links go
// up (after a sync) and down (master gone, partitioned or silent).
func (w *World) replTick() {
	now := w.sch.now
	for _, in := range w.inst {
		if !in.up || in.paused || in.role != roleMaster || in.loading(now) {
			continue
		}
		in.offset += w.opt.ReplRate * replTickPeriod
	}
	for _, in := range w.inst {
		if !in.up || in.paused || in.role != roleSlave {
			continue
		}
		src := w.upstream(in)
		ok := src != nil && !in.loading(now) && !w.blocked[src.id][in.id] && !w.blocked[in.id][src.id] &&
			(!src.paused || now-src.pausedSince < w.opt.ReplTimeout)
		switch {
		case in.linkUp && !ok:
			in.linkUp, in.downSince = false, now
			w.tracef("redis %s: link to %s:%d down", in.addr.IP, in.masterHost, in.masterPort)
		case in.linkUp:
			// Replicas trail their master by up to one tick of writes.
			if off := src.offset - w.rng.Int64N(w.opt.ReplRate*replTickPeriod+1); w.opt.PSync {
				w.followOffset(in, off)
			} else if off > in.offset {
				in.offset = off
			}
		case !ok:
			in.syncUntil = 0
		case in.syncUntil == 0 && w.noDial[in.id][src.id] > 0:
			// the replica cannot connect to its master: no sync starts
		case in.syncUntil == 0 && w.opt.PSync:
			w.startSync(in, src)
		case in.syncUntil == 0:
			in.syncUntil = now + 100 + w.rng.Int64N(400)
		case now >= in.syncUntil && !src.paused && !src.loading(now) && w.opt.PSync:
			in.linkUp, in.syncUntil = true, 0
			w.finishSync(in, src)
		case now >= in.syncUntil && !src.paused && !src.loading(now):
			in.linkUp, in.syncUntil = true, 0
			in.offset = src.offset
			w.tracef("redis %s: synced with %s:%d", in.addr.IP, in.masterHost, in.masterPort)
		}
	}
	w.sch.after(replTickPeriod, w.replTick)
}

// upstream returns the running instance in replicates from, if any.
func (w *World) upstream(in *instance) *instance {
	for _, src := range w.inst {
		if src != in && src.up && src.hostMatches(in.masterHost) && src.addr.Port == in.masterPort {
			if isName(in.masterHost) && !in.linkUp {
				// a new sync resolves the name first
				if ip, ok := w.resolve(in.masterHost); !ok || ip != src.addr.IP {
					return nil
				}
			}
			return src
		}
	}
	return nil
}
