package sim

import (
	"strconv"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// respond checks a reply leaving s: a vote must be on disk first (S1, S8).
func (c *checker) respond(w *World, s *sentinel, e core.Respond) {
	r, ok := s.reqs[e.ID]
	if !ok || len(r.args) != 6 || !strings.EqualFold(r.args[1], "is-master-down-by-addr") {
		return
	}
	v := e.Value
	if v.Kind != core.KindArray || len(v.Elems) != 3 || v.Elems[1].Kind != core.KindBulk || v.Elems[2].Kind != core.KindInt {
		if v.Kind != core.KindError {
			w.violate("S1", s, "malformed is-master-down-by-addr reply %+v", v)
		}
		return
	}
	tilt := s.truth.reqTilt[e.ID]
	delete(s.truth.reqTilt, e.ID)
	if v.Elems[0].Kind == core.KindInt && v.Elems[0].Int == 1 && tilt {
		w.violate("T1", s, "is-master-down-by-addr answered 1 in TILT")
	}
	// D3 (§13: "Reply: `:1` if (not in TILT and master known and SDOWN)
	// else `:0`"): a "down" answer needs our own +sdown of that address.
	sd, known := s.truth.reqSDown[e.ID]
	delete(s.truth.reqSDown, e.ID)
	if v.Elems[0].Kind == core.KindInt && v.Elems[0].Int == 1 && known && !sd {
		w.violate("D3", s, "is-master-down-by-addr about %s:%s answered 1 without its +sdown", r.args[2], r.args[3])
	}
	leader, epoch := v.Elems[1].Str, uint64(v.Elems[2].Int)
	if leader == "*" {
		return
	}
	port, _ := strconv.Atoi(r.args[3])
	name := w.masterAt(core.Addr{IP: r.args[2], Port: port})
	if name == "" {
		w.violate("S1", s, "vote for %s about %s:%s, which is no simulated instance", short(leader), r.args[2], r.args[3])
		return
	}
	m, _ := diskMaster(s.disk, name)
	if m.LeaderEpoch < epoch {
		w.violate("S1", s, "vote for %s in epoch %d sent before it was persisted (leader-epoch on disk %d)", short(leader), epoch, m.LeaderEpoch)
	}
	if s.disk.CurrentEpoch < epoch {
		w.violate("S8", s, "reply reveals epoch %d, current-epoch on disk is %d", epoch, s.disk.CurrentEpoch)
	}
	c.recordVote(w, s, name, epoch, leader, true)
}

// sendCheck checks commands leaving s: epochs they reveal must be on disk
// (S8); a promotion must be by the elected leader (S3), outside TILT (S5),
// of an eligible, first-ranked replica (S6).
func (c *checker) sendCheck(w *World, s *sentinel, e core.Send) {
	a := e.Args
	if len(a) == 0 {
		return
	}
	cmd := w.unrename(strings.ToUpper(a[0]))
	switch {
	case cmd == "PUBLISH" && len(a) == 3 && a[1] == core.HelloChannel:
		f := strings.Split(a[2], ",")
		if len(f) != 8 {
			w.violate("S8", s, "malformed hello %q", a[2])
			return
		}
		cur, _ := strconv.ParseUint(f[3], 10, 64)
		cfg, _ := strconv.ParseUint(f[7], 10, 64)
		if cur > s.disk.CurrentEpoch {
			w.violate("S8", s, "hello reveals current epoch %d, disk has %d", cur, s.disk.CurrentEpoch)
		}
		if m, ok := diskMaster(s.disk, f[4]); ok && cfg > m.ConfigEpoch {
			w.violate("S8", s, "hello reveals config epoch %d of %s, disk has %d", cfg, f[4], m.ConfigEpoch)
		}
	case cmd == "SENTINEL" && len(a) == 6 && strings.EqualFold(a[1], "is-master-down-by-addr"):
		ep, _ := strconv.ParseUint(a[4], 10, 64)
		if ep > s.disk.CurrentEpoch {
			w.violate("S8", s, "is-master-down-by-addr reveals epoch %d, disk has %d", ep, s.disk.CurrentEpoch)
		}
	case (cmd == "SLAVEOF" || cmd == "REPLICAOF") && len(a) == 3 && strings.EqualFold(a[1], "NO") && strings.EqualFold(a[2], "ONE"):
		c.promotion(w, s, e)
	case cmd == "SLAVEOF" || cmd == "REPLICAOF":
		if cn := s.conns[e.Conn]; cn != nil && cn.target < len(w.inst) && len(a) == 3 {
			c.demotion(w, s, w.inst[cn.target], a[1], a[2])
		}
	}
}

// promotion checks a SLAVEOF NO ONE sent by s.
func (c *checker) promotion(w *World, s *sentinel, e core.Send) {
	cn := s.conns[e.Conn]
	if cn == nil || cn.target >= len(w.inst) {
		return
	}
	target := w.inst[cn.target]
	name := w.masters[target.group]
	v, _ := view(s, name)
	ep := v.FailoverEpoch
	if s.core.InTilt() {
		w.violate("S5", s, "SLAVEOF NO ONE to %s in TILT", target.addr.IP)
	}
	if ep > s.disk.CurrentEpoch {
		w.violate("S8", s, "promotion in epoch %d, current-epoch on disk is %d", ep, s.disk.CurrentEpoch)
	}
	k := mepoch{name, ep}
	if !v.ForcedFailover {
		if l, ok := c.leaders[k]; !ok || l != s.id {
			w.violate("S3", s, "SLAVEOF NO ONE to %s in epoch %d without being its elected leader", target.addr.IP, ep)
		}
	}
	p := promo{s.id, target.addr.IP}
	if prev, ok := c.promos[k]; ok && prev != p {
		w.violate("S3", s, "second promotion in epoch %d: %s by sentinel %d, then %s by sentinel %d", ep, prev.target, prev.sentinel, p.target, p.sentinel)
	}
	c.promos[k] = p
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
		// After a backward clock jump of J the core's INFO ages are short
		// by J: an INFO from before the operator's CONFIG SET can still
		// look valid (seed 825951: -3914 ms, priority 0 set 2523 ms before
		// the selection on the INFO before it, 496 ms old by its clock).
		if target.role == roleSlave && w.sch.now-target.lastDisturbed >= infoWin && w.sch.now >= s.backShadow+infoWin {
			w.violate("S6", s, "promoted %s whose slave-priority is 0 (a replica for %dms)", target.addr.IP, w.sch.now-target.lastDisturbed)
		}
		return
	}
	// The core ranks on the priority of its last INFO: after an operator's
	// CONFIG SET within the INFO window, the old value may be the one it
	// saw (seed 100012: 1 → 100 at 4164, selected at 4478 as priority 1).
	tp := target.priority
	if w.sch.now-target.priorityAt < infoWin && target.prevPriority != 0 && target.prevPriority < tp {
		tp = target.prevPriority
	}
	for _, r := range w.inst {
		if r.group != target.group || r == target || r.priority == 0 || r.priority >= tp || !w.calm(s, r, v.Addr) {
			continue
		}
		known := false
		for _, rv := range v.Replicas {
			if sameAddr(rv.Addr, r.addr) {
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
// knows them. A replica whose last INFO the sentinel processed is older
// than §15's validity (5×ping-period while the master is SDOWN, else
// 3×info-period; E1) is not eligible and cannot rank first (seed 804588:
// info-period 2000, the INFO asked at ODOWN still in flight).
func (c *checker) selection(w *World, s *sentinel, e core.Emit) {
	sub := e.Subject
	if sub == nil || sub.Role != core.RoleReplica {
		return
	}
	sel := core.Addr{IP: sub.IP, Port: sub.Port}
	v, _ := view(s, sub.Master)
	now := s.local(w.sch.now)
	validity := 3 * c.opt.Timing.InfoPeriod
	if s.chk.mc(sub.Master).sdown {
		validity = 5 * c.opt.Timing.PingPeriod
	}
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
		if in := s.truth.info[w.dialAddr(rv.Addr)]; in == nil || now-in.at > validity {
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
// clock jump, INFO denied or allowed again) together with s, and s not restarted, for a window long
// enough for s's view of it to be fresh.
func (w *World) calm(s *sentinel, r *instance, master core.Addr) bool {
	now := w.sch.now
	o := w.opt
	win := 2*o.Timing.InfoPeriod + 5*o.Timing.PingPeriod + o.DownAfter
	return r.up && !r.paused && !r.loading(now) && r.isReplicaOf(master) && now-r.lastDisturbed >= win &&
		!r.infoDenied && now-r.infoDisturbed >= win &&
		now-w.netDisturbed[r.id] >= win && now-w.netDisturbed[s.node] >= win && now-s.startedAt >= win &&
		now >= s.backShadow+win
}

// votePublished is S8 for a +vote-for-leader event leaving s ("<runid>
// <epoch>"; it does not name the master): the core publishes it only once
// the vote is on disk (issue 15 item 6), so the last completed snapshot
// must hold the current epoch and, for some master, a leader-epoch at
// least that high — what keeps a restarted sentinel from voting again in
// the epoch. The leader's name itself may be gone: an address change
// (+switch-master) in the same step clears it before the Persist, and
// keeps the epoch, as sentinelResetMaster does (seed 6).
func (c *checker) votePublished(w *World, s *sentinel, msg string) {
	f := strings.Fields(msg)
	if len(f) != 2 {
		w.violate("S8", s, "malformed +vote-for-leader %q", msg)
		return
	}
	epoch, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		w.violate("S8", s, "malformed +vote-for-leader %q", msg)
		return
	}
	// S1: a sentinel votes once per master and epoch, so it announces at
	// most one +vote-for-leader per monitored master in an epoch (a vote
	// changed, or repeated, within the epoch shows here even when the
	// views and replies cannot tell it: the same leader asked again).
	ch := &s.chk
	if ch.votes == nil {
		ch.votes = map[uint64]int{}
	}
	ch.votes[epoch]++
	if n := ch.votes[epoch]; n > len(w.masters) {
		w.violate("S1", s, "%d +vote-for-leader events in epoch %d, %d masters monitored", n, epoch, len(w.masters))
	}
	if s.disk.CurrentEpoch < epoch {
		w.violate("S8", s, "+vote-for-leader reveals epoch %d, current-epoch on disk is %d", epoch, s.disk.CurrentEpoch)
		return
	}
	for _, m := range s.disk.Masters {
		if m.LeaderEpoch >= epoch {
			return
		}
	}
	w.violate("S8", s, "+vote-for-leader %s %d published before the vote was persisted", short(f[0]), epoch)
}
