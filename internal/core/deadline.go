package core

// maxTickGap is the longest the runtime may wait between Ticks.
const maxTickGap Millis = 100

// nextDeadline returns the earliest instant at which a timer expires:
// an instance's last valid reply becoming down-after old (PING pending or
// link down), a fast PING becoming due (down-after below 10×ping-period),
// a fast re-ask of a peer about an SDOWN master, the staggered start of a
// failover, a failover timeout. It is a hint; it never returns later than
// now+100 ms.
//
// Each group's earliest candidate is kept in a heap (schedule.go) and
// recomputed only for groups whose state changed since, or whose
// candidate has passed; so the answer costs what changed, not what is
// monitored.
func (s *Sentinel) nextDeadline(now Millis) Millis {
	in := now + timeBase
	sc := &s.sched
	sc.setup()
	s.noteGlobal()
	if sc.dlAll || in < sc.lastDL {
		sorted := s.sortedMasters()
		for _, m := range sorted {
			m.m.sched.dl, m.m.sched.dlFrom, m.m.sched.dlStale = s.groupDeadline(m, in), in, false
		}
		sc.dl.init(sorted)
		sc.stale = sc.stale[:0]
		sc.dlAll = false
	} else {
		for k, m := range sc.stale {
			sc.stale[k] = nil
			if m.released || !m.m.sched.dlStale {
				continue
			}
			m.m.sched.dl, m.m.sched.dlFrom, m.m.sched.dlStale = s.groupDeadline(m, in), in, false
			sc.dl.fix(m)
		}
		sc.stale = sc.stale[:0]
		for sc.dl.len() > 0 && sc.dl.top().m.sched.dl <= in {
			m := sc.dl.top()
			m.m.sched.dl, m.m.sched.dlFrom = s.groupDeadline(m, in), in
			sc.dl.fix(m)
		}
	}
	sc.lastDL = in
	best := in + maxTickGap
	if sc.dl.len() > 0 && sc.dl.top().m.sched.dl < best {
		best = sc.dl.top().m.sched.dl
	}
	if schedCheckDeadline != nil {
		schedCheckDeadline(s, now, best-timeBase)
	}
	return best - timeBase
}

// deadlineMin collects the smallest candidate after a given instant.
type deadlineMin struct {
	after, best Millis
}

func (d *deadlineMin) consider(t Millis) {
	if t > d.after && t < d.best {
		d.best = t
	}
}

// groupDeadline returns the earliest deadline candidate of m's group
// strictly after in (noDeadline if none).
func (s *Sentinel) groupDeadline(m *instance, in Millis) Millis {
	d := deadlineMin{after: in, best: noDeadline}
	s.silentDeadlines(&d, m)
	for _, r := range m.m.replicas {
		s.silentDeadlines(&d, r)
		if r.convertAt != 0 && !r.infoPending && r.link.ccState == connUp {
			d.consider(r.convertAt) // the INFO of a pending conversion (convert.go)
		}
	}
	for _, si := range m.m.sentinels {
		s.silentDeadlines(&d, si)
	}
	if m.flags&fSDown != 0 && m.flags&fODown == 0 && !s.tilt {
		for _, si := range m.m.sentinels {
			if !si.askPending && !si.link.disconnected() {
				d.consider(si.lastMDReplyTime + s.askPeriodFor(m, si))
			}
		}
	} else if m.m.failoverState == FailoverWaitStart && !s.tilt && (m.flags&fSDown != 0 || m.m.newer.coordinated) {
		for _, si := range m.m.sentinels {
			if !si.askPending && !si.link.disconnected() && s.electionReask(m, si) {
				d.consider(si.lastMDReplyTime + s.askPeriodFor(m, si))
			}
		}
	}
	if m.flags&fFailoverInProgress != 0 {
		d.consider(m.m.failoverStateChange + m.m.failoverTimeout + 1)
	} else if m.flags&fODown != 0 && !s.tilt {
		d.consider(s.failoverStartAt(m)) // staggered start (stagger.go)
		if at, ok := s.earlyRetryAt(m); ok {
			d.consider(at) // early retry after no-good-slave (retry.go)
		}
	}
	return d.best
}

// silentDeadlines adds an instance's SDOWN and fast-PING deadlines.
func (s *Sentinel) silentDeadlines(d *deadlineMin, i *instance) {
	l := i.link
	if base, ok := s.silentSince(i); ok {
		// SDOWN counts from the last valid reply (fastdetect.go).
		d.consider(base + i.downAfter + 1)
	}
	if p := s.pingInterval(i); p < s.timing.PingPeriod && l.ccState == connUp {
		// A short down-after: the next PING is due before the next
		// tick (at the default down-after, PINGs keep the tick's pace
		// and a large deployment wakes no more often).
		d.consider(max(l.lastPongTime+p, l.lastPingTime+p/2) + 1)
	}
}
