package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// MasterName is the name every simulated sentinel monitors.
const MasterName = "mymaster"

// FaultWeights sets how often each kind of fault is drawn in the fault
// phase (relative weights; 0 disables a kind).
type FaultWeights struct {
	InstanceCrash  int // kill -9 a redis-server, restart it later
	InstancePause  int // SIGSTOP a redis-server, SIGCONT later
	SentinelCrash  int // kill -9 a sentinel, restart from its config file
	Partition      int // symmetric partition of a random group of nodes
	AsymPartition  int // one-way loss between two nodes
	ConnReset      int // reset one established connection
	ClockStall     int // a sentinel's timer fires late (→ TILT)
	ClockJump      int // a sentinel's clock jumps forward or backward
	PersistFailure int // a window where a sentinel's config writes fail
	RogueReplicaof int // an operator runs REPLICAOF (or NO ONE) on a random instance
	ConfigSet      int // an operator changes replica-priority or replica-announced of an instance
	SentinelReset  int // a sentinel loses its config file and comes back with a new id
	AuthRotate     int // an operator rotates the data nodes' password (both valid meanwhile, SENTINEL SET auth-pass)
	// Round three (drawn by drawFeatures3, their own streams):
	SentinelAuthRotate int // an operator rotates the sentinels' password (requirepass + SENTINEL CONFIG SET sentinel-pass)
	SentinelWrongPass  int // an operator gives one sentinel a wrong sentinel-pass for a while
	ReplBurst          int // a write burst on a master: replicas lag, overflow the backlog, resync in full
	NameMove           int // a data node's hostname moves to a new IP (the process restarts there)
	NameUnresolvable   int // a data node's hostname stops resolving for a while
	// Round six (drawFeatures6):
	OperatorReset int // an operator runs SENTINEL RESET <pattern> on one sentinel
}

// Options is everything a seed expands into. Printing it (String) is the
// first part of a replay.
type Options struct {
	Seed uint64

	Sentinels int // 3 or 5
	// Masters is the number of monitored masters (1 or 2), each with its
	// own group of Replicas replicas; the sentinels share one link per
	// peer across masters (reference §21).
	Masters   int
	Quorum    int
	Replicas  int   // 1–3
	Priority  []int // slave-priority of each replica (0 = never promote)
	Announced []bool
	// PreconfiguredPeers writes known-sentinel lines in every initial
	// config; otherwise sentinels discover each other through hello.
	PreconfiguredPeers bool
	// Misconfigured starts the last sentinel with `sentinel monitor`
	// pointing at the first replica instead of the master, at config epoch
	// 0 like everyone else (an operator error or bootstrap race, redis
	// #12531). Nobody may follow it on an equal epoch (S4); it must come
	// round once a real failover raises the config epoch (the healed phase
	// then always kills the master).
	Misconfigured bool

	Timing          core.Timing
	DownAfter       int64
	FailoverTimeout int64
	ParallelSyncs   int

	TickMin, TickMax int64 // sentinel timer period jitter (real: 50–100)
	// DeadlineTicks also ticks a sentinel at its NextDeadline when that is
	// earlier, as internal/runtime does after every Tick. Off in seeded
	// runs (their traces predate it); hand-made options use it to time
	// deadlines as the server does.
	DeadlineTicks          bool
	LatencyMin, LatencyMax int64 // one-way network latency
	PersistMin, PersistMax int64 // config write + fsync time
	LoadingTime            int64 // -LOADING after a redis-server restart
	ReplRate               int64 // replication offset growth, bytes per ms
	ReplTimeout            int64 // replica drops a silent master link after this

	Warmup     int64 // fault-free start
	FaultPhase int64 // faults are injected during this phase
	FaultGap   int64 // mean gap between faults
	Faults     FaultWeights
	// KillMasterAfterHeal kills the master once the system has healed
	// and brings it back later: exercises L2 (failover completes) and L3
	// (returning old master demoted).
	KillMasterAfterHeal bool
	// ManualFailover sends SENTINEL FAILOVER to one sentinel once the
	// healed system has converged (a forced failover, exempt from ODOWN,
	// election and pacing); it must complete like any other.
	ManualFailover bool
	// DoubleKill kills the new master as soon as the healed-phase failover
	// converged (when another promotable replica follows it): a second
	// failover must follow (redis #1309).
	DoubleKill bool
	HealPhase  int64 // fault-free phase at the end; liveness is checked at its end

	// Scripts configures a notification and a client-reconfig script on
	// every master (behaviour drawn per run, see scripts.go).
	Scripts ScriptMode
	// RenameCommands renames INFO, SLAVEOF, CONFIG, MULTI and EXEC on
	// every data node (rename-command in their config, and in the
	// sentinels'); the original names are rejected.
	RenameCommands bool
	// Auth makes every data node require a password (requirepass; the
	// sentinels' auth-pass), rotated by the AuthRotate faults.
	Auth bool
	// ManualSentinel picks the sentinel that gets SENTINEL FAILOVER.
	ManualSentinel int
	// SentinelAuth makes every sentinel require a password (requirepass)
	// and use it towards its peers (sentinel-pass), rotated by
	// SentinelAuthRotate faults.
	SentinelAuth bool
	// PSync models replication as redis does it: replication ids,
	// a backlog of BacklogSize bytes, partial resync when the replica's
	// history and offset are in the backlog, full resync (offset jumps to
	// the master's) otherwise; a restarted master starts a new history at
	// offset 0.
	PSync       bool
	BacklogSize int64
	// Hostnames monitors and announces the data nodes by hostname
	// (resolve-hostnames yes; replica-announce-ip <name>); the simulated
	// DNS maps each name to its current IP.
	Hostnames bool
	// SentinelAnnounce puts every sentinel behind a port-mapping NAT: it
	// announces (announce-ip, announce-port) the only address its peers
	// can reach (announce.go).
	SentinelAnnounce bool
	// InfoDenied denies INFO (an operator's ACL, -NOPERM) on replicas of
	// the first group from infoDenyLead before the healed-phase kill of
	// the master until InfoDeniedFor ms after it; PING still gets through
	// (infodeny.go, round nine).
	InfoDenied    InfoDenial
	InfoDeniedFor int64

	// Plan is the fault plan drawn from the seed (faults.go): the
	// scenario, independent of what the core does.
	Plan []Fault
}

