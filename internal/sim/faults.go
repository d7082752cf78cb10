package sim

// This file injects faults during the fault phase and heals everything at
// its end.

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strings"
)

// FaultKind names a kind of fault of the fault plan.
type FaultKind int

// Fault kinds, in FaultWeights order. New kinds are appended: each kind
// draws its own schedule from its own stream, so adding one does not move
// the faults of the others.
const (
	FaultInstanceCrash FaultKind = iota
	FaultInstancePause
	FaultSentinelCrash
	FaultPartition
	FaultAsymPartition
	FaultConnReset
	FaultClockStall
	FaultClockJump
	FaultPersistFailure
	FaultRogueReplicaof
	FaultConfigSet     // an operator changes replica-priority / replica-announced at run time
	FaultSentinelReset // a sentinel loses its config file and comes back with a new id
	FaultAuthRotate    // an operator rotates the data nodes' password (SENTINEL SET auth-pass)
	FaultSentinelAuthRotate
	FaultSentinelWrongPass
	FaultReplBurst
	FaultNameMove
	FaultNameUnresolvable
	FaultOperatorReset // an operator runs SENTINEL RESET <pattern> on one sentinel
	numFaultKinds
)

var faultNames = [...]string{"redis-crash", "redis-pause", "sentinel-crash", "partition", "one-way",
	"conn-reset", "stall", "clock-jump", "disk-failure", "operator-replicaof", "operator-config-set", "sentinel-config-loss", "auth-rotation",
	"sentinel-auth-rotation", "sentinel-wrong-pass", "repl-burst", "name-moves", "name-unresolvable", "operator-reset"}

// String names a fault kind.
func (k FaultKind) String() string {
	if k >= 0 && int(k) < len(faultNames) {
		return faultNames[k]
	}
	return "fault-" + itoa(int(k))
}

// Fault is one entry of a seed's fault plan: when, what, and the raw
// random numbers that pick its target and durations. The plan is drawn
// from the seed alone, before the run, so it does not depend on what the
// core does: a seed names the same scenario after any change to the core
// (the network's latencies and the order of messages may still differ).
type Fault struct {
	At   int64
	Kind FaultKind
	R    [6]uint64
}

// n returns the i-th raw number of f reduced to [0, k).
func (f Fault) n(i int, k int) int {
	if k <= 0 {
		return 0
	}
	return int(f.R[i] % uint64(k))
}

func (f Fault) n64(i int, k int64) int64 {
	if k <= 0 {
		return 0
	}
	return int64(f.R[i] % uint64(k))
}

// weights lists the fault weights in FaultKind order.
func (w FaultWeights) weights() [numFaultKinds]int {
	return [numFaultKinds]int{w.InstanceCrash, w.InstancePause, w.SentinelCrash, w.Partition, w.AsymPartition,
		w.ConnReset, w.ClockStall, w.ClockJump, w.PersistFailure, w.RogueReplicaof, w.ConfigSet, w.SentinelReset, w.AuthRotate,
		w.SentinelAuthRotate, w.SentinelWrongPass, w.ReplBurst, w.NameMove, w.NameUnresolvable, w.OperatorReset}
}

