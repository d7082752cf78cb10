package core

import (
	"fmt"
	"strings"
)

// checkSubjectivelyDown is sentinelCheckSubjectivelyDown, including link
// recycling.
func (s *Sentinel) checkSubjectivelyDown(i *instance) {
	l := i.link
	elapsed := s.silentFor(i) // fastdetect.go
	half := i.downAfter / 2
	if l.ccState != connNone && s.now-l.ccConnTime > s.timing.MinLinkReconnectPeriod &&
		l.actPingTime != 0 && s.now-l.actPingTime > half && s.now-l.lastPongTime > half {
		s.closeConn(l, false)
	}
	if l.pcState != connNone && s.now-l.pcConnTime > s.timing.MinLinkReconnectPeriod &&
		s.now-l.pcLastActivity > 3*s.timing.PublishPeriod {
		s.closeConn(l, true)
	}
	down := elapsed > i.downAfter
	if i.isMaster() && i.roleReported == fSlave && s.now-i.roleReportedTime > i.downAfter+2*s.timing.InfoPeriod {
		down = true
	}
	if i.flags&fMasterReboot != 0 && i.isMaster() && s.now-i.rebootSince > i.m.rebootDownAfter {
		down = true
	}
	if down {
		if i.flags&fSDown == 0 {
			s.eventAt(LevelWarning, "+sdown", i, "")
			i.sdownSince = s.now
			i.flags |= fSDown
		}
	} else if i.flags&fSDown != 0 {
		s.eventAt(LevelWarning, "-sdown", i, "")
		i.flags &^= fSDown | fScriptKillSent
	}
}

// checkObjectivelyDown is sentinelCheckObjectivelyDown.
func (s *Sentinel) checkObjectivelyDown(m *instance) {
	quorum := 0
	odown := false
	if m.flags&fSDown != 0 {
		quorum = 1
		for _, si := range m.sortedSentinels() {
			// sentinel.c expires stale answers only after this count (in
			// the ask loop), and not at all during TILT: leaving TILT, a
			// master could reach ODOWN on answers seconds old (sim S5).
			s.expireMasterDownReply(si)
			if si.flags&fMasterDown != 0 {
				quorum++
			}
		}
		odown = quorum >= m.m.quorum
	}
	if odown {
		if m.flags&fODown == 0 {
			s.eventAt(LevelWarning, "+odown", m, fmt.Sprintf("#quorum %d/%d", quorum, m.m.quorum))
			m.flags |= fODown
			m.odownSince = s.now
			s.refreshReplicasInfo(m) // fastdetect.go
		}
	} else if m.flags&fODown != 0 {
		s.eventAt(LevelWarning, "-odown", m, "")
		m.flags &^= fODown
	}
}

// onPingReply is sentinelPingReplyCallback.
func (s *Sentinel) onPingReply(i *instance, v Value) {
	l := i.link
	if v.Kind == KindStatus || v.Kind == KindError {
		str := v.Str
		if strings.HasPrefix(str, "PONG") || strings.HasPrefix(str, "LOADING") || strings.HasPrefix(str, "MASTERDOWN") {
			l.lastAvailTime = s.now
			l.actPingTime = 0
			if i.flags&fMasterReboot != 0 && strings.HasPrefix(str, "PONG") {
				i.flags &^= fMasterReboot
			}
		} else if strings.HasPrefix(str, "BUSY") && i.flags&fSDown != 0 && i.flags&fScriptKillSent == 0 {
			if s.sendCmd(i, false, SendOther, s.mapCmd(i, "SCRIPT"), "KILL") {
				i.flags |= fScriptKillSent
			}
		}
	}
	l.lastPongTime = s.now
}
