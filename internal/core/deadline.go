package core

// maxTickGap is the longest the runtime may wait between Ticks.
const maxTickGap Millis = 100

// nextDeadline returns the earliest instant at which a timer expires:
// an instance's last valid reply becoming down-after old (PING pending or
// link down), a fast PING becoming due (down-after below 10×ping-period),
// a fast re-ask of a peer about an SDOWN master, the staggered start of a
// failover, a failover timeout. It is a hint; it never returns later than
// now+100 ms.
func (s *Sentinel) nextDeadline(now Millis) Millis {
	in := now + timeBase
	best := in + maxTickGap
	consider := func(t Millis) {
		if t > in && t < best {
			best = t
		}
	}
	silent := func(i *instance) {
		l := i.link
		if l.actPingTime != 0 || l.disconnected() {
			// SDOWN counts from the last valid reply (fastdetect.go).
			consider(l.lastAvailTime + i.downAfter + 1)
		}
		if p := s.pingInterval(i); p < s.timing.PingPeriod && l.ccState == connUp {
			// A short down-after: the next PING is due before the next
			// tick (at the default down-after, PINGs keep the tick's pace
			// and a large deployment wakes no more often).
			consider(max(l.lastPongTime+p, l.lastPingTime+p/2) + 1)
		}
	}
	// No order is visible (a minimum), so the maps are read directly: no
	// sort and no allocation on every tick.
	for _, m := range s.masters {
		silent(m)
		for _, r := range m.m.replicas {
			silent(r)
		}
		for _, si := range m.m.sentinels {
			silent(si)
		}
		if m.flags&fSDown != 0 && m.flags&fODown == 0 && !s.tilt {
			for _, si := range m.m.sentinels {
				if !si.askPending && !si.link.disconnected() {
					consider(si.lastMDReplyTime + s.askPeriodFor(m, si))
				}
			}
		}
		if m.flags&fFailoverInProgress != 0 {
			consider(m.m.failoverStateChange + m.m.failoverTimeout + 1)
		} else if m.flags&fODown != 0 && !s.tilt {
			consider(s.failoverStartAt(m)) // staggered start (stagger.go)
		}
	}
	return best - timeBase
}
