package core

// maxTickGap is the longest the runtime may wait between Ticks.
const maxTickGap Millis = 100

// nextDeadline returns the earliest instant at which a timer expires:
// a pending PING or a disconnected link crossing down-after, a periodic
// command becoming due, a failover timeout. It is a hint; it never returns
// later than now+100 ms.
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
		if l.actPingTime != 0 {
			consider(l.actPingTime + i.downAfter + 1)
		} else if l.disconnected() {
			consider(l.lastAvailTime + i.downAfter + 1)
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
		if m.flags&fFailoverInProgress != 0 {
			consider(m.m.failoverStateChange + m.m.failoverTimeout + 1)
		}
	}
	return best - timeBase
}
