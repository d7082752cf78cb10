package sim

import "fmt"

// Realistic PSYNC (Options.PSync), modelled on redis 7.0's PSYNC2: every
// instance has a replication id and offset; a promoted replica starts a
// new id and keeps the old one as its second id up to its offset
// (shiftReplicationId); a restarted master starts a new history at offset
// 0 (a standalone master does not restore its replication id from the
// RDB), a restarted replica keeps its id and offset (its cached master).
// A replica connecting to a master resyncs partially when the master knows
// its history (same id, or the second id up to the switch offset) and the
// missing bytes are still in the backlog (BacklogSize) — the link is up
// within a round trip and the offset continues; otherwise in full: a
// 100–500 ms transfer after which the offset jumps to the master's offset
// at the start of the transfer (forwards or backwards). Linked replicas
// catch up at a bounded rate, so a write burst (FaultReplBurst) leaves them
// lagging; an output-buffer overflow drops their links and the next sync
// is a full one.

// replCatchUp is how many ticks' worth of writes a linked replica applies
// per tick at most (a burst is replayed over several ticks).
const replCatchUp = 8

// newReplID names a new replication history (deterministic: it draws
// nothing from the run's generator).
func (w *World) newReplID() string {
	w.replGen++
	return fmt.Sprintf("replid-%d", w.replGen)
}

// initPSync gives every group one history: the replicas are in sync with
// their master at offset 0.
func (w *World) initPSync() {
	for g := range w.masters {
		id := w.newReplID()
		for _, in := range w.group(g) {
			in.replID = id
		}
	}
}

// psyncPromoted is SLAVEOF NO ONE on a replica: a new history, the old
// one kept as the second id up to the current offset.
func (w *World) psyncPromoted(in *instance) {
	in.replID2, in.secondOff = in.replID, in.offset
	in.replID = w.newReplID()
}

// psyncRestarted resets the history of a restarted master.
func (w *World) psyncRestarted(in *instance) {
	if in.role == roleMaster {
		in.replID, in.replID2, in.secondOff, in.offset = w.newReplID(), "", 0, 0
	}
}

// canPartial reports whether src can serve in a partial resync.
func (w *World) canPartial(in, src *instance) bool {
	known := (in.replID == src.replID && in.offset <= src.offset) ||
		(src.replID2 != "" && in.replID == src.replID2 && in.offset <= src.secondOff)
	return known && src.offset-in.offset <= w.opt.BacklogSize
}

// startSync begins a (partial or full) resync of in with src.
func (w *World) startSync(in, src *instance) {
	now := w.sch.now
	if w.canPartial(in, src) {
		in.syncPartial, in.syncUntil = true, now+2*w.latency()+1
		return
	}
	in.syncPartial, in.syncFrom = false, src.offset
	in.syncUntil = now + 100 + w.rng.Int64N(400)
}

// finishSync completes the resync of in with src.
func (w *World) finishSync(in, src *instance) {
	if in.syncPartial {
		w.tracef("redis %s: partial resync with %s:%d at offset %d (master at %d)", in.addr.IP, in.masterHost, in.masterPort, in.offset, src.offset)
	} else {
		w.tracef("redis %s: full resync with %s:%d, offset %d -> %d", in.addr.IP, in.masterHost, in.masterPort, in.offset, in.syncFrom)
		in.offset = in.syncFrom
	}
	in.replID = src.replID
	in.replID2, in.secondOff = "", 0
}

// followOffset advances a linked replica towards its master's offset at
// a bounded rate.
func (w *World) followOffset(in *instance, target int64) {
	if max := in.offset + replCatchUp*w.opt.ReplRate*replTickPeriod; target > max {
		target = max
	}
	if target > in.offset {
		in.offset = target
	}
}

// replBurst is a write burst on the current master of a group: its offset
// jumps by 1–3 backlogs; in half the bursts the replicas' output buffers
// overflow and the master drops their links (client-output-buffer-limit
// replica), so their next sync is a full one.
func (w *World) replBurst(f Fault) {
	if !w.opt.PSync {
		return
	}
	m := w.trueMaster(f.n(0, len(w.masters)))
	if m == nil || m.paused || m.loading(w.sch.now) {
		return
	}
	b := w.opt.BacklogSize * (1 + f.n64(1, 3))
	m.offset += b
	drop := f.n(2, 2) == 0
	w.tracef("fault: write burst of %d bytes on %s (output buffers overflow: %v)", b, m.addr.IP, drop)
	if !drop {
		return
	}
	for _, r := range w.replicasOf(m) {
		if r.linkUp {
			r.linkUp, r.downSince = false, w.sch.now
			r.lastDisturbed = w.sch.now
			w.tracef("redis %s: link to %s:%d dropped (output buffer limit)", r.addr.IP, r.masterHost, r.masterPort)
		}
	}
}
