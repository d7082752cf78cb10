package workload

import "sort"

// QueueReport judges a queue writer (ModeQueue): its enqueues and
// deliveries, and what its lists still hold at the end.
type QueueReport struct {
	// Enqueued, EnqueuedOK: enqueue operations, and those acknowledged
	// (LPUSH answered and WAIT 1 confirmed).
	Enqueued, EnqueuedOK int
	// Delivered: ids a BRPOP returned; Remaining: ids left in the lists.
	Delivered, Remaining int
	// Lost: acknowledged ids neither delivered nor remaining.
	Lost int
	// UnknownPops: BRPOPs whose outcome is unknown (sent, then the
	// connection failed or timed out): each may have taken an id whose
	// delivery was lost. Lost ≤ UnknownPops means every loss is accounted
	// for by an operation reported unknown.
	UnknownPops int
	// DupResent: ids seen more than once (delivered or remaining) whose
	// enqueue reached a socket more than once: a client resent the LPUSH
	// (a silent duplicate). DupRedelivered: ids seen more than once
	// otherwise — delivered by the old master, whose pop had not reached
	// the promoted replica (asynchronous replication: at-least-once).
	DupResent, DupRedelivered int
	// Phantom: ids delivered or remaining that were never enqueued.
	Phantom int
}

// CheckQueue judges the KindEnqueue / KindDequeue operations of ops
// against remaining (the writer's lists read from the final master).
func CheckQueue(ops []Op, remaining map[string][]string) QueueReport {
	var r QueueReport
	seen := map[string]int{}
	for _, ids := range remaining {
		for _, id := range ids {
			seen[id]++
			r.Remaining++
		}
	}
	enq := map[string]Op{}
	for _, op := range ops {
		switch op.Kind {
		case KindEnqueue:
			r.Enqueued++
			enq[op.ID] = op
			if op.Result == ResultOK {
				r.EnqueuedOK++
			}
		case KindDequeue:
			switch op.Result {
			case ResultOK:
				r.Delivered++
				seen[op.ID]++
			case ResultUnknown:
				r.UnknownPops++
			}
		}
	}
	for id, op := range enq {
		if op.Result == ResultOK && seen[id] == 0 {
			r.Lost++
		}
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		op, ok := enq[id]
		switch {
		case !ok:
			r.Phantom++
		case seen[id] > 1 && op.Sent > 1:
			r.DupResent++
		case seen[id] > 1:
			r.DupRedelivered++
		}
	}
	return r
}
