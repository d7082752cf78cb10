package core

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// emitFieldsAgree checks an Emit's structured fields against its text, read
// the way a subscriber reads it: a "%@" message names the same instance
// and master as Subject, Detail is the rest, and an event without a
// Subject carries its text in Detail.
func emitFieldsAgree(e Emit) error {
	if len(e.Msg) >= MaxEventLen {
		// Cut like sentinelEvent's buffer: the whole fields, cut, are Msg.
		if want := eventText(e.Subject, e.Detail); e.Msg != want {
			return fmt.Errorf("%s %.80q: cut text of the fields is %.80q", e.Type, e.Msg, want)
		}
		return nil
	}
	if e.Subject == nil {
		if e.Detail != e.Msg {
			return fmt.Errorf("%s %q: Detail %q without a Subject", e.Type, e.Msg, e.Detail)
		}
		if e.Type == "+switch-master" && !strings.HasPrefix(e.Msg, e.Master+" ") {
			return fmt.Errorf("%s %q: Master %q", e.Type, e.Msg, e.Master)
		}
		return nil
	}
	f := strings.Fields(e.Msg)
	sub := e.Subject
	if len(f) < 4 || f[0] != sub.Role.String() || f[1] != sub.Name || f[2] != sub.IP || f[3] != strconv.Itoa(sub.Port) {
		return fmt.Errorf("%s %q: Subject %+v", e.Type, e.Msg, *sub)
	}
	rest := f[4:]
	master := sub.Name
	if sub.Role != RoleMaster {
		if len(rest) < 4 || rest[0] != "@" || rest[1] != sub.Master || rest[2] != sub.MasterIP || rest[3] != strconv.Itoa(sub.MasterPort) {
			return fmt.Errorf("%s %q: Subject %+v", e.Type, e.Msg, *sub)
		}
		master = rest[1]
		rest = rest[4:]
	}
	if e.Master != master || sub.Master != master {
		return fmt.Errorf("%s %q: Master %q, Subject.Master %q", e.Type, e.Msg, e.Master, sub.Master)
	}
	if got := strings.Join(rest, " "); got != e.Detail {
		return fmt.Errorf("%s %q: Detail %q, want %q", e.Type, e.Msg, e.Detail, got)
	}
	return nil
}

// TestEmitFields: the fields of a few events built by hand agree with
// their text (every event of the scenario tests is checked the same way
// in world.exec).
func TestEmitFields(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	for _, e := range []Emit{
		s.newEmit(LevelWarning, "+odown", m, s.subject(m), "#quorum 2/2"),
		s.newEmit(LevelWarning, "+sdown", m, s.subject(m), ""),
		s.newEmit(LevelWarning, "+new-epoch", m, nil, "7"),
		s.newEmit(LevelWarning, "+tilt", nil, nil, "#tilt mode entered"),
	} {
		if err := emitFieldsAgree(e); err != nil {
			t.Error(err)
		}
	}
	if e := s.newEmit(LevelWarning, "+odown", m, s.subject(m), "#quorum 2/2"); e.Msg != "master mym "+m.addr.IP+" "+strconv.Itoa(m.addr.Port)+" #quorum 2/2" || e.Master != "mym" {
		t.Errorf("+odown = %+v", e)
	}
	if e := s.newEmit(LevelWarning, "+new-epoch", m, nil, "7"); e.Msg != "7" || e.Master != "mym" {
		t.Errorf("+new-epoch = %+v", e)
	}
}
