package faultlab

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// G8, connection flood (known-bugs-and-reliability.md §4 G): one sentinel
// holds 10 k idle connections, slowloris connections sending a partial
// command one byte a second, and connections up to its maxclients, while a
// victim client times PING + GET-MASTER-ADDR-BY-NAME on it and the master
// is SIGKILLed as in A1. The load is in g8flood.go, the victim in
// g8victim.go.
const (
	// g8Host carries the flooded sentinel: the last one in every client's
	// list, so the writers' figures measure the failover rather than how
	// each client library handles a sentinel that refuses connections.
	g8Host = "h3"
	// g8FloodFrom is the host the flood and the victim dial from.
	g8FloodFrom = "c1"
	// g8WantIdle is §4's "10 k idle connections".
	g8WantIdle = 10000
	// g8Slowloris connections each send one byte of a command a second.
	g8Slowloris = 200
	// g8Overflow connections are dialled once maxclients is reached; each
	// must be refused with -ERR max number of clients reached.
	g8Overflow = 50
	// g8Headroom is the room maxclients leaves above the flood for the
	// clients already connected when it starts (the two peers' links, the
	// lab's observer, sampler and subscriptions, the writers, the victim);
	// the flood then fills it.
	g8Headroom = 64
	// g8RunnerReserve descriptors stay free for the rest of the lab's
	// process (writers, sampler, other processes' pipes).
	g8RunnerReserve = 1000
	// g8SentinelReserve is what a sentinel keeps beyond maxclients
	// (Redis' CONFIG_MIN_RESERVED_FDS): its own links and files.
	g8SentinelReserve = 32
	// g8VictimPeriod is the pause between two victim rounds.
	g8VictimPeriod = 5 * time.Millisecond
	// g8HelloGap bounds the time between two hellos of the flooded
	// sentinel (it publishes one on every link every 2 s): 1.5 periods.
	g8HelloGap = 3 * time.Second
	// g8Dialers open the idle connections at once (each a thread in
	// c1's namespace dialling one connection after another).
	g8Dialers = 4
)

// g8Sizes is how many connections G8 opens and the flooded sentinel's
// maxclients, given the descriptor limit.
type g8Sizes struct {
	Idle, Slowloris, Overflow, MaxClients int
	// Capped: fewer than g8WantIdle idle connections fit in the limit.
	Capped bool
	// Limit is the hard RLIMIT_NOFILE the sizes were computed from.
	Limit uint64
}

// g8Plan sizes the flood for a hard RLIMIT_NOFILE of limit, shared by the
// load generator (this process, which inherits and raises it) and the
// sentinels it starts (each raises its own soft limit up to it). The
// generator holds every flood connection plus g8RunnerReserve; the
// sentinel needs maxclients + g8SentinelReserve.
func g8Plan(limit uint64) g8Sizes {
	s := g8Sizes{Idle: g8WantIdle, Slowloris: g8Slowloris, Overflow: g8Overflow, Limit: limit}
	budget := int64(min(limit, 1<<30))
	runner := budget - g8RunnerReserve - g8Slowloris - g8Overflow - g8Headroom
	sentinel := budget - g8SentinelReserve - g8Slowloris - g8Headroom
	if idle := min(runner, sentinel); idle < int64(s.Idle) {
		s.Idle = int(max(idle, 0))
		s.Capped = true
	}
	s.MaxClients = s.Idle + s.Slowloris + g8Headroom
	return s
}

// raiseNoFile raises this process's soft RLIMIT_NOFILE to its hard limit
// (Go does so at start-up since 1.19; done again in case an embedder
// lowered it) and returns the hard limit.
func raiseNoFile() (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("getrlimit nofile: %w", err)
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			return lim.Max, fmt.Errorf("setrlimit nofile %d: %w", lim.Max, err)
		}
	}
	return lim.Max, nil
}

