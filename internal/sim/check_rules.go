package sim

import (
	"strconv"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// Direct rule checks (docs/sim.md "Rules"): each one judges an event or a
// command of the core against the simulator's record of what the network
// delivered to that sentinel (truth.go) and its local clock, not against
// the core's own state.
//
//	T1 TILT          D1 SDOWN truth      D2 ODOWN once quorum is reached
//	E1 §15 at selection   E2 promotion seen   E3 demotion by a newer config epoch
//	R1 parallel-syncs progress   X1–X4 scripts

// actsInTilt are the events of the acting half, which TILT suspends.
var actsInTilt = map[string]bool{
	"+sdown": true, "-sdown": true, "+odown": true, "-odown": true,
	"+try-failover": true, "+elected-leader": true, "+selected-slave": true,
	"+promoted-slave": true, "+convert-to-slave": true, "+fix-slave-config": true,
	"+slave-reconf-sent": true, "+failover-end": true, "+failover-state-wait-promotion": true,
}

// beforeRules is called before s processes ev at local time now.
func (c *checker) beforeRules(w *World, s *sentinel, ev core.Event, now int64) {
	t := &s.truth
	t.tilt.trigger, t.tilt.entered = false, false
	t.prevTickV = t.tickV
	switch e := ev.(type) {
	case core.Tick:
		t.tickV = w.sch.now
		d := now - t.prevTick
		t.prevTick = now
		if d < 0 || d > c.opt.Timing.TiltTrigger {
			t.tilt.trigger, t.tilt.on, t.tilt.until = true, true, now+c.opt.Timing.TiltPeriod
			w.tracef("s%d: tick delta %dms triggers TILT until %d", s.id, d, t.tilt.until)
		}
	case core.Reply:
		if !s.dead[e.Conn] { // the core ignores replies on connections it closed
			s.recordReply(e, now, w.sch.now, w.steps)
		}
	case core.Request:
		t.reqTilt[e.ID] = t.inTilt(now)
		if len(e.Args) == 6 && strings.EqualFold(e.Args[1], "is-master-down-by-addr") {
			port, _ := strconv.Atoi(e.Args[3])
			asked := core.Addr{IP: e.Args[2], Port: port}
			if name := w.masterAt(asked); name != "" {
				x := s.chk.mc(name)
				t.reqSDown[e.ID] = x.sdown && sameAddr(x.addr, asked)
			}
		}
		if len(e.Args) == 3 && strings.EqualFold(e.Args[0], "PUBLISH") && e.Args[1] == core.HelloChannel {
			t.heardHello(e.Args[2])
		}
	case core.Message:
		if e.Channel == core.HelloChannel {
			t.heardHello(e.Payload)
		}
	case core.ScriptDone:
		if sr := t.scripts[e.ID]; sr != nil && sr.running {
			sr.running, sr.doneAt = false, now
			sr.retryable = e.StartErr == nil && (e.Signal != 0 || e.ExitCode == 1)
			t.running--
		}
	}
	t.stepTilt = t.inTilt(now) // for events of this step released late (late.go)
}

// inTilt reports whether the TILT period of s is still running in truth.
func (t *truth) inTilt(now int64) bool { return t.tilt.on && now < t.tilt.until }

// afterRules is called at the end of a step of s (still running).
func (c *checker) afterRules(w *World, s *sentinel, ev core.Event, now int64) {
	t := &s.truth
	o := c.opt
	if t.tilt.trigger && !t.tilt.entered {
		w.violate("T1", s, "tick delta above tilt-trigger %dms (or negative) did not enter TILT", o.Timing.TiltTrigger)
	}
	if _, tick := ev.(core.Tick); !tick {
		return
	}
	if t.tilt.on && now >= t.tilt.until {
		w.violate("T1", s, "still in TILT %dms after the last trigger (tilt-period %d)", now-t.tilt.until+o.Timing.TiltPeriod, o.Timing.TiltPeriod)
		t.tilt.on = false
	}
	tilt := t.inTilt(now) || s.core.InTilt()
	for _, name := range w.masters {
		c.odownDue(w, s, name, now, tilt)
		c.reconfDue(w, s, name, tilt)
	}
	c.scriptsDue(w, s, now)
}

// ruleEmit checks one event of s against the rules (before it is executed).
// now is the local time it happened; late lists the steps it may come from
// if it was held (late.go), nil otherwise.
func (c *checker) ruleEmit(w *World, s *sentinel, e core.Emit, now int64, late []stepRec) {
	t := &s.truth
	o := c.opt
	vnow, step := w.sch.now, w.steps
	if len(late) > 0 {
		// The lenient candidates for D1: the latest step's virtual time
		// (the longest silence), the earliest step's number (a reply
		// processed after it in the same millisecond may postdate the event).
		vnow, step = late[0].virtual, late[len(late)-1].step
	}
	switch e.Type {
	case "+tilt":
		t.tilt.entered = true
		if !t.tilt.trigger {
			w.violate("T1", s, "+tilt without a tick delta above tilt-trigger")
		}
	case "-tilt":
		if t.tilt.on && now < t.tilt.until {
			w.violate("T1", s, "-tilt %dms after the last trigger, tilt-period is %d", now-t.tilt.until+o.Timing.TiltPeriod, o.Timing.TiltPeriod)
		}
		t.tilt.on = false
	}
	inTilt := t.inTilt(now)
	if late != nil {
		inTilt = allSteps(late, func(r stepRec) bool { return r.truthTilt })
	}
	if actsInTilt[e.Type] && inTilt {
		w.violate("T1", s, "%s in TILT (%dms after the last trigger, tilt-period %d)", e.Type, now-t.tilt.until+o.Timing.TiltPeriod, o.Timing.TiltPeriod)
	}
	typ, a, ok := w.eventAddr(e)
	if !ok {
		return
	}
	name := eventMaster(e)
	x := s.chk.mc(name)
	switch e.Type {
	case "+sdown":
		c.sdownTruth(w, s, typ, a, vnow, step)
		// A +sdown held behind a vote (late.go) may be released after a
		// -sdown of the same instance, or after a +switch-master that
		// re-created the replicas, from later steps (seeds 801153,
		// 816410): it no longer describes the core's state.
		off := t.sdownOff[typ+" "+a]
		if typ == "slave" && t.slaveOff > off {
			off = t.slaveOff
		}
		if len(late) == 0 || off <= late[0].step {
			t.sdown[typ+" "+a] = true
		}
		if typ == "master" {
			x.sdown, x.sdownSince = true, now
		}
	case "-sdown":
		delete(t.sdown, typ+" "+a)
		t.sdownOff[typ+" "+a] = step
		if typ == "master" {
			x.sdown = false
		}
	case "+selected-slave":
		c.selectedTruth(w, s, name, a, now)
	case "+promoted-slave":
		sent, ok := t.noOne[a]
		in := t.info[a]
		if !ok || in == nil || in.masterAt < sent {
			w.violate("E2", s, "+promoted-slave %s before an INFO processed after SLAVEOF NO ONE reported role:master", a)
		}
		if v, ok := view(s, name); ok {
			if id := w.lookupKey(a); id >= 0 && id < len(w.inst) {
				c.designate(name, v.FailoverEpoch, w.inst[id].addr)
			}
		}
	case "+try-failover", "+elected-leader":
		t.reconf[name] = map[string]bool{}
	case "+slave-reconf-done", "-slave-reconf-sent-timeout":
		if t.reconf[name] == nil {
			t.reconf[name] = map[string]bool{}
		}
		t.reconf[name][a] = true
	}
}

// eventAddr is the instance type and address of an event's "%@" prefix.
func (w *World) eventAddr(e core.Emit) (typ, addr string, ok bool) {
	sub := e.Subject
	if sub == nil {
		return "", "", false
	}
	return sub.Role.String(), w.dialAddr(core.Addr{Host: sub.IP, IP: ipOnly(sub.IP), Port: sub.Port}), true
}

// ipOnly returns h if it is an IPv4 literal of the simulated network.
func ipOnly(h string) string {
	if strings.Count(h, ".") == 3 && strings.Trim(h, "0123456789.") == "" {
		return h
	}
	return ""
}

// sdownTruth is D1 (reference §12: "SDOWN if elapsed > down-after"): a
// +sdown of the instance at a needs down-after without a valid PING reply
// on any of s's links to it (a master that reports role:slave, the other
// way into SDOWN, is exempt). step is the World's step number the event
// happened in (for a late event, the earliest step it may come from).
func (c *checker) sdownTruth(w *World, s *sentinel, typ, a string, now int64, step int) {
	t := &s.truth
	if in := t.info[a]; typ == "master" && in != nil && in.role == roleSlave {
		return
	}
	bound, bstep, ok := t.lastAvailBound(a)
	if !ok {
		bound = s.startedAt
	}
	if s.lastJump >= bound && s.lastJump > 0 {
		return // silence measured across a clock jump (below tilt-trigger if several add up)
	}
	if bound > now || bstep > step {
		// A late event (late.go): the reply came after it (possibly in a
		// later step of the same millisecond), the one before is forgotten.
		return
	}
	if now-bound <= c.opt.DownAfter {
		w.violate("D1", s, "+sdown %s %s only %dms after its last valid reply or creation (down-after %d)", typ, a, now-bound, c.opt.DownAfter)
	}
}

// odownDue is D2 (reference §12: "ODOWN when votes ≥ quorum"): a master
// that s has declared SDOWN, out of TILT, for which s processed down
// answers from quorum−1 peers (about its current address, fresher than
// 4×ask-period, under the 5×ask-period expiry, on a connection still open:
// a peer object replaced since, e.g. by +sentinel-invalid-addr, took its
// answer with it) must be ODOWN by the next tick.
func (c *checker) odownDue(w *World, s *sentinel, name string, now int64, tilt bool) {
	t := &s.truth
	x := s.chk.mc(name)
	if tilt || !x.sdown || x.odown || w.sch.now-s.lastJump < 2*c.opt.Timing.TiltPeriod {
		t.odownLag[name] = false
		return
	}
	n := 1
	for k, d := range c.heard {
		if k.asker == s.id && k.master == name && d.down && now-d.at <= 4*c.opt.Timing.AskPeriod && d.addr == w.dialAddr(x.addr) &&
			w.sent[k.responder].ident() == d.ident && !s.dead[d.conn] {
			n++
		}
	}
	if n < c.opt.Quorum {
		t.odownLag[name] = false
		return
	}
	if t.odownLag[name] {
		w.violate("D2", s, "%s SDOWN with %d fresh down reports (itself included, quorum %d) for two ticks without +odown", name, n, c.opt.Quorum)
	}
	t.odownLag[name] = true
}

// selectedTruth is E1 (reference §15, candidates): the replica selected
// must, by what s really received, have answered a PING within
// 5×ping-period, sent an INFO within 5×ping-period (master SDOWN) or
// 3×info-period, shown slave_priority ≠ 0 in its last replica INFO (or
// report role:master, core decision 13), have a master link down for at
// most 10×down-after (+ the master's SDOWN time), and not be SDOWN.
func (c *checker) selectedTruth(w *World, s *sentinel, name, a string, now int64) {
	t := &s.truth
	o := c.opt
	x := s.chk.mc(name)
	in := t.info[a]
	if in == nil {
		w.violate("E1", s, "selected %s without any INFO from it", a)
		return
	}
	validity := 3 * o.Timing.InfoPeriod
	if x.sdown {
		validity = 5 * o.Timing.PingPeriod
	}
	if now-in.at > validity {
		w.violate("E1", s, "selected %s on an INFO %dms old (limit %d)", a, now-in.at, validity)
	}
	if lv, ok := t.lastValid(a); !ok || now-lv > 5*o.Timing.PingPeriod {
		w.violate("E1", s, "selected %s whose last valid PING reply is %dms old (limit 5×ping-period %d)", a, now-lv, 5*o.Timing.PingPeriod)
	}
	switch {
	case in.prioSeen && in.prio == 0:
		w.violate("E1", s, "selected %s whose last replica INFO showed slave_priority 0", a)
	case !in.prioSeen && in.role != roleMaster:
		w.violate("E1", s, "selected %s whose slave_priority it never read", a)
	}
	lim := 10 * o.DownAfter
	if x.sdown {
		lim += now - x.sdownSince
	}
	if in.linkDown > lim {
		w.violate("E1", s, "selected %s with its master link down %dms (limit %d)", a, in.linkDown, lim)
	}
	if t.sdown["slave "+a] {
		w.violate("E1", s, "selected %s, which it holds SDOWN", a)
	}
}

// designate records that config epoch e of master name designates a.
func (c *checker) designate(name string, e uint64, a core.Addr) {
	k := mepoch{name, e}
	if _, ok := c.epochAddr[k]; !ok {
		c.epochAddr[k] = a
	}
}

// heardHello records the config a hello delivered to the sentinel
// announces (E3).
func (t *truth) heardHello(payload string) {
	f := strings.Split(payload, ",")
	if len(f) != 8 {
		return
	}
	e, err := strconv.ParseUint(f[7], 10, 64)
	if err != nil {
		return
	}
	k := f[4] + " " + textKey(f[5], f[6])
	if old, ok := t.told[k]; !ok || e > old {
		t.told[k] = e
	}
}

// demotion is E3 (reference §11: "if hello master-config-epoch > ours →
// adopt it"; §16: +convert-to-slave and +fix-slave-config act on our
// master): a sentinel sends SLAVEOF host port to an instance only if no
// hello it processed designated that instance as the master at a config
// epoch ≥ its own (it would have had to adopt that config first). A
// sentinel that was never told (a leader stalled right after the
// promotion) may still demote a freshly promoted replica: sentinel.c's
// 4×publish-period wait is all that protects it (docs/sim.md).
func (c *checker) demotion(w *World, s *sentinel, target *instance, host, port string) {
	name := w.masters[target.group]
	v, ok := view(s, name)
	if !ok {
		return
	}
	eX, found := s.truth.told[name+" "+w.dialAddr(target.addr)]
	if found && eX >= v.ConfigEpoch && eX > 0 {
		w.violate("E3", s, "SLAVEOF %s %s sent to %s, announced to it as the master at config epoch %d, by a sentinel at config epoch %d",
			host, port, target.addr.IP, eX, v.ConfigEpoch)
	}
}

// reconfDue is R1 (reference §14 RECONF_SLAVES: "keep ≤ parallel-syncs
// replicas in RECONF_SENT/INPROG"): a leader reconfiguring replicas with
// fewer than parallel-syncs in progress and a connected replica still to
// do must send it SLAVEOF by the next tick.
func (c *checker) reconfDue(w *World, s *sentinel, name string, tilt bool) {
	t := &s.truth
	v, ok := view(s, name)
	if !ok || tilt || v.FailoverState != core.FailoverReconfSlaves {
		t.reconfLag[name] = false
		return
	}
	x := s.chk.mc(name)
	todo := ""
	for _, rv := range v.Replicas {
		a := w.dialAddr(rv.Addr)
		if rv.Disconnected || sameAddr(rv.Addr, v.Promoted) || t.reconf[name][a] || x.reconf[a] || !w.cmdConnUp(s, a) {
			continue
		}
		todo = a
	}
	if todo == "" || len(x.reconf) >= c.opt.ParallelSyncs {
		t.reconfLag[name] = false
		return
	}
	if t.reconfLag[name] {
		w.violate("R1", s, "%d of parallel-syncs %d replicas in reconfiguration for two ticks while %s waits", len(x.reconf), c.opt.ParallelSyncs, todo)
	}
	t.reconfLag[name] = true
}

// cmdConnUp reports whether s has an established command connection to a.
func (w *World) cmdConnUp(s *sentinel, a string) bool {
	for _, cn := range s.conns {
		if cn.typ == core.ConnCmd && cn.established && !cn.closed && cn.target < len(w.inst) && w.dialAddr(w.inst[cn.target].addr) == a {
			return true
		}
	}
	return false
}

// scriptRun checks a RunScript of s (X1 running limit, X2 retries).
func (c *checker) scriptStart(w *World, s *sentinel, e core.RunScript, now int64) {
	t := &s.truth
	t.running++
	if t.running > core.ScriptMaxRunning {
		w.violate("X1", s, "%d scripts running at once (limit %d)", t.running, core.ScriptMaxRunning)
	}
	sr := t.scripts[e.ID]
	if sr == nil {
		sr = &scriptRun{}
		t.scripts[e.ID] = sr
	}
	if sr.running {
		w.violate("X2", s, "script %d started while it runs", e.ID)
	}
	if sr.runs > 0 {
		if !sr.retryable {
			w.violate("X2", s, "script %d run again after an exit that is not retried", e.ID)
		}
		d := c.opt.Timing.ScriptRetryDelay
		for k := 1; k < sr.runs; k++ {
			d *= 2
		}
		if now-sr.doneAt < d {
			w.violate("X2", s, "script %d retried %dms after its run %d, retry delay is %d", e.ID, now-sr.doneAt, sr.runs, d)
		}
	}
	sr.runs++
	if sr.runs > core.ScriptMaxRetry {
		w.violate("X2", s, "script %d run %d times (limit %d)", e.ID, sr.runs, core.ScriptMaxRetry)
	}
	sr.running, sr.startedAt, sr.killed = true, now, false
}

// scriptKill checks a KillScript of s (X3: only after script-max-runtime).
func (c *checker) scriptKill(w *World, s *sentinel, e core.KillScript, now int64) {
	sr := s.truth.scripts[e.ID]
	if sr == nil || !sr.running {
		w.violate("X3", s, "KillScript for script %d, which is not running", e.ID)
		return
	}
	if now-sr.startedAt <= c.opt.Timing.ScriptMaxRuntime {
		w.violate("X3", s, "script %d killed after %dms, script-max-runtime is %d", e.ID, now-sr.startedAt, c.opt.Timing.ScriptMaxRuntime)
	}
	sr.killed = true
}

// scriptsDue is X3's other half (a script running past script-max-runtime
// is killed on that tick) and X4 (queue ≤ 256).
func (c *checker) scriptsDue(w *World, s *sentinel, now int64) {
	if c.opt.Scripts == ScriptsNone {
		return
	}
	for id, sr := range s.truth.scripts {
		if sr.running && !sr.killed && now-sr.startedAt > c.opt.Timing.ScriptMaxRuntime {
			w.violate("X3", s, "script %d running %dms without a kill, script-max-runtime is %d", id, now-sr.startedAt, c.opt.Timing.ScriptMaxRuntime)
			sr.killed = true
		}
	}
	info := s.core.InfoSection(now)
	if i := strings.Index(info, "sentinel_scripts_queue_length:"); i >= 0 {
		rest := info[i+len("sentinel_scripts_queue_length:"):]
		if j := strings.Index(rest, "\r"); j >= 0 {
			if n, err := strconv.Atoi(rest[:j]); err == nil && n > core.ScriptMaxQueue {
				w.violate("X4", s, "script queue holds %d jobs (limit %d)", n, core.ScriptMaxQueue)
			}
		}
	}
}
