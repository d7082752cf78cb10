package core

// The scheduler makes a tick cost what is due, not what is monitored.
//
// sentinel.c's timer visits every master, replica and sentinel object 10
// times a second, and so did the core; at the default timers an idle
// instance has something to do about once a second (its PING), so 9 visits
// in 10 only found nothing due. The tick now visits a master's group (the
// master, its replicas and its sentinels: one iteration of
// sentinelHandleDictOfRedisInstances) only when the group may act:
//
//   - after a group is handled, wake is the earliest instant at which
//     handling it again could do anything (groupWake: the periodic
//     commands, SDOWN and link recycling thresholds, the expiry of a
//     peer's master-down answer). A group in any state that is not plain
//     healthy (SDOWN, ODOWN, failover, a link that is not up) is handled
//     at every tick, as before;
//   - an event about a link (reply, message, connect, close) makes the
//     groups of the link's users due at the next tick; anything else that
//     may change state far away (a command that is not a read-only query,
//     a persist or script completion, a change of the dictionaries, epoch,
//     TILT or timers, an event that emitted anything but Sends and
//     Responds) makes every group due: the next tick is a full scan;
//   - handling a group that changes a link it shares with a group later
//     in name order (connections, a PING becoming outstanding, the
//     pending cap: linkKey) makes that group due in the same tick, as the
//     full scan would have seen the link's new state there; a reply on a
//     shared link wakes the user it answers, and the others only on such
//     a change.
//
// Due groups are handled in name order, so the effects of a tick are the
// ones of the full scan, in the same order: a group that is skipped would
// have done nothing. The core tests check exactly that (schedule_check_test.go:
// every tick scans everything and fails if a skipped group acts, and every
// NextDeadline is compared with a full scan).
//
// NextDeadline uses a second heap: per group, the earliest deadline
// candidate after the instant it was computed (groupDeadline), recomputed
// only for groups whose state changed or whose candidate has passed.

// noDeadline is "never" for wakes and deadline candidates.
const noDeadline Millis = 1 << 62

// schedSlot is a master group's place in the scheduler.
type schedSlot struct {
	wake     Millis // handle the group at the first tick at or after wake
	dl       Millis // earliest deadline candidate after dlFrom
	dlFrom   Millis
	dlStale  bool // state changed since dl was computed (in scheduler.stale)
	pos      int  // index in sortedMasters() at scheduler.gen
	queuedAt uint64
	doneAt   uint64
	wakeIdx  int // index in scheduler.wake, -1: not in it
	dlIdx    int
	workIdx  int
}

// scheduler is the Sentinel's schedule of master groups.
type scheduler struct {
	ready    bool
	wake     ixHeap // by wake
	dl       ixHeap // by dl
	work     ixHeap // by pos: the groups to handle in the current tick
	stale    []*instance
	rebuild  bool // wakes unknown: the next tick handles every group
	dlAll    bool // deadlines unknown: the next NextDeadline scans all
	ticks    uint64
	lastDL   Millis
	evOut    int
	gen      uint64
	epoch    uint64
	tilt     bool
	timing   Timing
	inTick   bool
	tickFrom int // position of the group being handled
	evLink   *instanceLink
	evKey    linkKey
	evInst   *instance
	keys     []linkKey // scratch: keys of the shared links of the group being handled
}

// linkKey is what other users of a shared link (peer sentinels under
// several masters, §21) may act on sooner when it changes: the
// connections, a PING becoming outstanding (SDOWN and recycling clocks
// start), the pending cap. Other changes (PING sent, PONG received) only
// move their timers later, so they need not be woken for them.
type linkKey struct {
	cc, pc           ConnID
	ccState, pcState connState
	pinging, capped  bool
}

func keyOf(l *instanceLink) linkKey {
	return linkKey{cc: l.cc, pc: l.pc, ccState: l.ccState, pcState: l.pcState,
		pinging: l.actPingTime != 0, capped: l.pending >= MaxPendingCommands*l.refcount}
}

// Test hooks, nil in production (set by schedule_check_test.go).
var (
	// schedCheckSkip runs handle for a group the scheduler would skip; the
	// hook fails if it acts. While set, every tick visits every group.
	schedCheckSkip func(s *Sentinel, m *instance, handle func() bool)
	// schedCheckDeadline compares NextDeadline's answer with a full scan.
	schedCheckDeadline func(s *Sentinel, now, got Millis)
)

