package sim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// checker holds the cross-sentinel bookkeeping of the safety invariants.
type checker struct {
	opt        Options
	violations []Violation
	seen       map[string]bool // checks that already reported in this run

	votes    map[voteKey]*voteRec // S1: one vote per (sentinel, epoch)
	leaders  map[uint64]int       // S2: epoch → sentinel that won it
	promos   map[uint64]promo     // S3: failover epoch → promotion
	switched map[uint64]bool      // config epochs that reached +switch-master
	// epochAddr is S4 across sentinels: the address a config epoch
	// designates. Every sentinel adopting an address at config epoch E
	// must adopt the same one.
	epochAddr map[uint64]core.Addr
}

type voteKey struct {
	sentinel int
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
	started bool // the first step of this incarnation was checked

	curEpoch  uint64    // S4: highest current epoch seen (this incarnation + disk)
	cfgEpoch  uint64    // S4: highest config epoch seen
	addr      core.Addr // S4/S9: configured master address
	cur       core.Addr // S9: address GET-MASTER-ADDR-BY-NAME returned
	addrEpoch uint64    // config epoch when addr was adopted

	odown, tilt bool // from +odown/-odown and +tilt/-tilt, in effect order

	lastAttempt   int64 // S7: local time of the last +try-failover
	hasAttempt    bool
	lastVoteOther int64 // S7: local time of the last vote for another sentinel
	hasVoteOther  bool

	switches []switchMsg // S9: +switch-master seen in the current step
}

type switchMsg struct{ old, new core.Addr }

