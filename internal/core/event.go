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
// script for warnings about an instance. While an event is held by
// revealEvent, later events queue behind it, so subscribers see events in
// the order they happened; except +switch-master, which leaves in the step
// that changes the address GET-MASTER-ADDR-BY-NAME shows (sim S9).
func (s *Sentinel) event(level Level, typ string, i *instance, msg string) {
	e := Emit{Type: typ, Msg: msg, Level: level}
	if s.persist.heldEmits > 0 && typ != "+switch-master" {
		s.holdEvent(e, e, i)
		return
	}
	s.emit(e)
	s.notifyScript(level, typ, i, msg)
}

// revealEvent is event for the events that reveal our own vote or our own
// new epoch before anyone else knows it (+vote-for-leader, and +new-epoch
// when we vote or start a failover): they are held until the change is on
// disk, like the vote reply (persist before reveal, doc.go). If the Persist
// fails they become log lines and are never published; events queued
// behind them are published as usual. An epoch adopted from a hello is
// already public and goes through event.
func (s *Sentinel) revealEvent(level Level, typ string, i *instance, msg string) {
	if !s.unpersisted() {
		s.event(level, typ, i, msg)
		return
	}
	s.holdEvent(Emit{Type: typ, Msg: msg, Level: level},
		Log{Level: level, Msg: typ + " " + msg + " (not published: the config could not be saved)"}, i)
}

// holdEvent holds e until the pending Persist completes (fail replaces it
// if the Persist fails).
func (s *Sentinel) holdEvent(e Emit, fail Effect, i *instance) {
	s.persist.held = append(s.persist.held, heldEffect{need: s.persist.needSeq, eff: e, fail: fail, event: i, isEvent: true})
	s.persist.heldEmits++
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
