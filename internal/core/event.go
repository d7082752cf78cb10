package core

import "strings"

// subject is the instance i as the "%@" prefix of an event shows it.
func (s *Sentinel) subject(i *instance) *Subject {
	sub := &Subject{Role: i.role(), Name: i.name, IP: s.announceHost(i.addr), Port: i.addr.Port}
	if m := i.master; m != nil {
		sub.Master, sub.MasterIP, sub.MasterPort = m.name, s.announceHost(m.addr), m.addr.Port
	} else {
		sub.Master, sub.MasterIP, sub.MasterPort = sub.Name, sub.IP, sub.Port
	}
	return sub
}

// eventAt emits an event about instance i whose message is the "%@"
// prefix of i (sentinelEvent's "%@" format) followed by detail, if any.
func (s *Sentinel) eventAt(level Level, typ string, i *instance, detail string) {
	s.emitEvent(level, typ, i, s.subject(i), detail)
}

// event emits an event whose message is msg as is (+new-epoch,
// +vote-for-leader, +switch-master, +tilt, scripts); i, if not nil, is the
// instance whose master it concerns.
func (s *Sentinel) event(level Level, typ string, i *instance, msg string) {
	s.emitEvent(level, typ, i, nil, msg)
}

// newEmit builds an Emit from its fields; Msg is derived from them here
// and nowhere else.
func (s *Sentinel) newEmit(level Level, typ string, i *instance, sub *Subject, detail string) Emit {
	e := Emit{Type: typ, Level: level, At: s.now - timeBase, Subject: sub, Detail: detail, Msg: eventText(sub, detail)}
	if sub != nil {
		e.Master = sub.Master
	} else if i != nil {
		if m := i.masterOf(); m != nil {
			e.Master = m.name
		}
	}
	return e
}

// emitEvent emits a Sentinel event and queues the master's notification
// script for warnings about an instance. Once revealEvent or adoptConfig
// held an event of a master in this step, the later events of that master
// in the same step are held behind it (the step's order is kept; events
// of later steps are not held, their At tells when they happened, and
// replies that reveal them, such as a vote's down state, are not held
// either).
func (s *Sentinel) emitEvent(level Level, typ string, i *instance, sub *Subject, detail string) {
	e := s.newEmit(level, typ, i, sub, detail)
	if h := s.persist.holdMaster; (h != nil && i != nil && i.masterOf() == h) || (typ == "+new-epoch" && s.newEpochHeld()) || s.flagChangeHeld(typ, i) {
		// Behind a held event of the same master, or behind a held
		// +new-epoch: subscribers must see the current epoch rise in
		// order (an epoch adopted from a hello while our vote's epoch
		// waits for its Persist came out first; lab B9, checker S3).
		// Or behind a held change of the same SDOWN/ODOWN flag of i:
		// subscribers and scripts must see a flag's changes in order, the
		// last one telling its state (a -odown held behind our vote came
		// out after the +odown of a later step; docs/core.md decision 30).
		s.holdEvent(e, e, i)
		return
	}
	s.emit(e)
	s.notifyScript(level, typ, i, e.Msg)
}

// revealEvent is event for the events that reveal our own vote or the new
// epoch of our vote or failover (+new-epoch, +vote-for-leader) while that
// change is not on disk yet: they are held until the Persist that covers it
// succeeds, like the vote reply (issue 15 item 6, persist before reveal in
// doc.go). If that Persist fails they become log lines and are never
// published. An epoch adopted from a hello is already public and goes
// through event.
func (s *Sentinel) revealEvent(level Level, typ string, i *instance, msg string) {
	if !s.unpersisted() {
		s.event(level, typ, i, msg)
		return
	}
	e := s.newEmit(level, typ, i, nil, msg)
	s.holdEvent(e, Log{Level: level, Msg: typ + " " + msg + " (not published: the configuration could not be saved)"}, i)
	s.persist.holdMaster = i.masterOf()
}

// holdEvent holds e until the pending Persist completes; fail replaces it
// if the Persist fails (e itself: published anyway).
func (s *Sentinel) holdEvent(e Emit, fail Effect, i *instance) {
	s.persist.held = append(s.persist.held, heldEffect{need: s.persist.needSeq, eff: e, fail: fail, event: i})
}

// holdUntilShown is called before a +switch-master of m (and adoptConfig's
// +config-update-from). While m's config epoch change is not saved, replies
// show the address on disk (shown.go), so from here on the events of m in
// this step are held; heldUntilSaved then keeps the switch held until the
// replies show the new address (docs/core.md decision 34).
func (s *Sentinel) holdUntilShown(m *instance) {
	if s.configUnsaved(m) {
		s.persist.holdMaster = m
	}
}

// heldUntilSaved marks the held +config-update-from and +switch-master of
// master m to stay held until m's config is saved, across failed Persists
// and later adoptions (persist.go onPersistDone): until then replies show
// the previous address (shown.go), and an event telling clients to switch
// would send them to a sentinel that answers with the old master.
func (s *Sentinel) heldUntilSaved(m *instance) {
	for k := range s.persist.held {
		if h := &s.persist.held[k]; h.event != nil && h.event.masterOf() == m {
			if e, ok := h.eff.(Emit); ok && (e.Type == "+config-update-from" || e.Type == "+switch-master") {
				h.untilSaved = true
			}
		}
	}
}

// newEpochHeld reports whether a +new-epoch is held.
func (s *Sentinel) newEpochHeld() bool {
	for _, h := range s.persist.held {
		if e, ok := h.eff.(Emit); ok && e.Type == "+new-epoch" {
			return true
		}
	}
	return false
}

// flagChangeHeld reports whether typ changes the SDOWN or ODOWN flag of i
// ("+sdown", "-odown", …) while an event changing the same flag of i is
// held.
func (s *Sentinel) flagChangeHeld(typ string, i *instance) bool {
	if i == nil || len(s.persist.held) == 0 {
		return false // the common case: nothing held, no string work
	}
	flag := strings.TrimLeft(typ, "+-")
	if flag != "sdown" && flag != "odown" {
		return false
	}
	for _, h := range s.persist.held {
		if e, ok := h.eff.(Emit); ok && h.event == i && strings.TrimLeft(e.Type, "+-") == flag {
			return true
		}
	}
	return false
}

// eventsHeld reports whether events of master m are held.
func (s *Sentinel) eventsHeld(m *instance) bool {
	for _, h := range s.persist.held {
		if h.event != nil && h.event.masterOf() == m {
			return true
		}
	}
	return false
}

// notifyScript queues the master's notification script for a warning
// event about an instance.
func (s *Sentinel) notifyScript(level Level, typ string, i *instance, msg string) {
	if level != LevelWarning || i == nil {
		return
	}
	if m := i.masterOf(); m != nil && m.m != nil && m.m.notificationScript != "" {
		s.scheduleScript(m.m.notificationScript, typ, msg)
	}
}