func (sc *scheduler) setup() {
	if sc.ready {
		return
	}
	sc.ready, sc.rebuild, sc.dlAll = true, true, true
	sc.wake = ixHeap{key: func(m *instance) int64 { return m.m.sched.wake },
		idx: func(m *instance) *int { return &m.m.sched.wakeIdx }}
	sc.dl = ixHeap{key: func(m *instance) int64 { return m.m.sched.dl },
		idx: func(m *instance) *int { return &m.m.sched.dlIdx }}
	sc.work = ixHeap{key: func(m *instance) int64 { return int64(m.m.sched.pos) },
		idx: func(m *instance) *int { return &m.m.sched.workIdx }}
}

// noteGlobal turns a change of what every group depends on into a full
// rebuild; it reports whether there was one.
func (s *Sentinel) noteGlobal() bool {
	sc := &s.sched
	if sc.gen == s.dictGen && sc.epoch == s.currentEpoch && sc.tilt == s.tilt && sc.timing == s.timing {
		return false
	}
	sc.gen, sc.epoch, sc.tilt, sc.timing = s.dictGen, s.currentEpoch, s.tilt, s.timing
	sc.rebuild, sc.dlAll = true, true
	return true
}

// groupOf is the master whose group holds i.
func groupOf(i *instance) *instance {
	if i.master != nil {
		return i.master
	}
	return i
}

// makeDue makes a group due at the next tick.
func (s *Sentinel) makeDue(m *instance) {
	sc := &s.sched
	if m.released || m.m == nil {
		return
	}
	if sc.rebuild {
		// The next Tick rebuilds every wake, but NextDeadline may be
		// asked before it (a Request, then a Reply): the group's
		// deadline must not stay stale until then.
		s.markStale(m)
		return
	}
	m.m.sched.wake = 0
	sc.wake.fix(m)
	s.markStale(m)
}

func (s *Sentinel) markStale(m *instance) {
	if !m.m.sched.dlStale {
		m.m.sched.dlStale = true
		s.sched.stale = append(s.sched.stale, m)
	}
}

// touchLink makes the groups of a link's users due.
func (s *Sentinel) touchLink(id LinkID) {
	if l := s.links[id]; l != nil {
		for _, u := range l.users {
			s.makeDue(groupOf(u))
		}
	}
}

// schedBeforeEvent is called by step before a non-Tick event is handled.
func (s *Sentinel) schedBeforeEvent(ev Event) {
	sc := &s.sched
	sc.setup()
	sc.evOut = len(s.out)
	switch e := ev.(type) {
	case Tick, *Tick:
	case Reply:
		sc.evLink, sc.evInst = nil, nil
		if l := s.links[e.Link]; l != nil && l.refcount > 1 {
			// A shared link: wake the user the reply is for, and the
			// others only if the link changed in a way they act on.
			sc.evLink, sc.evKey = l, keyOf(l)
			if p := s.pending[e.Tag]; p != nil && p.inst != nil {
				sc.evInst = p.inst
				s.makeDue(groupOf(p.inst))
				return
			}
		}
		s.touchLink(e.Link)
	case Message:
		s.touchLink(e.Link)
	case LinkConnected:
		s.touchLink(e.Link)
	case LinkClosed:
		s.touchLink(e.Link)
	case Request:
		if !readOnlyRequest(e.Args) {
			sc.rebuild, sc.dlAll = true, true
		}
	default: // PersistDone, scripts: may release held effects anywhere
		sc.rebuild, sc.dlAll = true, true
	}
}

// schedAfterEvent is called by step after an event was handled.
func (s *Sentinel) schedAfterEvent(ev Event) {
	sc := &s.sched
	switch e := ev.(type) {
	case Tick, *Tick:
		return
	case Reply:
		if sc.evInst != nil && s.links[e.Link] == sc.evLink && keyOf(sc.evLink) == sc.evKey {
			s.makeDue(groupOf(sc.evInst))
		} else {
			s.touchLink(e.Link)
		}
	case Message:
		s.touchLink(e.Link)
	case LinkConnected:
		s.touchLink(e.Link)
	case LinkClosed:
		s.touchLink(e.Link)
	}
	for _, eff := range s.out[min(sc.evOut, len(s.out)):] {
		switch eff.(type) {
		case Send, Respond:
		default:
			sc.rebuild, sc.dlAll = true, true
		}
	}
	s.noteGlobal()
}

