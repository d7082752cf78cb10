package core

import (
	"fmt"
	"math/rand/v2"
	"sort"
)

// timeBase is added to every now the caller passes, so that internal
// timestamps are never 0: sentinel.c uses 0 as "never" (info_refresh,
// act_ping_time, failover_start_time...) because mstime() is a Unix time,
// while a monotonic clock (or the simulator's) may start at 0.
const timeBase Millis = 1 << 40

// Sentinel is one sentinel's algorithm state. It is not safe for concurrent
// use: one goroutine owns it (see the package doc).
type Sentinel struct {
	rng *rand.Rand

	myid              string
	currentEpoch      uint64
	announceIP        string
	announceIPSet     bool
	announcePort      int
	announceHostnames bool
	resolveHostnames  bool
	denyScripts       bool
	sentinelUser      string
	sentinelPass      string
	port              int
	requirePass       string
	executable        func(string) bool
	resolveIP         func(string) (string, bool)

	timing Timing

	masters       map[string]*instance
	mastersSorted sortedCache // cache of sortedMasters
	dictGen       uint64      // see dictChanged
	links         map[LinkID]*instanceLink
	pending       map[Tag]*pendingCmd
	// pendingByConn indexes pending by connection, so that dropping a
	// connection costs its own commands, not every pending command.
	pendingByConn map[ConnID]map[Tag]struct{}

	nextLink LinkID
	nextConn ConnID
	nextTag  Tag

	now      Millis
	started  bool
	prevTick Millis
	// tickPrev is the previous tick's time during a tick (tick.go): a
	// redial owed by SENTINEL RESET waits for a tick with no RESET since
	// it (reconnect).
	tickPrev  Millis
	tilt      bool
	tiltStart Millis
	// tiltExit is when TILT last ended (tick.go): replica selection waits
	// for the next tick (failover.go).
	tiltExit Millis
	simFlags simFailure

	// floors are the masters with a voter floor (voterfloor.go).
	floors []*instance

	newer   newerState // Redis 7.2+ / Valkey state (newer.go)
	out     []Effect
	persist persistState
	scripts scriptQueue
	sched   scheduler // schedule.go
}

type simFailure uint8

const (
	simCrashAfterElection simFailure = 1 << iota
	simCrashAfterPromotion
)

func newSentinel(cfg Config, rng *rand.Rand) (*Sentinel, error) {
	s := &Sentinel{
		rng:               rng,
		myid:              cfg.MyID,
		currentEpoch:      cfg.CurrentEpoch,
		announceIP:        cfg.AnnounceIP,
		announceIPSet:     cfg.AnnounceIPSet || cfg.AnnounceIP != "",
		announcePort:      cfg.AnnouncePort,
		announceHostnames: cfg.AnnounceHostnames,
		resolveHostnames:  cfg.ResolveHostnames,
		denyScripts:       cfg.DenyScriptsReconfig,
		sentinelUser:      cfg.SentinelUser,
		sentinelPass:      cfg.SentinelPass,
		newer:             newerState{logLevel: cfg.LogLevel},
		port:              cfg.Port,
		requirePass:       cfg.RequirePass,
		executable:        cfg.Executable,
		resolveIP:         cfg.ResolveIP,
		timing:            fillTiming(cfg.Timing),
		masters:           map[string]*instance{},
		links:             map[LinkID]*instanceLink{},
		pending:           map[Tag]*pendingCmd{},
		pendingByConn:     map[ConnID]map[Tag]struct{}{},
		now:               timeBase,
		dictGen:           1, // zero caches are never valid
	}
	if s.myid == "" {
		s.myid = randomHex(rng, 40)
		s.markDirty()
	} else if len(s.myid) != 40 {
		return nil, fmt.Errorf("%w: myid %q is not 40 characters long", ErrInvalidConfig, s.myid)
	}
	for i := range cfg.Masters {
		mc := &cfg.Masters[i]
		if err := s.loadMaster(mc); err != nil {
			return nil, fmt.Errorf("%w: master %q: %w", ErrInvalidConfig, mc.Name, err)
		}
	}
	s.persist.savedEpoch = s.currentEpoch // loaded from the file
	// Link sharing needs every master loaded first.
	for _, m := range s.sortedMasters() {
		for _, si := range m.sortedSentinels() {
			s.tryConnectionSharing(si)
		}
	}
	return s, nil
}