// g8CurrentPlan is g8Plan for this process's limit.
func g8CurrentPlan() g8Sizes {
	limit, _ := raiseNoFile()
	return g8Plan(limit)
}

func g8Schedule(ctx context.Context, e *Env) error {
	plan := g8CurrentPlan()
	e.Set("flood_idle_planned", float64(plan.Idle))
	e.Set("maxclients", float64(plan.MaxClients))
	e.Set("nofile_limit", float64(plan.Limit))
	if plan.Capped {
		e.Note("G8: RLIMIT_NOFILE %d holds only %d idle connections of %d", plan.Limit, plan.Idle, g8WantIdle)
	}
	from := e.Top.Host(g8FloodFrom)
	addr := e.Top.SentinelAddr(g8Host)
	proc := e.Top.Proc("sentinel-" + g8Host)
	if proc == nil {
		return fmt.Errorf("no sentinel on %s", g8Host)
	}
	if n, err := procNoFile(proc.PID); err == nil {
		e.Set("sentinel_nofile", float64(n))
	}
	// The victim connects before the flood, so maxclients never refuses it.
	v, err := dialVictim(ctx, from, addr)
	if err != nil {
		return err
	}
	defer v.close()
	vctx, stopVictim := context.WithCancel(ctx)
	victimDone := make(chan struct{})
	go func() {
		defer close(victimDone)
		v.run(vctx, g8VictimPeriod)
	}()
	defer func() {
		stopVictim()
		<-victimDone
	}()
	if err := e.Sleep(ctx, 2*time.Second); err != nil {
		return err
	}
	rssBefore, _ := procStatusKB(proc.PID, "VmRSS")
	cpu := sampleCPU([]string{"flooded"}, func(string) (int, bool) { return proc.PID, true })
	defer cpu.stop()

	// The flood: slowloris first, then the idle connections, then fill up
	// to maxclients and check that the next connections are refused.
	rampStart := time.Now()
	f := &g8Flood{from: from, addr: addr}
	defer f.close()
	if err := f.openSlowloris(ctx, plan.Slowloris); err != nil {
		return err
	}
	slowDone := make(chan struct{})
	sctx, stopSlow := context.WithCancel(ctx)
	go func() {
		defer close(slowDone)
		f.dripSlowloris(sctx)
	}()
	defer func() {
		stopSlow()
		<-slowDone
	}()
	idle, dialErrs := f.openIdle(ctx, plan.Idle, g8Dialers)
	e.Set("flood_idle_opened", float64(idle))
	if dialErrs > 0 {
		e.Note("G8: %d idle dials failed (first: %s)", dialErrs, f.firstErr())
	}
	info, err := v.info(ctx, "clients")
	if err != nil {
		return fmt.Errorf("INFO clients on the flooded sentinel: %w", err)
	}
	if fill := plan.MaxClients - infoInt(info, "connected_clients"); fill > 0 {
		n, errs := f.openIdle(ctx, fill, 1)
		e.Set("flood_fill", float64(n))
		if errs > 0 {
			e.Note("G8: %d fill dials failed (first: %s)", errs, f.firstErr())
		}
	}
	refused, other := f.overflow(ctx, plan.Overflow)
	e.Set("overflow_refused", float64(refused))
	for _, o := range other {
		e.Note("G8: overflow connection: %s", o)
	}
	rampEnd := time.Now()
	e.Set("flood_ramp_s", secs(rampEnd.Sub(rampStart)))
	e.Set("flood_ramp_rate", float64(int(float64(idle+g8Slowloris)/max(rampEnd.Sub(rampStart).Seconds(), 0.001))))
	if info, err := v.info(ctx, "clients"); err == nil {
		e.Set("held_clients", float64(infoInt(info, "connected_clients")))
		if mc := infoInt(info, "maxclients"); mc >= 0 {
			e.Set("sentinel_maxclients", float64(mc))
		}
	}

	// Held flood: 3 s, then SIGKILL the master as in A1.
	if err := e.Sleep(ctx, 3*time.Second); err != nil {
		return err
	}
	holdEnd := time.Now()
	m, err := killMaster(ctx, e, "h1")
	if err != nil {
		return err
	}
	// The flooded sentinel follows: its own answer to the victim names the
	// new master (it learns the promotion from the hellos, every 2 s).
	seen := -1.0
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		if e.Top.HostOf(v.master()) == m {
			seen = secs(time.Since(e.FaultAt()))
			break
		}
		if err := e.Sleep(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
	e.Set("flooded_names_new_master_s", seen)
	if err := e.Sleep(ctx, time.Second); err != nil {
		return err
	}
	release := time.Now()
	if info, err := v.info(ctx, "clients"); err == nil {
		e.Set("held_clients_at_release", float64(infoInt(info, "connected_clients")))
	}
	if info, err := v.info(ctx, "stats"); err == nil {
		e.Set("rejected_connections", float64(infoInt(info, "rejected_connections")))
	}
	e.Set("slowloris_open_at_release", float64(f.slowOpen()))
	if kb, err := procStatusKB(proc.PID, "VmRSS"); err == nil {
		e.Set("rss_held_mb", mb(kb))
	}
	if kb, err := procStatusKB(proc.PID, "VmHWM"); err == nil {
		e.Set("peak_rss_mb", mb(kb))
		e.Set("rss_before_mb", mb(rssBefore))
	}
	cpu.stop()
	peak, total := cpu.figuresOf("flooded", rampStart, release)
	e.Set("peak_cpu_pct", peak)
	e.Set("cpu_s", total)
	// Where it went: opening the flood, and the held flood before the kill
	// (idle connections, the slowloris bytes, the usual pings and hellos).
	_, ramp := cpu.figuresOf("flooded", rampStart, rampEnd)
	e.Set("cpu_ramp_s", ramp)
	if _, held := cpu.figuresOf("flooded", rampEnd, holdEnd); holdEnd.Sub(rampEnd) > 0 {
		e.Set("cpu_held_pct", float64(int(held/holdEnd.Sub(rampEnd).Seconds()*1000))/10)
	}
	stopSlow()
	<-slowDone
	f.close()
	stopVictim()
	<-victimDone
	e.Heal()

	st := v.stats(time.Time{}, rampStart)
	e.Set("victim_base_p99_ms", st.p99)
	st = v.stats(rampStart, rampEnd)
	e.Set("victim_ramp_p99_ms", st.p99)
	e.Set("victim_ramp_max_ms", st.max)
	st = v.stats(rampEnd, release)
	e.Set("victim_rounds", float64(st.n))
	e.Set("victim_p50_ms", st.p50)
	e.Set("victim_p99_ms", st.p99)
	e.Set("victim_max_ms", st.max)
	e.Set("victim_over10ms_pct", st.over10Pct)
	e.Set("victim_errors", float64(v.errors()))
	if s := v.firstError(); s != "" {
		e.Note("G8: victim: %s", s)
	}
	e.Set("flood_start_unix_ms", unixAt(rampStart))
	return nil
}

// g8Post reads the flooded sentinel's part from the recorded events. Its
// criteria are that it serves its peers (no peer publishes +sdown of it:
// each peer PINGs it every second on a link opened before the flood, and
// one left unanswered for down-after would be marked) and that its timer
// runs (its hellos, published every 2 s on every link by the timer, keep
// coming). Its +sdown, +odown and +vote-for-leader after the kill are
// figures, not criteria: each sentinel counts down-after from its own last
// PONG, up to a ping period apart, and when the leader is elected and
// switches before the last one's down-after has run out, that one never
// reaches SDOWN (gosentinel refuses the vote by its vote gate, docs/core.md
// decision 24, and learns the switch from the hellos; seen with the flood
// in 1 of 3 gosentinel runs, 109 ms short), nor +odown (redis-sentinel asks
// its peers once a second and missed it in 2 of 3 runs).
func g8Post(r *RunResult, in *workload.Input, top *Topology) {
	floodAt, ok := atUnix(r, "flood_start_unix_ms")
	if !ok {
		floodAt = in.FaultAt
	}
	name := "sentinel-" + g8Host
	p := g8Participation(in.Events, name, top.Host(g8Host).IP(), in.FaultAt, floodAt, in.HealAt)
	r.Extra["flooded_hellos"] = float64(p.Hellos)
	r.Extra["flooded_hello_max_gap_s"] = secs(p.HelloMaxGap)
	r.Extra["flooded_sdown"] = float64(p.SDown)
	r.Extra["flooded_odown"] = float64(p.ODown)
	r.Extra["flooded_votes"] = float64(p.Votes)
	r.Extra["peer_sdown_of_flooded"] = float64(p.PeerSDown)
	r.Extra["flooded_sdown_s"], r.Extra["peers_first_sdown_s"] = -1, -1
	if !p.SDownAt.IsZero() {
		r.Extra["flooded_sdown_s"] = secs(p.SDownAt.Sub(in.FaultAt))
	}
	if !p.PeerSDownAt.IsZero() {
		r.Extra["peers_first_sdown_s"] = secs(p.PeerSDownAt.Sub(in.FaultAt))
	}
	// Peers' own record of its votes ("<myid> voted for <leader> <epoch>",
	// logged by the candidate that asked it: a request it served).
	if epochs := votesGrantedBy(top, g8Host, myIDOf(in.ConfigFiles[name]), in.FaultAt, time.Now()); epochs != nil {
		r.Extra["flooded_votes_logged_by_peers"] = float64(len(epochs))
	}
}

// g8Part is what the recorded events show of the flooded sentinel's
// part in the failover.
type g8Part struct {
	// SDown, ODown: its +sdown / +odown of the master from the fault on.
	SDown, ODown int
	// Votes: its +vote-for-leader events from the fault on.
	Votes int
	// PeerSDown: the other sentinels' +sdown of it from the flood's start.
	PeerSDown int
	// SDownAt, PeerSDownAt: its first +sdown of the master and the
	// earliest of the other sentinels' (zero if none).
	SDownAt, PeerSDownAt time.Time
	// Hellos is how many of its hellos the recorder saw during the flood
	// (on any node), HelloMaxGap the longest time without one, from the
	// flood's start to its release (-1 without any).
	Hellos      int
	HelloMaxGap time.Duration
}

// g8Participation reads the flooded sentinel's (name, at ip) part from
// the events: failure detection (+sdown, +odown of mym) and votes after
// the fault, its peers' +sdown of it and its hellos (events sorted by
// time or not: the gap is over the hellos in the order given, which the
// recorder keeps by arrival) during the flood.
func g8Participation(events []workload.Event, name, ip string, faultAt, floodAt, releaseAt time.Time) g8Part {
	p := g8Part{HelloMaxGap: -1}
	hello := ip + "," + fmt.Sprint(SentinelPort) + ","
	last := floodAt
	masterEv := func(ev workload.Event) bool { return strings.HasPrefix(ev.Payload, "master "+MasterName+" ") }
	for _, ev := range events {
		after := !ev.At.Before(faultAt)
		switch {
		case ev.Sentinel == name && after && ev.Channel == "+sdown" && masterEv(ev):
			p.SDown++
			if p.SDownAt.IsZero() {
				p.SDownAt = ev.At
			}
		case ev.Sentinel != name && after && ev.Channel == "+sdown" && masterEv(ev):
			if p.PeerSDownAt.IsZero() || ev.At.Before(p.PeerSDownAt) {
				p.PeerSDownAt = ev.At
			}
		case ev.Sentinel == name && after && ev.Channel == "+odown" && masterEv(ev):
			p.ODown++
		case ev.Sentinel == name && after && ev.Channel == "+vote-for-leader":
			p.Votes++
		}
		if ev.Sentinel != name && !ev.At.Before(floodAt) && ev.Channel == "+sdown" && g8NamesSentinel(ev.Payload, ip) {
			p.PeerSDown++
		}
		if ev.Channel == workload.HelloChannel && strings.HasPrefix(ev.Payload, hello) && !ev.At.Before(floodAt) && ev.At.Before(releaseAt) {
			p.Hellos++
			p.HelloMaxGap = max(p.HelloMaxGap, ev.At.Sub(last))
			if ev.At.After(last) {
				last = ev.At
			}
		}
	}
	if p.Hellos > 0 {
		p.HelloMaxGap = max(p.HelloMaxGap, releaseAt.Sub(last))
	}
	return p
}

// g8NamesSentinel reports whether an event payload is about the sentinel
// at ip ("sentinel <id> <ip> <port> @ <master> …").
func g8NamesSentinel(payload, ip string) bool {
	f := strings.Fields(payload)
	return len(f) >= 4 && f[0] == "sentinel" && f[2] == ip && f[3] == fmt.Sprint(SentinelPort)
}

func mb(kb int64) float64 { return float64(kb*10/1024) / 10 }

func init() {
	register(&Scenario{
		ID: "G8", Title: "connection flood", ExpectFailover: true,
		// Solo: its figures are latencies and CPU, and the flood takes
		// half of this process's descriptors (g8Plan).
		Solo: true,
		Setup: Setup{SentinelExtra: func(t *Topology, h string) string {
			if h != g8Host {
				return ""
			}
			return fmt.Sprintf("maxclients %d\n", g8CurrentPlan().MaxClients)
		}},
		Fault: "T3; from c1 the sentinel on h3 gets 200 slowloris connections (a PING whose 4096-byte argument comes one byte a second), " +
			"10 000 idle connections (fewer if RLIMIT_NOFILE cannot hold them), then connections up to its maxclients (set to the flood + 64) and 50 more that must be refused; " +
			"a victim connected before the flood times PING + GET-MASTER-ADDR-BY-NAME on it every 5 ms; 3 s into the held flood SIGKILL the master as in A1",
		Expected: "peers and the timer still served: no peer marks the flooded sentinel +sdown, its hellos keep coming (≤ 3 s apart), it follows the switch; 0 TILT; " +
			"RTO_switch ≤ 7 s (A1's bound); maxclients refuses the overflow; figures: the victim's p50/p99/max and rounds > 10 ms, connections held, the sentinel's peak RSS and CPU",
		Schedule: g8Schedule,
		Post:     g8Post,
		Criteria: []Criterion{rtoSwitchWithin(7), oneSwitchPerSentinel(),
			{Name: "0 TILT", Check: func(r *RunResult) (bool, string) {
				return r.Figures.TILTs == 0, fmt.Sprintf("TILT entries %d", r.Figures.TILTs)
			}},
			extraEquals("overflow_refused", g8Overflow, "maxclients reached: every overflow connection refused"),
			extraEquals("victim_errors", 0, "the victim is served throughout"),
			{Name: "the flooded sentinel serves its peers: no peer marks it +sdown", Check: func(r *RunResult) (bool, string) {
				v, ok := r.Extra["peer_sdown_of_flooded"]
				return ok && v == 0, fmt.Sprintf("peers' +sdown of it %g", v)
			}},
			{Name: fmt.Sprintf("its timer runs: a hello at least every %.0f s during the flood", g8HelloGap.Seconds()), Check: func(r *RunResult) (bool, string) {
				g := r.Extra["flooded_hello_max_gap_s"]
				return g >= 0 && g <= g8HelloGap.Seconds(), fmt.Sprintf("longest gap %.2f s over %g hellos; +sdown %g, +odown %g, +vote-for-leader %g after the kill",
					g, r.Extra["flooded_hellos"], r.Extra["flooded_sdown"], r.Extra["flooded_odown"], r.Extra["flooded_votes"])
			}},
		},
	})
}
