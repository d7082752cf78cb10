package core

// persistRetryDelay paces new Persist attempts after a failed one.
const persistRetryDelay Millis = 1000

// persistState implements persist-before-reveal (see the package doc).
type persistState struct {
	dirty    bool   // state changed since the last emitted Persist
	needSeq  uint64 // the Persist Seq that will cover the latest change
	lastSeq  uint64 // Seq of the last emitted Persist
	inflight uint64 // Seq of the outstanding Persist, 0 if none
	doneSeq  uint64 // Seq of the last successful Persist
	retryAt  Millis // no new Persist before this time (after a failure)
	held     []heldEffect
	// failedAt is the time of the first failed Persist since the last
	// successful one; 0 while the sentinel is durable (durable.go).
	failedAt Millis
	// refusedEpoch is the last vote request epoch refused while
	// non-durable (logged once per epoch).
	refusedEpoch uint64
	// changes counts markDirty calls ([Sentinel.Changes]).
	changes uint64
	// holdMaster is the master whose events are held for the rest of
	// the current step (event.go); reset at every step.
	holdMaster *instance
	// emittedAt is when the outstanding Persist was emitted; took holds
	// how long the last persistSamples successful ones took (a ring;
	// slots not filled yet are 0), for the failover stagger (stagger.go).
	emittedAt Millis
	took      [persistSamples]Millis
	tookNext  int
	// inflightEpoch is the current epoch in the outstanding Persist;
	// savedEpoch the one in the last successful Persist (or loaded at
	// start): what a "*" IS-MASTER-DOWN-BY-ADDR may carry without waiting
	// for a save (vote.go askPeer, docs/core.md decision 38).
	inflightEpoch uint64
	savedEpoch    uint64
}

// persistSamples is how many recent Persist durations staggerStep looks at.
const persistSamples = 8

// heldEffect is an effect waiting for a Persist to succeed.
type heldEffect struct {
	need uint64
	eff  Effect
	// fail replaces eff when the Persist fails; nil drops it.
	fail Effect
	// event is the instance of a held Emit (event.go), for the
	// notification script queued when it is published; nil otherwise.
	event *instance
	// untilSaved keeps the event held until the replies show the
	// master's latest config (a followed +switch-master: replies show
	// the new address only once it is on disk, shown.go; hello.go
	// adoptConfig), across failed Persists and later adoptions.
	untilSaved bool
}

// markDirty records a change of persisted state (sentinelFlushConfig).
func (s *Sentinel) markDirty() {
	p := &s.persist
	p.changes++
	p.dirty = true
	p.needSeq = p.lastSeq + 1
}

// slowestRecentPersist is the longest of the last persistSamples
// successful Persists, from emit to PersistDone (0 before the first).
func (s *Sentinel) slowestRecentPersist() Millis {
	var d Millis
	for _, t := range s.persist.took {
		d = max(d, t)
	}
	return d
}

// unpersisted reports whether some change is not on disk yet.
func (s *Sentinel) unpersisted() bool { return s.persist.needSeq > s.persist.doneSeq }

// reveal emits an effect that reveals persisted state, holding it until
// every change made so far is on disk. fail is what to emit instead if the
// Persist fails (nil: drop).
func (s *Sentinel) reveal(e Effect, fail Effect) {
	if !s.unpersisted() {
		s.emit(e)
		return
	}
	s.persist.held = append(s.persist.held, heldEffect{need: s.persist.needSeq, eff: e, fail: fail})
}

// revealSend is reveal for a command: the Send is registered as pending
// now and discarded if the connection closes while it is held.
func (s *Sentinel) revealSend(snd Send) { s.reveal(snd, nil) }

// flushPersist emits a Persist when state is dirty and none is in flight.
func (s *Sentinel) flushPersist() {
	p := &s.persist
	if !p.dirty || p.inflight != 0 || s.now < p.retryAt {
		return
	}
	p.lastSeq++
	p.inflight = p.lastSeq
	p.needSeq = p.lastSeq
	p.dirty = false
	p.emittedAt = s.now
	p.inflightEpoch = s.currentEpoch
	s.emit(Persist{Seq: p.lastSeq, State: s.snapshot()})
}

// onPersistDone releases (or fails) the effects held for a Persist.
func (s *Sentinel) onPersistDone(e PersistDone) {
	p := &s.persist
	if e.Seq == 0 || e.Seq != p.inflight {
		return
	}
	p.inflight = 0
	if e.Err != nil {
		// The runtime logs every failure as sentinelFlushConfig does
		// ("WARNING: Sentinel was not able to save the new configuration
		// on disk!!!"); the core logs the change of durability.
		p.dirty = true
		p.retryAt = s.now + persistRetryDelay
		s.becomeNonDurable(e.Err)
	} else {
		p.doneSeq = e.Seq
		p.savedEpoch = max(p.savedEpoch, p.inflightEpoch)
		s.becomeDurable()
		p.took[p.tookNext] = max(0, s.now-p.emittedAt)
		p.tookNext = (p.tookNext + 1) % persistSamples
	}
	keep := p.held[:0:0]
	var blocked map[*instance]bool // masters with a held event kept
	for _, h := range p.held {
		var m *instance
		if h.event != nil {
			m = h.event.masterOf()
		}
		if h.need > e.Seq || blocked[m] || (h.untilSaved && s.configUnsaved(m)) {
			// Not covered yet, behind a kept event of the same master
			// (a master's events leave in order), or a followed switch
			// whose address the replies do not show yet (a later
			// adoption still unsaved, or this save failed).
			keep = append(keep, h)
			if m != nil {
				if blocked == nil {
					blocked = map[*instance]bool{}
				}
				blocked[m] = true
			}
			continue
		}
		out := h.eff
		if e.Err != nil {
			out = h.fail
		}
		if out != nil {
			s.release(out)
			if ev, ok := out.(Emit); ok && h.event != nil {
				s.notifyScript(ev.Level, ev.Type, h.event, ev.Msg)
			}
		} else if snd, ok := h.eff.(Send); ok {
			s.forgetSend(snd)
		}
	}
	p.held = keep
}

// release emits a held effect; a Send whose connection went away is dropped.
func (s *Sentinel) release(e Effect) {
	if snd, ok := e.(Send); ok {
		if _, live := s.pending[snd.Tag]; !live {
			return
		}
	}
	s.emit(e)
}

// forgetSend cancels a held Send that will never be written.
func (s *Sentinel) forgetSend(snd Send) {
	pc, ok := s.pending[snd.Tag]
	if !ok {
		return
	}
	s.delPending(snd.Tag)
	if pc.counted && pc.conn == pc.link.cc && pc.link.pending > 0 {
		pc.link.pending--
	}
	s.cancelPending(pc)
}

// dropHeldOn drops held Sends on a connection that closed (their pending
// entries are already gone).
func (s *Sentinel) dropHeldOn(conn ConnID) {
	p := &s.persist
	keep := p.held[:0:0]
	for _, h := range p.held {
		if snd, ok := h.eff.(Send); ok && snd.Conn == conn {
			continue
		}
		keep = append(keep, h)
	}
	p.held = keep
}