// fillTiming replaces zero timers by their defaults.
func fillTiming(t Timing) Timing {
	d := DefaultTiming()
	fill := func(v *Millis, def Millis) {
		if *v <= 0 {
			*v = def
		}
	}
	fill(&t.InfoPeriod, d.InfoPeriod)
	fill(&t.PingPeriod, d.PingPeriod)
	fill(&t.AskPeriod, d.AskPeriod)
	fill(&t.PublishPeriod, d.PublishPeriod)
	fill(&t.DefaultDownAfter, d.DefaultDownAfter)
	fill(&t.DefaultFailoverTimeout, d.DefaultFailoverTimeout)
	fill(&t.TiltTrigger, d.TiltTrigger)
	fill(&t.TiltPeriod, d.TiltPeriod)
	fill(&t.SlaveReconfTimeout, d.SlaveReconfTimeout)
	fill(&t.MinLinkReconnectPeriod, d.MinLinkReconnectPeriod)
	fill(&t.ElectionTimeout, d.ElectionTimeout)
	fill(&t.ScriptMaxRuntime, d.ScriptMaxRuntime)
	fill(&t.ScriptRetryDelay, d.ScriptRetryDelay)
	fill(&t.FailoverStagger, d.FailoverStagger)
	return t
}

func randomHex(rng *rand.Rand, n int) string {
	const hexdigits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = hexdigits[rng.IntN(16)]
	}
	return string(b)
}

// loadMaster creates a master and its known replicas and sentinels from
// the configuration (sentinelHandleConfiguration).
func (s *Sentinel) loadMaster(mc *MasterConfig) error {
	if mc.Name == "" {
		return fmt.Errorf("empty master name")
	}
	if _, dup := s.masters[mc.Name]; dup {
		return fmt.Errorf("duplicate master name")
	}
	if mc.Quorum <= 0 {
		return fmt.Errorf("quorum must be 1 or greater")
	}
	if mc.Addr.Port < 0 || mc.Addr.Port > 65535 {
		return fmt.Errorf("invalid port %d", mc.Addr.Port)
	}
	m := s.createMaster(mc.Name, s.normAddr(mc.Addr), mc.Quorum)
	ms := m.m
	if mc.DownAfter > 0 {
		m.downAfter = mc.DownAfter
	}
	if mc.FailoverTimeout > 0 {
		ms.failoverTimeout = mc.FailoverTimeout
	}
	if mc.ParallelSyncs > 0 {
		ms.parallelSyncs = mc.ParallelSyncs
	}
	ms.rebootDownAfter = mc.MasterRebootDownAfterPeriod
	ms.rebootOption = mc.RebootOption
	ms.notificationScript = mc.NotificationScript
	ms.clientReconfigScript = mc.ClientReconfigScript
	ms.authUser = mc.AuthUser
	ms.authPass = mc.AuthPass
	ms.renames = append([]Rename(nil), mc.RenameCommands...)
	ms.configEpoch = mc.ConfigEpoch
	ms.ourVoteEpoch = mc.LeaderEpoch
	ms.ourVote = mc.Leader
	if ms.configEpoch > s.currentEpoch {
		s.currentEpoch = ms.configEpoch
	}
	for _, ra := range mc.KnownReplicas {
		a := s.normAddr(ra)
		if _, ok := ms.replicas[s.replicaKey(a)]; ok || a.Port <= 0 || a.Port > 65535 {
			continue
		}
		s.createReplica(m, a)
	}
	for _, ks := range mc.KnownSentinels {
		if ks.RunID == "" || ks.RunID == s.myid {
			continue
		}
		if _, ok := ms.sentinels[ks.RunID]; ok {
			continue
		}
		s.createSentinel(m, ks.RunID, s.normAddr(ks.Addr))
	}
	s.loadVoterFloor(m, mc) // voterfloor.go
	return nil
}

