package core

import (
	"errors"
	"math/rand/v2"
)

// Errors returned by [New].
var (
	// ErrInvalidConfig wraps every reason New rejects a Config.
	ErrInvalidConfig = errors.New("core: invalid config")
	// ErrNoRand is returned when New is called without a random source.
	ErrNoRand = errors.New("core: nil random source")
)

// FailoverState is the state of a master's failover state machine
// (SENTINEL_FAILOVER_STATE_*, reference §14).
type FailoverState uint8

// Failover states, in the order a failover walks them.
const (
	FailoverNone FailoverState = iota
	FailoverWaitStart
	FailoverSelectSlave
	FailoverSendSlaveofNoOne
	FailoverWaitPromotion
	FailoverReconfSlaves
	FailoverUpdateConfig
)

// String returns the name shown in the failover-state field of SENTINEL
// MASTER (none, wait_start, select_slave, send_slaveof_noone,
// wait_promotion, reconf_slaves, update_config).
func (f FailoverState) String() string {
	switch f {
	case FailoverWaitStart:
		return "wait_start"
	case FailoverSelectSlave:
		return "select_slave"
	case FailoverSendSlaveofNoOne:
		return "send_slaveof_noone"
	case FailoverWaitPromotion:
		return "wait_promotion"
	case FailoverReconfSlaves:
		return "reconf_slaves"
	case FailoverUpdateConfig:
		return "update_config"
	}
	return "none"
}

// MasterView is a read-only copy of what a sentinel believes about one
// master, for the runtime (metrics), the simulator's invariant checkers and
// tests.
type MasterView struct {
	Name        string
	Addr        Addr // configured address, live (changes at a switch)
	CurrentAddr Addr // the live current address (promoted replica once RECONF_SLAVES)
	// ShownAddr and ShownCurrentAddr are what replies show (SENTINEL
	// MASTER, GET-MASTER-ADDR-BY-NAME): Addr and CurrentAddr, except
	// while a config epoch change is not saved, when they are the
	// address on disk (docs/core.md decisions 31 and 34: the
	// +switch-master of a followed switch is published when they change).
	ShownAddr        Addr
	ShownCurrentAddr Addr
	Quorum           int
	ConfigEpoch      uint64
	// Leader and LeaderEpoch are our vote for this master.
	Leader      string
	LeaderEpoch uint64

	SDown      bool
	ODown      bool
	SDownSince Millis
	ODownSince Millis

	FailoverState     FailoverState
	FailoverEpoch     uint64
	FailoverStartTime Millis
	ForcedFailover    bool
	// Promoted is the replica chosen by this failover (zero if none).
	Promoted Addr

	Replicas  []ReplicaView
	Sentinels []SentinelView
	// ForeignHellos counts the hellos dropped as another deployment's
	// since the start (docs/core.md decision 35).
	ForeignHellos uint64
}

// ReplicaView is a read-only copy of one replica of a master.
type ReplicaView struct {
	Addr         Addr
	RunID        string
	Flags        string // as in SENTINEL REPLICAS
	SDown        bool
	Disconnected bool
	Priority     int
	ReplOffset   int64
	MasterHost   string
	MasterPort   int
	MasterLinkUp bool
}

// SentinelView is a read-only copy of one peer sentinel of a master.
type SentinelView struct {
	RunID       string
	Addr        Addr
	Link        LinkID
	SDown       bool
	MasterDown  bool // the peer said the master is down
	Leader      string
	LeaderEpoch uint64
}

// New returns a Sentinel for cfg. rng is the only source of randomness
// (myid generation when cfg.MyID is empty, failover desync jitter); pass a
// seeded rand.New(rand.NewPCG(a, b)) for reproducible runs.
//
// New does not emit anything: the first Step (of any event) emits the
// startup effects (a Persist when the myid was generated, +monitor for
// every master, the first Connects).
func New(cfg Config, rng *rand.Rand) (*Sentinel, error) {
	if rng == nil {
		return nil, ErrNoRand
	}
	return newSentinel(cfg, rng)
}

// Step feeds one event at time now and returns the effects to execute, in
// order. Step never panics on input from the network or from clients.
func (s *Sentinel) Step(now Millis, ev Event) []Effect {
	return s.step(now, ev)
}

// MyID returns the 40-character run id of this sentinel.
func (s *Sentinel) MyID() string { return s.myid }

// CurrentEpoch returns the current epoch.
func (s *Sentinel) CurrentEpoch() uint64 { return s.currentEpoch }

// InTilt reports whether the sentinel is in TILT mode.
func (s *Sentinel) InTilt() bool { return s.tilt }

// Timing returns the live timers.
func (s *Sentinel) Timing() Timing { return s.timing }

// Masters returns a view of every monitored master, sorted by name.
func (s *Sentinel) Masters() []MasterView {
	out := make([]MasterView, 0, len(s.masters))
	for _, m := range s.sortedMasters() {
		out = append(out, s.masterView(m))
	}
	return out
}

// Master returns the view of one master.
func (s *Sentinel) Master(name string) (MasterView, bool) {
	m, ok := s.masters[name]
	if !ok {
		return MasterView{}, false
	}
	return s.masterView(m), true
}

// Snapshot returns the state that would be persisted now.
func (s *Sentinel) Snapshot() State { return s.snapshot() }

// PersistedSeq returns the Seq of the last Persist reported done without
// error (0 if none).
func (s *Sentinel) PersistedSeq() uint64 { return s.persist.doneSeq }

// NextDeadline returns the earliest time at which a timer of the core
// expires (a master becomes SDOWN, a periodic command is due, a failover
// state times out...). The runtime may deliver a Tick at that time instead
// of waiting for its regular tick; it must still tick at least every 100 ms.
func (s *Sentinel) NextDeadline(now Millis) Millis { return s.nextDeadline(now) }

// InfoSection returns the body of the "# Sentinel" section of INFO
// (reference §7), lines separated by "\r\n", without the header line.
func (s *Sentinel) InfoSection(now Millis) string { return s.infoSection(now) }
