package core

import "fmt"

// at renders the "%@" prefix of an event message (sentinelEvent):
// "<type> <name> <ip> <port>" plus " @ <master> <ip> <port>" for replicas
// and sentinels.
func (s *Sentinel) at(i *instance) string {
	str := fmt.Sprintf("%s %s %s %d", i.role(), i.name, s.announceHost(i.addr), i.addr.Port)
	if m := i.master; m != nil {
		str += fmt.Sprintf(" @ %s %s %d", m.name, s.announceHost(m.addr), m.addr.Port)
	}
	return str
}

// event emits a Sentinel event and queues the master's notification
// script for warnings about an instance. Once revealEvent held an event of
// a master in this step, the later events of that master in the same step
// are held behind it (the step's order is kept; events of later steps are
// not held, their At tells when they happened).
func (s *Sentinel) event(level Level, typ string, i *instance, msg string) {
	e := Emit{Type: typ, Msg: msg, Level: level, At: s.now - timeBase}
	if h := s.persist.holdMaster; h != nil && i != nil && i.masterOf() == h {
		s.holdEvent(e, e, i)
		return
	}
	s.emit(e)
	s.notifyScript(level, typ, i, msg)
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
	e := Emit{Type: typ, Msg: msg, Level: level, At: s.now - timeBase}
	s.holdEvent(e, Log{Level: level, Msg: typ + " " + msg + " (not published: the configuration could not be saved)"}, i)
	s.persist.holdMaster = i.masterOf()
}

// holdEvent holds e until the pending Persist completes; fail replaces it
// if the Persist fails (e itself: published anyway).
func (s *Sentinel) holdEvent(e Emit, fail Effect, i *instance) {
	s.persist.held = append(s.persist.held, heldEffect{need: s.persist.needSeq, eff: e, fail: fail, event: i})
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