// NewOptions expands a seed into options. The same seed always gives the
// same options.
func NewOptions(seed uint64) Options {
	r := rand.New(rand.NewPCG(seed, 0x5e57_1e1))
	o := Options{Seed: seed}
	if r.IntN(3) == 0 {
		o.Sentinels = 5
	} else {
		o.Sentinels = 3
	}
	maj := o.Sentinels/2 + 1
	o.Quorum = 1 + r.IntN(o.Sentinels) // 1..N: quorum below majority is legal and interesting
	if r.IntN(2) == 0 {
		o.Quorum = maj
	}
	o.Replicas = 1 + r.IntN(3)
	prios := []int{0, 1, 10, 100, 100}
	nonzero := false
	for i := 0; i < o.Replicas; i++ {
		p := prios[r.IntN(len(prios))]
		nonzero = nonzero || p != 0
		o.Priority = append(o.Priority, p)
		o.Announced = append(o.Announced, r.IntN(6) != 0)
	}
	if !nonzero && r.IntN(4) != 0 {
		o.Priority[r.IntN(o.Replicas)] = 100
	}
	o.PreconfiguredPeers = r.IntN(3) != 0

	o.Timing = core.DefaultTiming()
	o.Timing.PingPeriod = 250 + 50*int64(r.IntN(4))
	pick := func(vs ...int64) int64 { return vs[r.IntN(len(vs))] }
	o.Timing.InfoPeriod = pick(500, 1000, 1000, 2000)
	o.Timing.AskPeriod = pick(100, 300, 300, 1000)
	o.Timing.PublishPeriod = pick(200, 500, 500, 1000)
	o.Timing.TiltTrigger = 2000
	o.Timing.TiltPeriod = pick(2000, 3000, 5000)
	o.Timing.SlaveReconfTimeout = pick(1000, 2000, 5000)
	o.Timing.MinLinkReconnectPeriod = pick(1500, 3000, 6000)
	o.Timing.ElectionTimeout = pick(1000, 2000, 4000)
	o.DownAfter = 800 + 100*int64(r.IntN(8))
	o.FailoverTimeout = 3000 + 500*int64(r.IntN(5))
	o.Timing.DefaultDownAfter = o.DownAfter
	o.Timing.DefaultFailoverTimeout = o.FailoverTimeout
	o.ParallelSyncs = 1 + r.IntN(2)

	o.TickMin, o.TickMax = 50, 100
	o.LatencyMin = 1 + int64(r.IntN(3))
	o.LatencyMax = o.LatencyMin + 5 + int64(r.IntN(40))
	o.PersistMin = 1 + int64(r.IntN(3))
	o.PersistMax = o.PersistMin + int64(r.IntN(30))
	o.LoadingTime = 100 + int64(r.IntN(1500))
	o.ReplRate = 1 + int64(r.IntN(20))
	o.ReplTimeout = 2000

	o.Warmup = 2500
	o.FaultPhase = 8000 + 1000*int64(r.IntN(8))
	o.FaultGap = 300 + 100*int64(r.IntN(10))
	if r.IntN(8) == 0 { // a storm: many overlapping faults for longer
		o.FaultPhase = 20000 + 1000*int64(r.IntN(11))
		o.FaultGap = 80 + 20*int64(r.IntN(6))
	}
	w := &o.Faults
	for _, p := range []*int{&w.InstanceCrash, &w.InstancePause, &w.SentinelCrash, &w.Partition,
		&w.AsymPartition, &w.ConnReset, &w.ClockStall, &w.ClockJump, &w.PersistFailure, &w.RogueReplicaof} {
		if r.IntN(4) != 0 {
			*p = 1 + r.IntN(5)
		}
	}
	w.InstanceCrash += 2 // the master dying is the interesting case
	if !o.hasPromotable() {
		// A replication loop or a demoted master is only recoverable by a
		// failover; with no promotable replica Sentinel stays stuck by
		// design, so operators' REPLICAOF is not simulated then.
		w.RogueReplicaof = 0
	}
	o.KillMasterAfterHeal = r.IntN(2) == 0
	if r.IntN(8) == 0 && o.Priority[0] != 0 && o.Quorum < o.Sentinels {
		o.Misconfigured, o.KillMasterAfterHeal = true, true
	}
	o.ManualFailover = r.IntN(4) == 0
	o.Masters = 1
	if r.IntN(3) == 0 {
		o.Masters = 2
	}
	o.DoubleKill = o.KillMasterAfterHeal && r.IntN(3) == 0
	o.drawFeatures()
	o.drawFeatures3()
	o.drawFeatures6()
	o.drawFeatures7()
	o.drawFeatures9()
	o.Plan = o.plan()
	// Healing needs room for: TILT to end, a paced retry (2×failover-timeout),
	// a failover, and fix-slave-config (failover-timeout after a change).
	o.HealPhase = 2*o.convergeBound() + 3*o.failoverBound() + o.demoteBound() + o.quietWindow() + 2000
	if o.InfoDenied != InfoDeniedNone {
		o.HealPhase += o.infoDenyLead() + o.InfoDeniedFor
	}
	return o
}