// normAddr fills IP from Host for literal addresses.
func (s *Sentinel) normAddr(a Addr) Addr {
	if a.Host == "" {
		a.Host = a.IP
	}
	if a.IP == "" {
		if ip, ok := parseIP(a.Host); ok {
			a.IP = ip
		} else if s.resolveHostnames && s.resolveIP != nil {
			if ip, ok := s.resolveIP(a.Host); ok {
				a.IP = ip
			}
		}
	}
	return a
}

func (s *Sentinel) step(now Millis, ev Event) []Effect {
	s.now = now + timeBase
	s.out = nil
	s.persist.holdMaster = nil // event.go: holding lasts one step
	if !s.started {
		s.start()
	}
	s.schedBeforeEvent(ev) // schedule.go
	switch e := ev.(type) {
	case Tick:
		s.tick()
	case *Tick:
		s.tick()
	case LinkConnected:
		s.onLinkConnected(e)
	case LinkClosed:
		s.onLinkClosed(e)
	case Reply:
		s.onReply(e)
	case Message:
		s.onMessage(e)
	case Request:
		s.onRequest(e)
	case PersistDone:
		s.onPersistDone(e)
		if e.Err == nil {
			for _, m := range s.sortedMasters() {
				switch m.m.failoverState {
				case FailoverSendSlaveofNoOne:
					s.advanceFailover(m) // the promotion waited for this Persist
				case FailoverWaitStart:
					s.advanceFailover(m) // the election waited for its vote to be on disk (event.go)
				case FailoverReconfSlaves:
					s.advanceFailover(m) // the end waited for the promotion's config epoch (decision 37)
				}
			}
		}
	case ScriptStarted:
		s.onScriptStarted(e)
	case ScriptDone:
		s.onScriptDone(e)
	}
	s.flushPersist()
	s.schedAfterEvent(ev)
	out := s.out
	s.out = nil
	return out
}

// start runs the startup work of sentinelIsRunning: timestamps start now,
// +monitor for every master.
func (s *Sentinel) start() {
	s.started = true
	s.prevTick = s.now
	for _, m := range s.sortedMasters() {
		s.touch(m)
		for _, r := range m.sortedReplicas() {
			s.touch(r)
		}
		for _, si := range m.sortedSentinels() {
			s.touch(si)
		}
	}
	s.startVoterFloors() // voterfloor.go
	for _, m := range s.sortedMasters() {
		s.eventAt(LevelWarning, "+monitor", m, fmt.Sprintf("quorum %d", m.m.quorum))
	}
}

// touch resets the creation timestamps of an instance created before the
// first Step knew the time.
func (s *Sentinel) touch(i *instance) {
	i.lastPubTime = s.now
	i.lastHelloTime = s.now
	i.lastMDReplyTime = s.now
	i.roleReportedTime = s.now
	i.slaveConfChange = s.now
	l := i.link
	l.actPingTime = s.now
	l.lastAvailTime = s.now
	l.lastPongTime = s.now
}

func (s *Sentinel) sortedMasters() []*instance { return s.sortedCached(s.masters, &s.mastersSorted) }

// emit appends an effect to the output of the current step.
func (s *Sentinel) emit(e Effect) { s.out = append(s.out, e) }

// logf emits a log line that is not an event.
func (s *Sentinel) logf(level Level, format string, args ...any) {
	s.emit(Log{Level: level, Msg: fmt.Sprintf(format, args...)})
}

// sortedKeys returns the keys of a map in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