func (c *checker) init(o Options) {
	c.opt = o
	c.seen = map[string]bool{}
	c.votes = map[voteKey]*voteRec{}
	c.leaders = map[uint64]int{}
	c.promos = map[uint64]promo{}
	c.switched = map[uint64]bool{}
	c.epochAddr = map[uint64]core.Addr{}
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

// view returns s's view of the simulated master.
func view(s *sentinel) (core.MasterView, bool) {
	if s.core == nil {
		return core.MasterView{}, false
	}
	return s.core.Master(MasterName)
}

// diskMaster returns the persisted config of the simulated master.
func diskMaster(st core.State) (core.MasterConfig, bool) {
	for _, m := range st.Masters {
		if m.Name == MasterName {
			return m, true
		}
	}
	return core.MasterConfig{}, false
}

// restarted resets the per-incarnation bookkeeping from the config file.
func (c *checker) restarted(w *World, s *sentinel) {
	ch := &s.chk
	ch.started = false
	ch.odown, ch.tilt = false, false
	ch.hasAttempt, ch.hasVoteOther = false, false
	ch.switches = nil
	if ch.curEpoch < s.disk.CurrentEpoch {
		ch.curEpoch = s.disk.CurrentEpoch
	}
	if m, ok := diskMaster(s.disk); ok {
		if ch.addr == (core.Addr{}) {
			ch.addr, ch.addrEpoch = m.Addr, m.ConfigEpoch
		}
		ch.cur = ch.addr
	}
}

// crashed forgets votes that neither left the process nor reached disk.
func (c *checker) crashed(w *World, s *sentinel) {
	m, _ := diskMaster(s.disk)
	for k, v := range c.votes {
		if k.sentinel == s.id && !v.revealed && m.LeaderEpoch < k.epoch {
			delete(c.votes, k)
		}
	}
	// What the process held in memory only is gone: S4 compares the next
	// incarnation with what is on disk.
	s.chk.curEpoch = s.disk.CurrentEpoch
	s.chk.cfgEpoch = m.ConfigEpoch
	s.chk.addr, s.chk.addrEpoch = m.Addr, m.ConfigEpoch
	s.chk.cur = m.Addr
}

// persisted is called when a snapshot reaches the config file.
func (c *checker) persisted(w *World, s *sentinel, st core.State) {}

// recordVote registers that sentinel s voted for leader in epoch (S1).
func (c *checker) recordVote(w *World, s *sentinel, epoch uint64, leader string, revealed bool) {
	k := voteKey{s.id, epoch}
	if v, ok := c.votes[k]; ok {
		if !strings.EqualFold(v.leader, leader) {
			w.violate("S1", s, "voted for %s and for %s in epoch %d", short(v.leader), short(leader), epoch)
		}
		v.revealed = v.revealed || revealed
		return
	}
	c.votes[k] = &voteRec{leader: leader, revealed: revealed}
	if s.core != nil && !strings.EqualFold(leader, s.core.MyID()) {
		s.chk.lastVoteOther, s.chk.hasVoteOther = s.local(w.sch.now), true
	}
}

// effect checks one effect of s before it is executed.
func (c *checker) effect(w *World, s *sentinel, e core.Effect) {
	switch e := e.(type) {
	case core.Emit:
		c.emit(w, s, e)
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

func (c *checker) emit(w *World, s *sentinel, e core.Emit) {
	ch := &s.chk
	now := s.local(w.sch.now)
	switch e.Type {
	case "+odown":
		ch.odown = true
		if n, q, ok := parseQuorum(e.Msg); ok && (n < q || q != c.opt.Quorum) {
			w.violate("S5", s, "+odown with %d/%d votes, quorum is %d", n, q, c.opt.Quorum)
		}
	case "-odown":
		ch.odown = false
	case "+tilt":
		ch.tilt = true
	case "-tilt":
		ch.tilt = false
	case "+vote-for-leader":
		f := strings.Fields(e.Msg)
		if len(f) == 2 {
			if ep, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				c.recordVote(w, s, ep, f[0], false)
			}
		}
	case "+try-failover":
		if v, _ := view(s); v.ForcedFailover {
			ch.lastAttempt, ch.hasAttempt = now, true
			return // SENTINEL FAILOVER: no ODOWN, election or pacing needed
		}
		if !ch.odown {
			w.violate("S5", s, "+try-failover without ODOWN")
		}
		if ch.tilt {
			w.violate("S5", s, "+try-failover in TILT")
		}
		lim := 2 * c.opt.FailoverTimeout
		if ch.hasAttempt && now-ch.lastAttempt < lim {
			w.violate("S7", s, "new failover attempt %dms after the previous one (< 2×failover-timeout = %d)", now-ch.lastAttempt, lim)
		}
		if ch.hasVoteOther && now-ch.lastVoteOther < lim {
			w.violate("S7", s, "failover attempt %dms after voting for another sentinel (< 2×failover-timeout = %d)", now-ch.lastVoteOther, lim)
		}
		ch.lastAttempt, ch.hasAttempt = now, true
	case "+elected-leader":
		if ch.tilt {
			w.violate("S5", s, "+elected-leader in TILT")
		}
		v, _ := view(s)
		ep := v.FailoverEpoch
		if prev, ok := c.leaders[ep]; ok && prev != s.id {
			w.violate("S2", s, "second leader in epoch %d (sentinel %d won it already)", ep, prev)
		}
		c.leaders[ep] = s.id
		if v.ForcedFailover {
			return
		}
		n := 0
		for k, vr := range c.votes {
			if k.epoch == ep && strings.EqualFold(vr.leader, s.core.MyID()) {
				n++
			}
		}
		if n < c.majority() {
			w.violate("S2", s, "elected in epoch %d with %d votes, needs %d of %d sentinels", ep, n, c.majority(), c.opt.Sentinels)
		}
	case "+selected-slave":
		c.selection(w, s, e.Msg)
	case "+switch-master":
		f := strings.Fields(e.Msg)
		if len(f) == 5 && f[0] == MasterName {
			op, _ := strconv.Atoi(f[2])
			np, _ := strconv.Atoi(f[4])
			ch.switches = append(ch.switches, switchMsg{core.Addr{IP: f[1], Port: op}, core.Addr{IP: f[3], Port: np}})
		} else {
			w.violate("S9", s, "malformed +switch-master %q", e.Msg)
		}
	}
}

// parseQuorum reads "... #quorum n/q" of +odown.
func parseQuorum(msg string) (n, q int, ok bool) {
	i := strings.Index(msg, "#quorum ")
	if i < 0 {
		return 0, 0, false
	}
	a, b, found := strings.Cut(strings.TrimSpace(msg[i+len("#quorum "):]), "/")
	if !found {
		return 0, 0, false
	}
	n, err1 := strconv.Atoi(a)
	q, err2 := strconv.Atoi(b)
	return n, q, err1 == nil && err2 == nil
}

// respond checks a reply leaving s: a vote must be on disk first (S1, S8).
func (c *checker) respond(w *World, s *sentinel, e core.Respond) {
	r, ok := s.reqs[e.ID]
	if !ok || len(r.args) < 2 || !strings.EqualFold(r.args[1], "is-master-down-by-addr") {
		return
	}
	v := e.Value
	if v.Kind != core.KindArray || len(v.Elems) != 3 || v.Elems[1].Kind != core.KindBulk || v.Elems[2].Kind != core.KindInt {
		if v.Kind != core.KindError {
			w.violate("S1", s, "malformed is-master-down-by-addr reply %+v", v)
		}
		return
	}
	leader, epoch := v.Elems[1].Str, uint64(v.Elems[2].Int)
	if leader == "*" {
		return
	}
	m, _ := diskMaster(s.disk)
	if m.LeaderEpoch < epoch {
		w.violate("S1", s, "vote for %s in epoch %d sent before it was persisted (leader-epoch on disk %d)", short(leader), epoch, m.LeaderEpoch)
	}
	if s.disk.CurrentEpoch < epoch {
		w.violate("S8", s, "reply reveals epoch %d, current-epoch on disk is %d", epoch, s.disk.CurrentEpoch)
	}
	c.recordVote(w, s, epoch, leader, true)
}

// sendCheck checks commands leaving s: epochs they reveal must be on disk
// (S8); a promotion must be by the elected leader (S3), outside TILT (S5),
// of an eligible, first-ranked replica (S6).
func (c *checker) sendCheck(w *World, s *sentinel, e core.Send) {
	a := e.Args
	if len(a) == 0 {
		return
	}
	cmd := strings.ToUpper(a[0])
	switch {
	case cmd == "PUBLISH" && len(a) == 3 && a[1] == core.HelloChannel:
		f := strings.Split(a[2], ",")
		if len(f) != 8 {
			w.violate("S8", s, "malformed hello %q", a[2])
			return
		}
		cur, _ := strconv.ParseUint(f[3], 10, 64)
		cfg, _ := strconv.ParseUint(f[7], 10, 64)
		m, _ := diskMaster(s.disk)
		if cur > s.disk.CurrentEpoch {
			w.violate("S8", s, "hello reveals current epoch %d, disk has %d", cur, s.disk.CurrentEpoch)
		}
		if f[4] == MasterName && cfg > m.ConfigEpoch {
			w.violate("S8", s, "hello reveals config epoch %d, disk has %d", cfg, m.ConfigEpoch)
		}
	case cmd == "SENTINEL" && len(a) == 6 && strings.EqualFold(a[1], "is-master-down-by-addr"):
		ep, _ := strconv.ParseUint(a[4], 10, 64)
		if ep > s.disk.CurrentEpoch {
			w.violate("S8", s, "is-master-down-by-addr reveals epoch %d, disk has %d", ep, s.disk.CurrentEpoch)
		}
	case (cmd == "SLAVEOF" || cmd == "REPLICAOF") && len(a) == 3 && strings.EqualFold(a[1], "NO") && strings.EqualFold(a[2], "ONE"):
		c.promotion(w, s, e)
	}
}

// promotion checks a SLAVEOF NO ONE sent by s.
func (c *checker) promotion(w *World, s *sentinel, e core.Send) {
	cn := s.conns[e.Conn]
	if cn == nil || cn.target >= len(w.inst) {
		return
	}
	target := w.inst[cn.target]
	v, _ := view(s)
	ep := v.FailoverEpoch
	if s.core.InTilt() {
		w.violate("S5", s, "SLAVEOF NO ONE to %s in TILT", target.addr.IP)
	}
	if ep > s.disk.CurrentEpoch {
		w.violate("S8", s, "promotion in epoch %d, current-epoch on disk is %d", ep, s.disk.CurrentEpoch)
	}
	if !v.ForcedFailover {
		if l, ok := c.leaders[ep]; !ok || l != s.id {
			w.violate("S3", s, "SLAVEOF NO ONE to %s in epoch %d without being its elected leader", target.addr.IP, ep)
		}
	}
	p := promo{s.id, target.addr.IP}
	if prev, ok := c.promos[ep]; ok && prev != p {
		w.violate("S3", s, "second promotion in epoch %d: %s by sentinel %d, then %s by sentinel %d", ep, prev.target, prev.sentinel, p.target, p.sentinel)
	}
	c.promos[ep] = p
	c.eligibility(w, s, v, target)
}

// eligibility is S6. The replica must not have slave-priority 0 — judged
// only when it has been an undisturbed replica long enough for the INFO
// the core selected on to show that priority (a redis master's INFO has
// no slave_priority line: an instance that just stopped being a master,
// or restarted, may still look like priority 100, and sentinel.c would
// promote it too). It must also rank first by priority among the replicas
// that were, in truth, clearly eligible: known to this sentinel, running,
// not paused or loading, replicating from the failing master, and
// undisturbed (no crash, restart, pause, role change or partition touching
// it or this sentinel) for a whole observation window. Offset and run id
// tie-breaks are not judged: the core only knows offsets as of its last
// INFO, so the truth cannot tell a wrong pick from a stale one.
func (c *checker) eligibility(w *World, s *sentinel, v core.MasterView, target *instance) {
	o := c.opt
	infoWin := 3*o.Timing.InfoPeriod + 2*o.LatencyMax + o.TickMax
	if target.priority == 0 {
		if target.role == roleSlave && w.sch.now-target.lastDisturbed >= infoWin {
			w.violate("S6", s, "promoted %s whose slave-priority is 0 (a replica for %dms)", target.addr.IP, w.sch.now-target.lastDisturbed)
		}
		return
	}
	for _, r := range w.inst {
		if r == target || r.priority == 0 || r.priority >= target.priority || !w.calm(s, r, v.Addr) {
			continue
		}
		known := false
		for _, rv := range v.Replicas {
			if rv.Addr.IP == r.addr.IP && rv.Addr.Port == r.addr.Port {
				known = true
			}
		}
		if known {
			w.violate("S6", s, "promoted %s (priority %d) while %s (priority %d) was eligible and ranks first",
				target.addr.IP, target.priority, r.addr.IP, r.priority)
		}
	}
}

// selection is the second half of S6, judged against the core's own
// knowledge so that stale offsets are not held against it: at
// +selected-slave, no replica that the sentinel's view shows as connected,
// not SDOWN, with priority ≠ 0, and that was clearly eligible in truth
// (the same calm-window rule as eligibility), may rank strictly before
// the selected one by (priority asc, offset desc, run id asc) as the view
// knows them.
func (c *checker) selection(w *World, s *sentinel, msg string) {
	f := strings.Fields(msg) // slave <ip:port> <ip> <port> @ <master> <ip> <port>
	if len(f) < 4 || f[0] != "slave" {
		return
	}
	port, _ := strconv.Atoi(f[3])
	sel := core.Addr{IP: f[2], Port: port}
	v, _ := view(s)
	var chosen *core.ReplicaView
	for i := range v.Replicas {
		if sameAddr(v.Replicas[i].Addr, sel) {
			chosen = &v.Replicas[i]
		}
	}
	if chosen == nil {
		w.violate("S6", s, "+selected-slave %s is not a replica in the sentinel's view", fmtAddr(sel))
		return
	}
	for i := range v.Replicas {
		rv := &v.Replicas[i]
		if rv == chosen || rv.SDown || rv.Disconnected || rv.Priority == 0 || !ranksBefore(rv, chosen) {
			continue
		}
		id := w.lookup(rv.Addr)
		if id < 0 || id >= len(w.inst) || !w.calm(s, w.inst[id], v.Addr) {
			continue
		}
		w.violate("S6", s, "selected %s (priority %d, offset %d) while %s (priority %d, offset %d) ranks first in its own view",
			fmtAddr(sel), chosen.Priority, chosen.ReplOffset, fmtAddr(rv.Addr), rv.Priority, rv.ReplOffset)
		return
	}
}

// ranksBefore is compareSlavesForPromotion on two views: lower priority,
// then higher offset, then smaller run id (case-insensitive; missing last).
func ranksBefore(a, b *core.ReplicaView) bool {
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	if a.ReplOffset != b.ReplOffset {
		return a.ReplOffset > b.ReplOffset
	}
	ra, rb := strings.ToLower(a.RunID), strings.ToLower(b.RunID)
	switch {
	case ra == "" || rb == "":
		return ra != "" && rb == ""
	}
	return ra < rb
}

// calm reports whether replica r was clearly eligible for sentinel s in
// truth: running, not paused or loading, replicating from master, and
// untouched (crash, restart, pause, role change, partition, reset, stall,
// clock jump) together with s, and s not restarted, for a window long
// enough for s's view of it to be fresh.
func (w *World) calm(s *sentinel, r *instance, master core.Addr) bool {
	now := w.sch.now
	o := w.opt
	win := 2*o.Timing.InfoPeriod + 5*o.Timing.PingPeriod + o.DownAfter
	return r.up && !r.paused && !r.loading(now) && r.isReplicaOf(master) && now-r.lastDisturbed >= win &&
		now-w.netDisturbed[r.id] >= win && now-w.netDisturbed[s.node] >= win && now-s.startedAt >= win
}

// afterStep checks the state of s after a step (S4, S9). The master's
// view is costly to build, so it is only examined after steps that emitted
// an event or a Persist: a change of address or config epoch always comes
// with one (at the latest with the Persist of the next PersistDone step).
func (c *checker) afterStep(w *World, s *sentinel, full bool) {
	ch := &s.chk
	cur := s.core.CurrentEpoch()
	if cur < ch.curEpoch {
		w.violate("S4", s, "current epoch went from %d down to %d", ch.curEpoch, cur)
	}
	ch.curEpoch = cur
	if !full && len(ch.switches) == 0 {
		return
	}
	v, ok := view(s)
	switches := ch.switches
	ch.switches = nil
	if !ok {
		return
	}
	if v.ConfigEpoch < ch.cfgEpoch {
		w.violate("S4", s, "config epoch went from %d down to %d", ch.cfgEpoch, v.ConfigEpoch)
	}
	ch.cfgEpoch = v.ConfigEpoch
	// S9: the chain of +switch-master must lead from the old address (the
	// configured one, or the promoted replica clients were already given
	// during RECONF_SLAVES) to the new one, one event per change.
	at := ch.addr
	for i, sw := range switches {
		if i == 0 && !sameAddr(sw.old, at) && !sameAddr(sw.old, ch.cur) {
			w.violate("S9", s, "+switch-master from %s but the address was %s (clients had %s)", fmtAddr(sw.old), fmtAddr(at), fmtAddr(ch.cur))
		} else if i > 0 && !sameAddr(sw.old, at) {
			w.violate("S9", s, "+switch-master from %s but the previous switch went to %s", fmtAddr(sw.old), fmtAddr(at))
		}
		if sameAddr(sw.old, sw.new) {
			w.violate("S9", s, "+switch-master to the same address %s", fmtAddr(sw.new))
		}
		at = sw.new
		c.switched[v.ConfigEpoch] = true
	}
	if !sameAddr(at, v.Addr) {
		w.violate("S9", s, "address changed from %s to %s with %d +switch-master", fmtAddr(ch.addr), fmtAddr(v.Addr), len(switches))
	}
	if !sameAddr(ch.addr, v.Addr) {
		if v.ConfigEpoch <= ch.addrEpoch {
			w.violate("S4", s, "address changed %s -> %s without a higher config epoch (%d, was %d)",
				fmtAddr(ch.addr), fmtAddr(v.Addr), v.ConfigEpoch, ch.addrEpoch)
		}
		if prev, ok := c.epochAddr[v.ConfigEpoch]; ok && !sameAddr(prev, v.Addr) {
			w.violate("S4", s, "switched to %s at config epoch %d, which designates %s at another sentinel",
				fmtAddr(v.Addr), v.ConfigEpoch, fmtAddr(prev))
		}
		c.epochAddr[v.ConfigEpoch] = v.Addr
		ch.addr, ch.addrEpoch = v.Addr, v.ConfigEpoch
		// sentinelResetMaster clears failover_start_time on an address
		// change ("we can failover again ASAP"): pacing starts afresh.
		ch.hasAttempt, ch.hasVoteOther = false, false
	}
	ch.cur = v.CurrentAddr
	ch.started = true
}

func sameAddr(a, b core.Addr) bool {
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
