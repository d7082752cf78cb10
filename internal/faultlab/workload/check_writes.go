package workload

import (
	"sort"
	"time"
)

// writes computes Writes, Acked, Failed, Unknown, LostAck, Phantom,
// Duplicates, FailedApplied (W1) and the client RTOs.
func (c *checker) writes() {
	final := map[string]int{}
	for _, ids := range c.in.Final {
		for _, id := range ids {
			final[id]++
		}
	}
	invoked := map[string]Op{}
	firstOK := map[string]time.Time{}
	writers := map[string]bool{}
	for _, op := range c.in.Ops {
		writers[op.Writer] = true
		if op.Kind != "" {
			// Queue operations (CheckQueue): an acknowledged enqueue still
			// ends the writer's outage.
			if op.Kind == KindEnqueue && op.Result == ResultOK && c.recovered(op) {
				if t, ok := firstOK[op.Writer]; !ok || op.Complete.Before(t) {
					firstOK[op.Writer] = op.Complete
				}
			}
			continue
		}
		invoked[op.ID] = op
		c.r.Writes++
		pw := c.r.PerWriter[op.Writer]
		pw.Writes++
		switch op.Result {
		case ResultOK:
			c.r.Acked++
			pw.Acked++
			if final[op.ID] == 0 {
				c.r.LostAck++
				pw.LostAck++
			}
			if op.Node == "" {
				c.r.NoNode++
			}
			if c.recovered(op) {
				if t, ok := firstOK[op.Writer]; !ok || op.Complete.Before(t) {
					firstOK[op.Writer] = op.Complete
				}
			}
		case ResultFail:
			c.r.Failed++
			pw.Failed++
			if final[op.ID] > 0 {
				c.r.FailedApplied++
				c.violate("W1", "write %s recorded fail (%s) is in the final read", op.ID, op.Err)
			}
		default:
			c.r.Unknown++
			pw.Unknown++
			if final[op.ID] > 0 {
				c.r.UnknownApplied++
			}
		}
		c.r.PerWriter[op.Writer] = pw
	}
	ids := make([]string, 0, len(final))
	for id := range final {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if _, ok := invoked[id]; !ok {
			c.r.Phantom++
		}
		if final[id] > 1 {
			c.r.Duplicates++
		}
	}
	c.tornTx(final)
	if c.in.FaultAt.IsZero() {
		return
	}
	names := make([]string, 0, len(writers))
	for w := range writers {
		names = append(names, w)
	}
	sort.Strings(names)
	worst := time.Duration(0)
	for i, w := range names {
		d := time.Duration(-1)
		if t, ok := firstOK[w]; ok {
			d = t.Sub(c.in.FaultAt)
		}
		c.r.RTOClientBy[w] = d
		if i == 0 || worst >= 0 && (d < 0 || d > worst) {
			worst = d
		}
	}
	if len(names) > 0 {
		c.r.RTOClient = worst
	}
}

// recovered reports whether an ok op counts for RTO_client: invoked after
// the fault and acknowledged by the final master (by a node other than the
// old master when the final master is not known). Writes invoked after the
// fault but still served by a dying master, or acknowledged late by a
// paused one, do not end the outage; measuring to the acknowledgement
// (Complete) counts a write stalled across the fault.
func (c *checker) recovered(op Op) bool {
	if c.in.FaultAt.IsZero() || op.Invoke.Before(c.in.FaultAt) {
		return false
	}
	switch {
	case c.in.FinalMaster != "":
		return op.Node != "" && c.norm(op.Node) == c.norm(c.in.FinalMaster)
	case c.in.OldMaster != "":
		return op.Node != "" && c.norm(op.Node) != c.norm(c.in.OldMaster)
	}
	return true
}

// awayInterval is a time during which the sentinels had switched away from
// a node: from the first +switch-master naming it as the old master until
// the first one naming it as the new master.
type awayInterval struct {
	from, to time.Time // to zero: until the end
}

// stale computes StaleAcks and StaleAcksLate: ok writes invoked while the
// sentinels had switched away from the node that acknowledged them.
func (c *checker) stale() {
	away := map[string][]awayInterval{}
	for _, e := range c.events {
		if e.Channel != "+switch-master" {
			continue
		}
		ev := parseEvent(e)
		if ev.old == "" || ev.new == "" {
			continue
		}
		old, nw := c.norm(ev.old), c.norm(ev.new)
		if l := away[old]; len(l) == 0 || !l[len(l)-1].to.IsZero() {
			away[old] = append(l, awayInterval{from: e.At})
		}
		if l := away[nw]; len(l) > 0 && l[len(l)-1].to.IsZero() {
			l[len(l)-1].to = e.At
		}
	}
	for _, op := range c.in.Ops {
		if op.Result != ResultOK || op.Node == "" || op.Kind == KindDequeue {
			continue
		}
		for _, iv := range away[c.norm(op.Node)] {
			if op.Invoke.Before(iv.from) || !iv.to.IsZero() && !op.Invoke.Before(iv.to) {
				continue
			}
			c.r.StaleAcks++
			pw := c.r.PerWriter[op.Writer]
			pw.StaleAcks++
			if op.Invoke.Sub(iv.from) > time.Second {
				c.r.StaleAcksLate++
				pw.StaleAcksLate++
			}
			c.r.PerWriter[op.Writer] = pw
			break
		}
	}
}
