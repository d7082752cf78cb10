package sim

import (
	"fmt"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// checker holds the cross-sentinel bookkeeping of the safety invariants.
// Epoch-keyed records are per master: epochs are global to a sentinel, but
// votes, leaders and config epochs belong to one master each.
type checker struct {
	opt        Options
	violations []Violation
	seen       map[string]bool // checks that already reported in this run

	votes    map[voteKey]*voteRec // S1: one vote per (sentinel, master, epoch)
	leaders  map[mepoch]int       // S2: (master, epoch) → sentinel that won it
	promos   map[mepoch]promo     // S3: (master, failover epoch) → promotion
	switched map[mepoch]bool      // config epochs that reached +switch-master
	// epochAddr is S4 across sentinels: the address a config epoch
	// designates. Every sentinel adopting an address at config epoch E
	// must adopt the same one.
	epochAddr map[mepoch]core.Addr

	inflight map[replyKey]downReply // S5: IS-MASTER-DOWN-BY-ADDR answers in flight
	heard    map[downKey]downSeen   // S5: the last answer each asker processed
}

// mepoch is an epoch of one master.
type mepoch struct {
	master string
	epoch  uint64
}

type voteKey struct {
	sentinel int // identity (sentinel.ident): a lost config file makes a new one
	master   string
	epoch    uint64
}

type voteRec struct {
	leader   string
	revealed bool // sent to a peer in a reply
}

type promo struct {
	sentinel int
	target   string
}

// sentinelCheck is the per-sentinel bookkeeping.
type sentinelCheck struct {
	curEpoch uint64   // S4: highest current epoch seen (this incarnation + disk)
	tilt     bool     // from +tilt/-tilt, in effect order
	steps    stepRing // recent steps, for events released late (late.go)
	m        map[string]*masterCheck

	switches []switchMsg    // S9: +switch-master seen in the current step
	elected  []string       // S2: masters with +elected-leader in the current step
	votes    map[uint64]int // S1: +vote-for-leader events per epoch (this incarnation)
	resets   []string       // O1: masters with +reset-master since the last SENTINEL RESET reply
}

// masterCheck is the per-(sentinel, master) bookkeeping.
type masterCheck struct {
	cfgEpoch  uint64    // S4: highest config epoch seen
	addr      core.Addr // S4: configured master address (live)
	shown     core.Addr // S9: configured address replies showed
	cur       core.Addr // S9: address GET-MASTER-ADDR-BY-NAME returned
	addrEpoch uint64    // config epoch when addr was adopted

	leader      string // S1: our vote as last seen in the view
	leaderEpoch uint64

	odown      bool  // from +odown/-odown, in effect order
	sdown      bool  // from +sdown/-sdown of the master, in effect order
	sdownSince int64 // local time of the last +sdown of the master

	lastAttempt   int64 // S7: local time of the last +try-failover
	hasAttempt    bool
	lastVoteOther int64 // S7: local time of the last vote for another sentinel
	hasVoteOther  bool
	voteOtherV    int64 // the same in virtual time (late.go)
	paceResetStep int   // the World's step number of the last address change (pacing restarted)
	attemptV      int64 // virtual time of the last attempt
	attemptForced bool  // the last attempt was SENTINEL FAILOVER

	// S7's early retry (docs/core.md decision 27): the last automatic
	// attempt aborted with -failover-abort-no-good-slave at noGoodAt
	// (local) / noGoodV (virtual).
	noGood   bool
	noGoodAt int64
	noGoodV  int64

	reconf map[string]bool // L1: replicas being reconfigured (parallel-syncs)
}

type switchMsg struct {
	master   string
	old, new core.Addr
}

func (c *checker) init(o Options) {
	c.opt = o
	c.seen = map[string]bool{}
	c.votes = map[voteKey]*voteRec{}
	c.leaders = map[mepoch]int{}
	c.promos = map[mepoch]promo{}
	c.switched = map[mepoch]bool{}
	c.epochAddr = map[mepoch]core.Addr{}
}

// failovers counts completed failovers (config epochs that reached
// +switch-master at some sentinel).
func (c *checker) failovers() int { return len(c.switched) }

// majority is what an election needs with the true sentinel set.
func (c *checker) majority() int {
	m := c.opt.Sentinels/2 + 1
	if c.opt.Quorum > m {
		return c.opt.Quorum
	}
	return m
}

// view returns s's view of master name.
func view(s *sentinel, name string) (core.MasterView, bool) {
	if s.core == nil {
		return core.MasterView{}, false
	}
	return s.core.Master(name)
}

// diskMaster returns the persisted config of master name.
func diskMaster(st core.State, name string) (core.MasterConfig, bool) {
	for _, m := range st.Masters {
		if m.Name == name {
			return m, true
		}
	}
	return core.MasterConfig{}, false
}

// mc returns the bookkeeping of s for master name.
func (ch *sentinelCheck) mc(name string) *masterCheck {
	if ch.m == nil {
		ch.m = map[string]*masterCheck{}
	}
	m := ch.m[name]
	if m == nil {
		m = &masterCheck{}
		ch.m[name] = m
	}
	return m
}

// fromDisk resets what a sentinel holds in memory to its config file.
func (ch *sentinelCheck) fromDisk(st core.State, names []string) {
	ch.curEpoch = st.CurrentEpoch
	for _, name := range names {
		m, _ := diskMaster(st, name)
		x := ch.mc(name)
		x.cfgEpoch = m.ConfigEpoch
		x.addr, x.addrEpoch, x.shown, x.cur = m.Addr, m.ConfigEpoch, m.Addr, m.Addr
		x.leader, x.leaderEpoch = m.Leader, m.LeaderEpoch
		x.odown, x.sdown, x.hasAttempt, x.hasVoteOther = false, false, false, false
		x.noGood = false
		x.reconf = nil
	}
	ch.tilt = false
	ch.steps = stepRing{}
	ch.switches, ch.elected = nil, nil
	ch.votes = nil
}

// restarted resets the per-incarnation bookkeeping from the config file.
func (c *checker) restarted(w *World, s *sentinel) {
	s.chk.fromDisk(s.disk, w.masters)
}

// crashed forgets votes that neither left the process nor reached disk:
// they never existed for anyone.
func (c *checker) crashed(w *World, s *sentinel) {
	for k, v := range c.votes {
		m, _ := diskMaster(s.disk, k.master)
		if k.sentinel == s.ident() && !v.revealed && m.LeaderEpoch < k.epoch {
			delete(c.votes, k)
		}
	}
	c.forgetHeard(s)
	s.chk.fromDisk(s.disk, w.masters)
}

// persisted is called when a snapshot reaches the config file.
func (c *checker) persisted(w *World, s *sentinel, st core.State) {}

// recordVote registers that sentinel s voted for leader in (master, epoch) (S1).
func (c *checker) recordVote(w *World, s *sentinel, master string, epoch uint64, leader string, revealed bool) {
	k := voteKey{s.ident(), master, epoch}
	if v, ok := c.votes[k]; ok {
		if !strings.EqualFold(v.leader, leader) {
			w.violate("S1", s, "voted for %s and for %s in epoch %d of %s", short(v.leader), short(leader), epoch, master)
		}
		v.revealed = v.revealed || revealed
		return
	}
	c.votes[k] = &voteRec{leader: leader, revealed: revealed}
	if s.core != nil && !strings.EqualFold(leader, s.core.MyID()) {
		x := s.chk.mc(master)
		x.lastVoteOther, x.hasVoteOther, x.voteOtherV = s.local(w.sch.now), true, w.sch.now
	}
}

// effect checks one effect of s before it is executed.
func (c *checker) effect(w *World, s *sentinel, e core.Effect) {
	now := s.local(w.sch.now)
	switch e := e.(type) {
	case core.Emit:
		var late []stepRec
		if int64(e.At) != now { // held until its Persist (late.go)
			late = s.lateSteps(int64(e.At))
			if late == nil {
				late = []stepRec{} // no longer remembered: judged leniently
			}
			now = int64(e.At)
		}
		c.ruleEmit(w, s, e, now, late)
		c.emit(w, s, e, now, late)
	case core.RunScript:
		c.scriptStart(w, s, e, now)
	case core.KillScript:
		c.scriptKill(w, s, e, now)
	case core.Respond:
		if _, ok := s.reqs[e.ID]; !ok {
			w.violate("P1", s, "Respond for request %d, which is unknown or already answered", e.ID)
			return
		}
		c.respond(w, s, e)
	case core.Send:
		if s.dead[e.Conn] {
			w.violate("P2", s, "Send %q on connection %d after it was closed", e.Args, e.Conn)
		}
		c.sendCheck(w, s, e)
	case core.Connect:
		if s.dead[e.Conn] || s.conns[e.Conn] != nil {
			w.violate("P2", s, "Connect reuses connection id %d", e.Conn)
		}
	case core.Close:
		s.dead[e.Conn] = true
	}
}

// unanswered is P1's liveness half: every request gets its Respond.
func (c *checker) unanswered(w *World) {
	for _, s := range w.sent {
		if !s.up {
			continue
		}
		for id, r := range s.reqs {
			if age := w.sch.now - r.at; age > 5000 {
				w.violate("P1", s, "request %d %q unanswered for %dms", id, r.args, age)
			}
		}
	}
}

// afterStep checks the state of s after a step: votes (S1), elections of
// the step (S2), epochs and addresses (S4, S9). The masters' views are
// costly to build, so they are only examined after steps that emitted an
// event or a Persist or changed persisted state (core Changes): a vote
// whose Persist is coalesced and whose events are held shows in neither.
func (c *checker) afterStep(w *World, s *sentinel, full bool) {
	ch := &s.chk
	cur := s.core.CurrentEpoch()
	if cur < ch.curEpoch {
		w.violate("S4", s, "current epoch went from %d down to %d", ch.curEpoch, cur)
	}
	ch.curEpoch = cur
	if !full && len(ch.switches) == 0 && len(ch.elected) == 0 {
		return
	}
	switches, elected := ch.switches, ch.elected
	ch.switches, ch.elected = nil, nil
	for _, name := range w.masters {
		v, ok := view(s, name)
		if !ok {
			continue
		}
		x := ch.mc(name)
		if v.Leader != "" && (v.Leader != x.leader || v.LeaderEpoch != x.leaderEpoch) {
			if v.LeaderEpoch < x.leaderEpoch {
				w.violate("S1", s, "vote of %s went back from epoch %d to %d", name, x.leaderEpoch, v.LeaderEpoch)
			}
			if ch.tilt && !strings.EqualFold(v.Leader, s.core.MyID()) {
				// V1: only a vote request can make a sentinel in TILT
				// vote for another (its own election does not run there).
				w.violate("V1", s, "voted for %s in epoch %d of %s in TILT", short(v.Leader), v.LeaderEpoch, name)
			}
			c.recordVote(w, s, name, v.LeaderEpoch, v.Leader, false)
		}
		x.leader, x.leaderEpoch = v.Leader, v.LeaderEpoch
		var sw []switchMsg
		for _, m := range switches {
			if m.master == name {
				sw = append(sw, m)
			}
		}
		c.addresses(w, s, name, v, x, sw)
		w.announcedPeers(s, name, v) // N1
	}
	for _, name := range elected {
		c.election(w, s, name)
	}
}

// addresses is S4 and S9 for one master after a step.
func (c *checker) addresses(w *World, s *sentinel, name string, v core.MasterView, x *masterCheck, switches []switchMsg) {
	if v.ConfigEpoch < x.cfgEpoch {
		w.violate("S4", s, "config epoch of %s went from %d down to %d", name, x.cfgEpoch, v.ConfigEpoch)
	}
	x.cfgEpoch = v.ConfigEpoch
	// S9: the chain of +switch-master must lead from the old address the
	// replies showed (the configured one, or the promoted replica clients
	// were already given during RECONF_SLAVES) to the new one, one event
	// per change, in the step the replies change: a client that asks on
	// the event gets the address it names (docs/core.md decision 34).
	at := x.shown
	for i, sw := range switches {
		if i == 0 && !sameAddr(sw.old, at) && !sameAddr(sw.old, x.cur) {
			w.violate("S9", s, "+switch-master from %s but the address was %s (clients had %s)", fmtAddr(sw.old), fmtAddr(at), fmtAddr(x.cur))
		} else if i > 0 && !sameAddr(sw.old, at) {
			w.violate("S9", s, "+switch-master from %s but the previous switch went to %s", fmtAddr(sw.old), fmtAddr(at))
		}
		if sameAddr(sw.old, sw.new) {
			w.violate("S9", s, "+switch-master to the same address %s", fmtAddr(sw.new))
		}
		at = sw.new
		c.switched[mepoch{name, v.ConfigEpoch}] = true
	}
	if !sameAddr(at, v.ShownAddr) {
		if len(switches) > 0 && sameAddr(x.shown, v.ShownAddr) {
			w.violate("S9", s, "+switch-master of %s to %s while replies still show %s", name, fmtAddr(at), fmtAddr(v.ShownAddr))
		} else {
			w.violate("S9", s, "address of %s in replies changed from %s to %s with %d +switch-master", name, fmtAddr(x.shown), fmtAddr(v.ShownAddr), len(switches))
		}
	}
	x.shown = v.ShownAddr
	if !sameAddr(x.addr, v.Addr) {
		if v.ConfigEpoch <= x.addrEpoch {
			w.violate("S4", s, "address changed %s -> %s without a higher config epoch (%d, was %d)",
				fmtAddr(x.addr), fmtAddr(v.Addr), v.ConfigEpoch, x.addrEpoch)
		}
		k := mepoch{name, v.ConfigEpoch}
		if prev, ok := c.epochAddr[k]; ok && !sameAddr(prev, v.Addr) {
			w.violate("S4", s, "switched to %s at config epoch %d, which designates %s at another sentinel",
				fmtAddr(v.Addr), v.ConfigEpoch, fmtAddr(prev))
		}
		c.epochAddr[k] = v.Addr
		x.addr, x.addrEpoch = v.Addr, v.ConfigEpoch
		c.masterReset(w, s, x)
	}
	if v.FailoverState == core.FailoverNone {
		x.reconf = nil
	}
	x.cur = v.ShownCurrentAddr
}

// sameAddr is sentinelAddrEqualsHostname: the same port and the same IP
// or the same hostname.
func sameAddr(a, b core.Addr) bool {
	a, b = normName(a), normName(b)
	if a.Port == b.Port && isName(a.Host) && strings.EqualFold(a.Host, b.Host) {
		return true
	}
	ai, bi := a.IP, b.IP
	if ai == "" {
		ai = a.Host
	}
	if bi == "" {
		bi = b.Host
	}
	return ai == bi && a.Port == b.Port
}

func fmtAddr(a core.Addr) string {
	ip := a.IP
	if ip == "" {
		ip = a.Host
	}
	return fmt.Sprintf("%s:%d", ip, a.Port)
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// masterReset follows sentinelResetMaster (an address change, or SENTINEL
// RESET) in the bookkeeping of master x of s.
func (c *checker) masterReset(w *World, s *sentinel, x *masterCheck) {
	// It clears failover_start_time ("we can failover again ASAP"):
	// pacing starts afresh.
	x.hasAttempt, x.hasVoteOther, x.noGood = false, false, false
	x.paceResetStep = w.steps
	x.reconf = nil // the failover is over, whichever way it ended
	// It clears the master's flags and re-creates its replicas: no
	// SDOWN/ODOWN, no replica SDOWN.
	x.sdown, x.odown = false, false
	for k := range s.truth.sdown {
		if strings.HasPrefix(k, "slave ") {
			delete(s.truth.sdown, k)
		}
	}
	s.truth.slaveOff = w.steps
}