// masterCount is Masters, at least 1 (hand-made options may leave it 0).
func (o Options) masterCount() int {
	if o.Masters < 1 {
		return 1
	}
	return o.Masters
}

// hasPromotable reports whether some replica has a non-zero priority.
func (o Options) hasPromotable() bool {
	for _, p := range o.Priority {
		if p != 0 {
			return true
		}
	}
	return false
}

// String prints the options, one field per line, as part of a replay.
func (o Options) String() string {
	var b strings.Builder
	f := func(k string, v any) { fmt.Fprintf(&b, "  %-20s %v\n", k, v) }
	fmt.Fprintf(&b, "options for seed %d:\n", o.Seed)
	f("sentinels", o.Sentinels)
	f("masters", o.masterCount())
	f("quorum", o.Quorum)
	f("replicas", o.Replicas)
	f("priorities", o.Priority)
	f("announced", o.Announced)
	f("preconfigured-peers", o.PreconfiguredPeers)
	f("misconfigured", o.Misconfigured)
	t := o.Timing
	f("ping/info/ask/pub", fmt.Sprintf("%d/%d/%d/%d", t.PingPeriod, t.InfoPeriod, t.AskPeriod, t.PublishPeriod))
	f("tilt trigger/period", fmt.Sprintf("%d/%d", t.TiltTrigger, t.TiltPeriod))
	f("election-timeout", t.ElectionTimeout)
	f("slave-reconf-timeout", t.SlaveReconfTimeout)
	f("min-link-reconnect", t.MinLinkReconnectPeriod)
	f("down-after", o.DownAfter)
	f("failover-timeout", o.FailoverTimeout)
	f("parallel-syncs", o.ParallelSyncs)
	if o.DeadlineTicks {
		f("tick", fmt.Sprintf("%d..%d, or NextDeadline if earlier", o.TickMin, o.TickMax))
	} else {
		f("tick", fmt.Sprintf("%d..%d", o.TickMin, o.TickMax))
	}
	f("latency", fmt.Sprintf("%d..%d", o.LatencyMin, o.LatencyMax))
	f("persist", fmt.Sprintf("%d..%d", o.PersistMin, o.PersistMax))
	f("loading", o.LoadingTime)
	f("repl rate/timeout", fmt.Sprintf("%d/%d", o.ReplRate, o.ReplTimeout))
	f("phases", fmt.Sprintf("warmup %d, faults %d (mean gap %d), heal %d", o.Warmup, o.FaultPhase, o.FaultGap, o.HealPhase))
	// Only the kinds in use: a kind added later (weight 0 in old seeds)
	// does not change what an old seed prints, nor its fingerprint.
	var ws []string
	for k, x := range o.Faults.weights() {
		if x != 0 {
			ws = append(ws, fmt.Sprintf("%s:%d", FaultKind(k), x))
		}
	}
	f("fault weights", strings.Join(ws, " "))
	f("kill-master-on-heal", o.KillMasterAfterHeal)
	f("manual-failover", o.ManualFailover)
	f("double-kill", o.DoubleKill)
	if o.RenameCommands {
		f("rename-command", renamedCommands)
	}
	if o.Auth {
		f("auth", "requirepass on the data nodes, rotated by auth-rotation faults")
	}
	f("scripts", fmt.Sprintf("%d (max-runtime %d, retry-delay %d)", o.Scripts, t.ScriptMaxRuntime, t.ScriptRetryDelay))
	// Round three: printed only when on, so older seeds keep their text
	// and fingerprint when none is drawn.
	if o.SentinelAuth {
		f("sentinel-auth", "requirepass + sentinel-pass on every sentinel")
	}
	if o.PSync {
		f("psync", fmt.Sprintf("replication ids, backlog %d bytes", o.BacklogSize))
	}
	if o.Hostnames {
		f("hostnames", "data nodes by name (resolve-hostnames yes)")
	}
	if o.SentinelAnnounce {
		f("sentinel-announce", "every sentinel behind a NAT, announce-ip 10.0.9.N announce-port 3000N")
	}
	if o.InfoDenied != InfoDeniedNone {
		f("info-denied", fmt.Sprintf("INFO denied on %s of %s before the healed-phase kill, until %dms after it", o.InfoDenied, MasterName, o.InfoDeniedFor))
	}
	return b.String()
}

