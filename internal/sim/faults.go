package sim

// This file injects faults during the fault phase and heals everything at
// its end.

// scheduleFaults arms the first fault of the fault phase.
func (w *World) scheduleFaults() {
	w.sch.at(w.opt.Warmup+w.rng.Int64N(w.opt.FaultGap), w.nextFault)
}

// nextFault injects one fault and arms the next (exponential gaps).
func (w *World) nextFault() {
	if w.sch.now >= w.opt.healStart() {
		return
	}
	w.injectFault()
	gap := int64(w.rng.ExpFloat64()*float64(w.opt.FaultGap)) + 1
	w.sch.after(gap, w.nextFault)
}

// pickFault draws a fault kind by weight; -1 when all weights are 0.
func (w *World) pickFault() int {
	f := w.opt.Faults
	ws := []int{f.InstanceCrash, f.InstancePause, f.SentinelCrash, f.Partition, f.AsymPartition,
		f.ConnReset, f.ClockStall, f.ClockJump, f.PersistFailure, f.RogueReplicaof}
	total := 0
	for _, x := range ws {
		total += x
	}
	if total == 0 {
		return -1
	}
	r := w.rng.IntN(total)
	for i, x := range ws {
		if r < x {
			return i
		}
		r -= x
	}
	return -1
}

// injectFault applies one random fault.
func (w *World) injectFault() {
	o := w.opt
	switch w.pickFault() {
	case 0:
		in := w.faultTarget()
		if in.up {
			w.crashInstance(in)
			gen := in.gen
			w.sch.after(200+w.rng.Int64N(2*o.DownAfter+o.FailoverTimeout), func() {
				if in.gen == gen {
					w.restartInstance(in)
				}
			})
		}
	case 1:
		in := w.faultTarget()
		if in.up && !in.paused {
			w.pauseInstance(in)
			gen := in.gen
			w.sch.after(100+w.rng.Int64N(3*o.DownAfter), func() {
				if in.gen == gen {
					w.resumeInstance(in)
				}
			})
		}
	case 2:
		s := w.sent[w.rng.IntN(len(w.sent))]
		if s.up {
			w.crashSentinel(s)
			w.scheduleRestart(s)
		}
	case 3:
		w.partition()
	case 4:
		n := len(w.blocked)
		a, b := w.rng.IntN(n), w.rng.IntN(n)
		if a == b {
			return
		}
		d := 200 + w.rng.Int64N(3*o.DownAfter)
		if w.rng.IntN(2) == 0 {
			w.tracef("fault: one-way loss %s -> %s for %dms", w.nodeName(a), w.nodeName(b), d)
			w.cut(a, b, d)
		} else {
			w.blockDials(a, b, d, w.rng.IntN(2) == 0)
		}
	case 5:
		if len(w.conns) > 0 {
			c := w.conns[w.rng.IntN(len(w.conns))]
			w.tracef("fault: reset %s conn of s%d to %s", c.typ, c.owner.id, w.nodeName(c.target))
			w.resetConn(c)
		}
	case 6:
		s := w.sent[w.rng.IntN(len(w.sent))]
		if s.up && s.stallTo == 0 {
			d := o.Timing.TiltTrigger + 1 + w.rng.Int64N(o.Timing.TiltTrigger)
			w.tracef("fault: sentinel %d stalls for %dms", s.id, d)
			s.stallTo = w.sch.now + d
			w.netDisturbed[s.node] = w.sch.now + d
			inc := s.inc
			w.sch.after(d, func() { w.unstall(s, inc) })
		}
	case 7:
		s := w.sent[w.rng.IntN(len(w.sent))]
		d := o.Timing.TiltTrigger + 1 + w.rng.Int64N(2000)
		if w.rng.IntN(4) == 0 {
			d = -d
		}
		w.tracef("fault: sentinel %d clock jumps %+dms", s.id, d)
		s.clockOff += d
		s.lastJump = w.sch.now
		w.netDisturbed[s.node] = w.sch.now
	case 8:
		s := w.sent[w.rng.IntN(len(w.sent))]
		d := 200 + w.rng.Int64N(2*o.DownAfter)
		w.tracef("fault: sentinel %d config writes fail for %dms", s.id, d)
		s.diskFailTo = w.sch.now + d
	case 9:
		in := w.inst[w.rng.IntN(len(w.inst))]
		if !in.up || in.paused || in.loading(w.sch.now) {
			return
		}
		grp := w.group(in.group)
		to := grp[w.rng.IntN(len(grp))]
		if to == in {
			w.tracef("fault: operator runs REPLICAOF NO ONE on %s", in.addr.IP)
			w.slaveOf(in, "NO", "ONE")
		} else {
			w.tracef("fault: operator runs REPLICAOF %s on %s", to.addr.IP, in.addr.IP)
			w.slaveOf(in, to.addr.IP, "6379")
		}
	}
}

// faultTarget picks an instance, the current master of a random group
// half of the time.
func (w *World) faultTarget() *instance {
	if w.rng.IntN(2) == 0 {
		if m := w.trueMaster(w.rng.IntN(len(w.masters))); m != nil {
			return m
		}
	}
	return w.inst[w.rng.IntN(len(w.inst))]
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
func (w *World) partition() {
	n := len(w.blocked)
	size := 1 + w.rng.IntN(n/2)
	perm := w.rng.Perm(n)
	in := make([]bool, n)
	names := ""
	for _, x := range perm[:size] {
		in[x] = true
		names += " " + w.nodeName(x)
	}
	d := 200 + w.rng.Int64N(3*w.opt.DownAfter)
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