// readOnlyRequest reports commands that change no state a timer depends on.
func readOnlyRequest(args []string) bool {
	if len(args) == 0 {
		return true
	}
	if eqFold(args[0], "role") {
		return true
	}
	if !eqFold(args[0], "sentinel") || len(args) < 2 {
		return false
	}
	for _, sub := range [...]string{"get-master-addr-by-name", "masters", "master", "replicas", "slaves",
		"sentinels", "myid", "ckquorum", "info-cache", "pending-scripts", "help"} {
		if eqFold(args[1], sub) {
			return true
		}
	}
	return false
}

// eqFold is strings.EqualFold for ASCII command names.
func eqFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for k := 0; k < len(a); k++ {
		x, y := a[k], b[k]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// runDueGroups handles every due group in name order and returns the
// masters to switch after the loop (see tick).
func (s *Sentinel) runDueGroups() []*instance {
	sc := &s.sched
	sc.setup()
	s.noteGlobal()
	sc.ticks++
	sorted := s.sortedMasters()
	var switchTo []*instance
	if sc.rebuild || s.tilt {
		for _, m := range sorted {
			if s.handleGroup(m) {
				switchTo = append(switchTo, m)
			}
		}
		s.rebuildSchedule()
		return switchTo
	}
	for sc.wake.len() > 0 && sc.wake.top().m.sched.wake <= s.now {
		s.queue(sc.wake.pop())
	}
	sc.inTick = true
	full := -1 // from this position on, every group is handled
	if schedCheckSkip != nil {
		for k, m := range sorted {
			if full < 0 && m.m.sched.queuedAt != sc.ticks {
				schedCheckSkip(s, m, func() bool { return s.handleGroup(m) })
				continue
			}
			if s.runGroup(m, &switchTo) && full < 0 {
				full = k + 1
			}
		}
		sc.work.reset()
	} else {
		for sc.work.len() > 0 {
			m := sc.work.pop()
			if s.runGroup(m, &switchTo) {
				full = m.m.sched.pos + 1
				break
			}
		}
		if full >= 0 {
			sc.work.reset()
			for _, m := range sorted[full:] {
				if m.m.sched.doneAt != sc.ticks {
					s.runGroup(m, &switchTo)
				}
			}
		}
	}
	sc.inTick = false
	if sc.rebuild {
		s.rebuildSchedule()
	}
	return switchTo
}

// queue adds a group to the current tick's work.
func (s *Sentinel) queue(m *instance) {
	sc := &s.sched
	if m.m.sched.queuedAt == sc.ticks {
		return
	}
	m.m.sched.queuedAt = sc.ticks
	sc.work.push(m)
}

// runGroup handles one due group and schedules it again; it reports a
// change that every group depends on (the rest of the tick is then a full
// scan).
func (s *Sentinel) runGroup(m *instance, switchTo *[]*instance) bool {
	sc := &s.sched
	m.m.sched.doneAt = sc.ticks
	m.m.sched.queuedAt = sc.ticks
	sc.tickFrom = m.m.sched.pos
	sc.keys = sc.keys[:0]
	s.sharedKeys(m, func(i *instance) { sc.keys = append(sc.keys, keyOf(i.link)) })
	if s.handleGroup(m) {
		*switchTo = append(*switchTo, m)
	}
	if s.noteGlobal() {
		return true
	}
	if len(sc.keys) > 0 {
		s.shareDue(m)
	}
	s.reschedule(m)
	return false
}

// shareDue makes the groups sharing a link with m's group due: later ones
// in this tick, earlier ones at the next.
func (s *Sentinel) shareDue(m *instance) {
	k := 0
	s.sharedKeys(m, func(i *instance) {
		changed := k >= len(s.sched.keys) || keyOf(i.link) != s.sched.keys[k]
		k++
		if !changed {
			return
		}
		for _, u := range i.link.users {
			g := groupOf(u)
			if g == m || g.released || g.m == nil {
				continue
			}
			if g.m.sched.pos > s.sched.tickFrom && g.m.sched.doneAt != s.sched.ticks {
				s.queue(g)
				s.markStale(g)
			} else {
				s.makeDue(g)
			}
		}
	})
}

// sharedKeys calls f for every instance of m's group whose link is
// shared, in a fixed order (sorted: map order may change between calls).
func (s *Sentinel) sharedKeys(m *instance, f func(*instance)) {
	if m.link.refcount > 1 {
		f(m)
	}
	for _, r := range m.sortedReplicas() {
		if r.link.refcount > 1 {
			f(r)
		}
	}
	for _, si := range m.sortedSentinels() {
		if si.link.refcount > 1 {
			f(si)
		}
	}
}

// reschedule computes a handled group's next wake.
func (s *Sentinel) reschedule(m *instance) {
	// A wake of now is "the next tick", even one at the same millisecond:
	// the full scan handles every group at every tick, and the runtime
	// may deliver two Ticks within one millisecond.
	m.m.sched.wake = max(s.groupWake(m), s.now)
	s.sched.wake.fix(m)
	s.markStale(m)
}

// rebuildSchedule recomputes every group's position and wake.
func (s *Sentinel) rebuildSchedule() {
	sc := &s.sched
	s.noteGlobal()
	sorted := s.sortedMasters()
	sc.wake.reset()
	sc.work.reset()
	for k, m := range sorted {
		m.m.sched.pos = k
		m.m.sched.wake = max(s.groupWake(m), s.now)
	}
	sc.wake.init(sorted)
	sc.rebuild, sc.dlAll = false, true
}

// groupWake is the earliest instant at which handling the group could act.
func (s *Sentinel) groupWake(m *instance) Millis {
	if s.tilt || m.flags&(fSDown|fODown|fFailoverInProgress) != 0 || m.m.failoverState != FailoverNone {
		return s.now
	}
	w := s.instanceWake(m)
	for _, r := range m.m.replicas {
		w = min(w, s.instanceWake(r))
	}
	for _, si := range m.m.sentinels {
		w = min(w, s.instanceWake(si))
		if si.flags&fMasterDown != 0 || si.votedLeader != "" {
			w = min(w, si.lastMDReplyTime+5*s.timing.AskPeriod+1) // expireMasterDownReply
		}
	}
	return w
}

// instanceWake is the earliest instant at which handleInstance(i) could
// act, for an instance that is not SDOWN and whose links are up.
func (s *Sentinel) instanceWake(i *instance) Millis {
	if i.released {
		return noDeadline
	}
	l := i.link
	if i.flags&fSDown != 0 || l.ccState != connUp || (l.needPC && l.pcState != connUp) {
		return s.now // reconnection, SDOWN: every tick
	}
	w := noDeadline
	// sendPeriodicCommands
	if l.pending < MaxPendingCommands*l.refcount {
		if !i.isSentinel() && !i.infoPending {
			if i.infoRefresh == 0 {
				return s.now
			}
			w = min(w, i.infoRefresh+s.infoPeriodFor(i)+1)
			if i.convertAt != 0 && i.isSlave() {
				w = min(w, i.convertAt) // convert.go
			}
		}
		p := s.pingInterval(i)
		w = min(w, max(l.lastPongTime+p, l.lastPingTime+p/2)+1)
		if !i.helloPending {
			w = min(w, i.lastPubTime+s.timing.PublishPeriod+1)
		}
	}
	// checkSubjectivelyDown: link recycling, then SDOWN.
	half := i.downAfter / 2
	if l.actPingTime != 0 {
		w = min(w, max(l.ccConnTime+s.timing.MinLinkReconnectPeriod, l.actPingTime+half, l.lastPongTime+half)+1)
	}
	if base, ok := s.silentSince(i); ok {
		w = min(w, base+i.downAfter+1)
	}
	if l.pcState != connNone {
		w = min(w, max(l.pcConnTime+s.timing.MinLinkReconnectPeriod, l.pcLastActivity+3*s.timing.PublishPeriod)+1)
	}
	if i.isMaster() && i.roleReported == fSlave {
		w = min(w, i.roleReportedTime+i.downAfter+2*s.timing.InfoPeriod+1)
	}
	if i.flags&fMasterReboot != 0 && i.isMaster() {
		w = min(w, i.rebootSince+i.m.rebootDownAfter+1)
	}
	return w
}