// healStart is the virtual time at which faults stop.
func (o Options) healStart() int64 { return o.Warmup + o.FaultPhase }

// end is the virtual time at which the run stops.
func (o Options) end() int64 { return o.healStart() + o.HealPhase }

// ErrInvalidOptions wraps every reason Validate rejects options.
var ErrInvalidOptions = errors.New("sim: invalid options")

// Validate checks that hand-made options can run (NewOptions always
// produces valid ones).
func (o Options) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidOptions, fmt.Sprintf(format, a...))
	}
	t := o.Timing
	switch {
	case o.Sentinels < 1 || o.Sentinels > 250:
		return bad("%d sentinels", o.Sentinels)
	case o.Masters < 0 || o.Masters > 50:
		return bad("%d masters", o.Masters)
	case o.Quorum < 1:
		return bad("quorum %d", o.Quorum)
	case o.Replicas < 1 || o.Replicas > 250 || len(o.Priority) != o.Replicas || len(o.Announced) != o.Replicas:
		return bad("%d replicas with %d priorities and %d announced flags", o.Replicas, len(o.Priority), len(o.Announced))
	case o.Misconfigured && o.Sentinels < 2:
		return bad("a misconfigured sentinel needs another one")
	case o.TickMin < 1 || o.TickMax < o.TickMin:
		return bad("tick %d..%d", o.TickMin, o.TickMax)
	case o.LatencyMin < 0 || o.LatencyMax < o.LatencyMin:
		return bad("latency %d..%d", o.LatencyMin, o.LatencyMax)
	case o.PersistMin < 0 || o.PersistMax < o.PersistMin:
		return bad("persist %d..%d", o.PersistMin, o.PersistMax)
	case o.DownAfter < 1 || o.FailoverTimeout < 1 || o.FaultGap < 1 || o.LoadingTime < 0 || o.ReplTimeout < 1:
		return bad("non-positive down-after, failover-timeout, fault gap or repl-timeout")
	case t.PingPeriod < 1 || t.InfoPeriod < 1 || t.PublishPeriod < 1 || t.TiltTrigger < 1:
		return bad("non-positive timer in %+v", t)
	case o.InfoDenied < InfoDeniedNone || o.InfoDenied > InfoDeniedBest || o.InfoDeniedFor < 0:
		return bad("info-denied %d for %dms", o.InfoDenied, o.InfoDeniedFor)
	case o.Warmup < 0 || o.FaultPhase < 0 || o.HealPhase < 1:
		return bad("phases %d/%d/%d", o.Warmup, o.FaultPhase, o.HealPhase)
	}
	return nil
}