// plan draws the fault plan: per kind, faults with exponential gaps of
// mean FaultGap × (total weight / weight of the kind) during the fault
// phase. The total is that of the first ten kinds (round one): the kinds
// added later come on top at the same scale, so enabling them moves no
// fault of the others.
func (o Options) plan() []Fault {
	ws := o.Faults.weights()
	total := 0
	for k, x := range ws {
		if FaultKind(k) < FaultConfigSet {
			total += x
		}
	}
	if total == 0 {
		total = 1
	}
	var out []Fault
	for k, wk := range ws {
		if wk == 0 {
			continue
		}
		r := rand.New(rand.NewPCG(o.Seed, 0xfa_0000+uint64(k)))
		mean := float64(o.FaultGap) * float64(total) / float64(wk)
		t := o.Warmup + int64(r.ExpFloat64()*mean)
		for t < o.healStart() {
			f := Fault{At: t, Kind: FaultKind(k)}
			for i := range f.R {
				f.R[i] = r.Uint64()
			}
			out = append(out, f)
			if FaultKind(k) == FaultSentinelReset {
				// One lost config file per seed: losing them all is a new
				// cluster whose epochs start again (a second leader in an
				// old epoch is then what it means, not a bug).
				break
			}
			t += int64(r.ExpFloat64()*mean) + 1
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].At != out[j].At {
			return out[i].At < out[j].At
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

// PlanString renders the fault plan, one fault per line.
func (o Options) PlanString() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fault plan for seed %d (%d faults, fingerprint %s):\n", o.Seed, len(o.Plan), o.Fingerprint())
	for _, f := range o.Plan {
		fmt.Fprintf(&b, "  %7d %-20s %x\n", f.At, f.Kind, f.R[0]>>32)
	}
	return b.String()
}

// Fingerprint is a short hash of everything the scenario is made of (the
// options, topology and the fault plan): two runs with the same
// fingerprint ran the same scenario.
func (o Options) Fingerprint() string {
	h := fnv.New64a()
	fmt.Fprint(h, o.String())
	for _, f := range o.Plan {
		fmt.Fprint(h, f.At, f.Kind, f.R)
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// scheduleFaults arms every fault of the plan.
func (w *World) scheduleFaults() {
	for _, f := range w.opt.Plan {
		f := f
		if f.At < w.opt.healStart() {
			w.sch.at(f.At, func() { w.injectFault(f) })
		}
	}
}

// injectFault applies one planned fault to the current state.
func (w *World) injectFault(f Fault) {
	o := w.opt
	switch f.Kind {
	case FaultInstanceCrash:
		in := w.faultTarget(f)
		if in.up {
			w.crashInstance(in)
			gen := in.gen
			w.sch.after(200+f.n64(3, 2*o.DownAfter+o.FailoverTimeout), func() {
				if in.gen == gen {
					w.restartInstance(in)
				}
			})
		}
	case FaultInstancePause:
		in := w.faultTarget(f)
		if in.up && !in.paused {
			w.pauseInstance(in)
			gen := in.gen
			w.sch.after(100+f.n64(3, 3*o.DownAfter), func() {
				if in.gen == gen {
					w.resumeInstance(in)
				}
			})
		}
	case FaultSentinelCrash:
		s := w.sent[f.n(0, len(w.sent))]
		if s.up {
			w.crashSentinel(s)
			w.restartAfter(s, 200+f.n64(1, 3*o.DownAfter))
		}
	case FaultPartition:
		w.partition(f)
	case FaultAsymPartition:
		n := len(w.blocked)
		a, b := f.n(0, n), f.n(1, n)
		if a == b {
			return
		}
		d := 200 + f.n64(2, 3*o.DownAfter)
		if f.n(3, 2) == 0 {
			w.tracef("fault: one-way loss %s -> %s for %dms", w.nodeName(a), w.nodeName(b), d)
			w.cut(a, b, d)
		} else {
			w.blockDials(a, b, d, f.n(4, 2) == 0)
		}
	case FaultConnReset:
		if len(w.conns) > 0 {
			c := w.conns[f.n(0, len(w.conns))]
			w.tracef("fault: reset %s conn of s%d to %s", c.typ, c.owner.id, w.nodeName(c.target))
			w.resetConn(c)
		}
	case FaultClockStall:
		s := w.sent[f.n(0, len(w.sent))]
		if s.up && s.stallTo == 0 {
			d := o.Timing.TiltTrigger + 1 + f.n64(1, o.Timing.TiltTrigger)
			w.tracef("fault: sentinel %d stalls for %dms", s.id, d)
			s.stallTo = w.sch.now + d
			w.netDisturbed[s.node] = w.sch.now + d
			inc := s.inc
			w.sch.after(d, func() { w.unstall(s, inc) })
		}
	case FaultClockJump:
		s := w.sent[f.n(0, len(w.sent))]
		d := o.Timing.TiltTrigger + 1 + f.n64(1, 2000)
		if f.n(2, 4) == 0 {
			d = -d
		}
		w.tracef("fault: sentinel %d clock jumps %+dms", s.id, d)
		s.clockOff += d
		s.lastJump = w.sch.now
		if d < 0 {
			s.backShadow = max(s.backShadow, w.sch.now) - d
		}
		w.netDisturbed[s.node] = w.sch.now
	case FaultPersistFailure:
		s := w.sent[f.n(0, len(w.sent))]
		d := 200 + f.n64(1, 2*o.DownAfter)
		w.tracef("fault: sentinel %d config writes fail for %dms", s.id, d)
		s.diskFailTo = w.sch.now + d
	case FaultRogueReplicaof:
		in := w.inst[f.n(0, len(w.inst))]
		if !in.up || in.paused || in.loading(w.sch.now) {
			return
		}
		grp := w.group(in.group)
		to := grp[f.n(1, len(grp))]
		if to == in {
			w.tracef("fault: operator runs REPLICAOF NO ONE on %s", in.addr.IP)
			w.slaveOf(in, "NO", "ONE")
		} else {
			w.tracef("fault: operator runs REPLICAOF %s on %s", to.addr.IP, in.addr.IP)
			w.slaveOf(in, to.addr.Host, "6379")
		}
	case FaultConfigSet:
		w.configSet(f)
	case FaultSentinelReset:
		w.loseConfig(f)
	case FaultAuthRotate:
		w.rotatePassword()
	case FaultSentinelAuthRotate:
		w.rotateSentinelPassword()
	case FaultSentinelWrongPass:
		w.wrongSentinelPass(f)
	case FaultReplBurst:
		w.replBurst(f)
	case FaultNameMove:
		w.moveName(f)
	case FaultNameUnresolvable:
		w.unresolvable(f)
	case FaultOperatorReset:
		w.operatorReset(f)
	}
}

// faultTarget picks an instance, the current master of a random group
// half of the time.
func (w *World) faultTarget(f Fault) *instance {
	if f.n(0, 2) == 0 {
		if m := w.trueMaster(f.n(1, len(w.masters))); m != nil {
			return m
		}
	}
	return w.inst[f.n(2, len(w.inst))]
}

// trueMaster is the running master of group g with the most attached
// replicas.
func (w *World) trueMaster(g int) *instance {
	var best *instance
	bestN := -1
	for _, in := range w.group(g) {
		if in.up && in.role == roleMaster {
			if n := len(w.replicasOf(in)); n > bestN {
				best, bestN = in, n
			}
		}
	}
	return best
}

// partition splits a random group of nodes from the rest, both ways.
func (w *World) partition(f Fault) {
	n := len(w.blocked)
	size := 1 + f.n(0, n/2)
	perm := rand.New(rand.NewPCG(f.R[1], f.R[2])).Perm(n)
	in := make([]bool, n)
	names := ""
	for _, x := range perm[:size] {
		in[x] = true
		names += " " + w.nodeName(x)
	}
	d := 200 + f.n64(3, 3*w.opt.DownAfter)
	w.tracef("fault: partition {%s } from the rest for %dms", names, d)
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if in[a] && !in[b] {
				w.cut(a, b, d)
				w.cut(b, a, d)
			}
		}
	}
}

// cut blocks a→b for d ms (partitions may overlap: counted).
func (w *World) cut(a, b int, d int64) {
	w.cuts[a][b]++
	w.netDisturbed[a], w.netDisturbed[b] = w.sch.now, w.sch.now
	w.blocked[a][b] = true
	// A long partition may also make TCP give up on established
	// connections crossing it.
	for _, c := range w.conns {
		if (c.owner.node == a && c.target == b || c.owner.node == b && c.target == a) && w.rng.IntN(4) == 0 {
			cc := c
			w.sch.after(w.opt.DownAfter+w.rng.Int64N(2*w.opt.DownAfter), func() {
				if w.blocked[a][b] {
					w.resetConn(cc)
				}
			})
		}
	}
	w.sch.after(d, func() {
		if w.cuts[a][b] > 0 {
			w.cuts[a][b]--
		}
		if w.cuts[a][b] == 0 && w.blocked[a][b] {
			w.blocked[a][b] = false
			w.netDisturbed[a], w.netDisturbed[b] = w.sch.now, w.sch.now
			w.releaseHeld()
		}
	})
}

// blockDials is a firewall rule: new connections from a to b are dropped
// for d ms (established ones keep working both ways, unless flush also
// resets them, like a conntrack flush). Sentinels dial peers and
// instances; replicas dial their master to sync.
func (w *World) blockDials(a, b int, d int64, flush bool) {
	w.tracef("fault: %s cannot open connections to %s for %dms (flush %v)", w.nodeName(a), w.nodeName(b), d, flush)
	w.noDial[a][b]++
	w.netDisturbed[a], w.netDisturbed[b] = w.sch.now, w.sch.now
	if flush {
		for _, c := range append([]*conn(nil), w.conns...) {
			if c.owner.node == a && c.target == b {
				w.resetConn(c)
			}
		}
		if a < len(w.inst) && b < len(w.inst) && w.inst[a].isReplicaOf(w.inst[b].addr) && w.inst[a].linkUp {
			w.inst[a].linkUp, w.inst[a].downSince = false, w.sch.now
		}
	}
	w.sch.after(d, func() {
		if w.noDial[a][b] > 0 {
			w.noDial[a][b]--
		}
		w.netDisturbed[a], w.netDisturbed[b] = w.sch.now, w.sch.now
	})
}

// crashInstance kills a redis-server: connections reset, state kept only
// in its config file and dataset.
func (w *World) crashInstance(in *instance) {
	w.tracef("fault: redis %s crashes", in.addr.IP)
	in.gen++
	in.up, in.paused, in.backlog = false, false, nil
	in.lastDisturbed = w.sch.now
	w.resetConnsOf(in.id)
}

// restartInstance starts a crashed redis-server from its config file.
func (w *World) restartInstance(in *instance) {
	if in.up {
		return
	}
	now := w.sch.now
	in.gen++
	in.up = true
	in.runID = w.runID()
	in.role, in.masterHost, in.masterPort = in.confRole, in.confMasterHost, in.confMasterPort
	in.linkUp, in.syncUntil, in.downSince = false, 0, 0
	in.loadingUntil = now + w.opt.LoadingTime
	in.lastDisturbed = now
	if w.opt.PSync {
		w.psyncRestarted(in)
	}
	w.tracef("redis %s restarts as %s (run id %s)", in.addr.IP, in.role, in.runID[:8])
}

// pauseInstance SIGSTOPs a redis-server.
func (w *World) pauseInstance(in *instance) {
	w.tracef("fault: redis %s paused", in.addr.IP)
	in.gen++
	in.paused, in.pausedSince = true, w.sch.now
	in.lastDisturbed = w.sch.now
}

// resumeInstance SIGCONTs a redis-server, which then processes what it
// received while stopped.
func (w *World) resumeInstance(in *instance) {
	if !in.paused {
		return
	}
	w.tracef("redis %s resumed", in.addr.IP)
	in.gen++
	in.paused = false
	in.lastDisturbed = w.sch.now
	backlog := in.backlog
	in.backlog = nil
	for _, fn := range backlog {
		fn()
	}
}

// healAll ends every fault: the start of the healed phase.
func (w *World) healAll() {
	w.tracef("heal: all faults end")
	w.restoreNames()
	for _, in := range w.inst {
		w.resumeInstance(in)
		w.restartInstance(in)
	}
	for _, s := range w.sent {
		s.diskFailTo = 0
		if !s.up {
			w.startSentinel(s)
		} else if s.stallTo != 0 {
			w.unstall(s, s.inc)
		}
	}
	for a := range w.blocked {
		w.netDisturbed[a] = w.sch.now
		for b := range w.blocked[a] {
			w.blocked[a][b] = false
			w.cuts[a][b] = 0
			w.noDial[a][b] = 0
		}
	}
	w.releaseHeld()
}

// nodeName names a node for the trace.
func (w *World) nodeName(id int) string {
	if id < 0 {
		return "nowhere"
	}
	if id < len(w.inst) {
		return "redis:" + w.inst[id].addr.IP
	}
	return "s" + itoa(id-len(w.inst))
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
