package core

// Speed-up (docs/core.md, "Speed-ups"): converting a stray master back.
//
// A node that we list as a replica but that reports role:master is sent
// SLAVEOF (+convert-to-slave) only once it has reported so, and been free
// of SDOWN/ODOWN, for 4×publish-period (sentinel.c's safety wait: it lets
// the hellos of other sentinels announce a newer configuration first).
// sentinel.c checks that condition only when an INFO reply arrives, so the
// conversion also waits for the first INFO after the wait: up to one INFO
// period more (10 s for a replica of a healthy master, 1 s while it is in
// trouble). The core keeps the wait but not that quantisation: when an INFO
// reply finds the conversion blocked by the wait alone, it records when the
// wait ends (convertAt), asks the node INFO exactly then (tick.go,
// schedule.go, deadline.go), and converts on that reply after the same
// checks, on fresh data. On the wire this is only an earlier INFO.

// convertWait is the safety wait before a replica that reports master is
// converted (SENTINEL_PUBLISH_PERIOD*4 in sentinel.c).
func (s *Sentinel) convertWait() Millis { return 4 * s.timing.PublishPeriod }

// convertWaitEnd is the first instant at which the wait's two conditions
// (role reported more than wait ago, no S/ODOWN for more than wait) hold.
func convertWaitEnd(i *instance, wait Millis) Millis {
	return max(i.roleReportedTime, i.sdownSince, i.odownSince) + wait + 1
}

// convertInfoDue reports whether a replica is to be asked INFO now because
// the wait of its pending conversion has ended.
func (s *Sentinel) convertInfoDue(i *instance) bool {
	return i.convertAt != 0 && i.isSlave() && s.now >= i.convertAt
}