// drawFeatures draws the options added after the first round of the
// simulator from their own stream, so adding them did not change what the
// fields above mean for an existing seed (and adding more later must not
// change these: append new draws at the end, or use another stream).
func (o *Options) drawFeatures() {
	f := rand.New(rand.NewPCG(o.Seed, 0xfea7_0002))
	if f.IntN(3) == 0 {
		o.Scripts = ScriptsMixed
		o.Timing.ScriptMaxRuntime = 500 + 250*int64(f.IntN(7))
		o.Timing.ScriptRetryDelay = 100 + 100*int64(f.IntN(4))
	}
	o.ManualSentinel = f.IntN(o.Sentinels)
	if f.IntN(3) == 0 {
		o.Faults.ConfigSet = 1 + f.IntN(3)
	}
	if f.IntN(6) == 0 && !o.Misconfigured {
		o.Faults.SentinelReset = 1
	}
	o.RenameCommands = f.IntN(4) == 0
	if f.IntN(4) == 0 {
		o.Auth = true
		o.Faults.AuthRotate = 1 + f.IntN(2)
	}
}

// drawFeatures3 draws the options of round three (sentinel AUTH, PSYNC,
// hostnames) from a third stream: the fields drawn before keep their
// values for every seed, and each feature's fault kinds have their own
// plan streams.
func (o *Options) drawFeatures3() {
	f := rand.New(rand.NewPCG(o.Seed, 0xfea7_0003))
	if f.IntN(4) == 0 {
		o.SentinelAuth = true
		o.Faults.SentinelAuthRotate = 1 + f.IntN(2)
		if f.IntN(2) == 0 {
			o.Faults.SentinelWrongPass = 1 + f.IntN(2)
		}
	}
	if f.IntN(3) == 0 {
		o.PSync = true
		o.BacklogSize = o.ReplRate * (500 + 500*int64(f.IntN(8)))
		o.Faults.ReplBurst = 1 + f.IntN(3)
	}
	if f.IntN(4) == 0 && !o.Misconfigured {
		o.Hostnames = true
		o.Faults.NameMove = f.IntN(3)
		o.Faults.NameUnresolvable = f.IntN(3)
	}
}

// drawFeatures6 draws the options of round six (SENTINEL RESET run by an
// operator) from a stream of their own, so every field drawn before keeps
// its value for every seed.
func (o *Options) drawFeatures6() {
	f := rand.New(rand.NewPCG(o.Seed, 0xfea7_0006))
	if f.IntN(4) == 0 {
		o.Faults.OperatorReset = 1 + f.IntN(2)
	}
}

// drawFeatures7 draws the options of round seven (the sentinels'
// announce-ip / announce-port behind a NAT) from a stream of their own.
func (o *Options) drawFeatures7() {
	f := rand.New(rand.NewPCG(o.Seed, 0xfea7_0007))
	if f.IntN(4) == 0 {
		o.SentinelAnnounce = true
	}
}
