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
// script for warnings about an instance.
func (s *Sentinel) event(level Level, typ string, i *instance, msg string) {
	s.emit(Emit{Type: typ, Msg: msg, Level: level})
	if level != LevelWarning || i == nil {
		return
	}
	if m := i.masterOf(); m != nil && m.m != nil && m.m.notificationScript != "" {
		s.scheduleScript(m.m.notificationScript, typ, msg)
	}
}
