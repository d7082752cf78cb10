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
	for _, m := range s.sortedMasters() {
		all := append([]*instance{m}, m.sortedReplicas()...)
		all = append(all, m.sortedSentinels()...)
		for _, i := range all {
			l := i.link
			if l.actPingTime != 0 {
				consider(l.actPingTime + i.downAfter + 1)
			} else if l.disconnected() {
				consider(l.lastAvailTime + i.downAfter + 1)
			}
		}
		if m.flags&fFailoverInProgress != 0 {
			consider(m.m.failoverStateChange + m.m.failoverTimeout + 1)
		}
	}
	return best - timeBase
}
