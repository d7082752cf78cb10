package sim

import (
	"strconv"

	"github.com/gosentinel/gosentinel/internal/core"
)

// password is the data nodes' password of generation g.
func password(g int) string { return "pw-" + strconv.Itoa(g) }

// rotatePassword rotates the data nodes' password the way an operator
// must with Sentinel: the new password is added next to the old one on
// every data node (ACL SETUSER default >new, CONFIG REWRITE), every
// sentinel gets SENTINEL SET <master> auth-pass <new> (which drops and
// re-opens its connections), and only once every sentinel's config file
// holds the new password is the old one removed. A sentinel that was down
// or lost the write is sent the command again.
func (w *World) rotatePassword() {
	if !w.opt.Auth || w.rotating {
		return
	}
	w.rotating = true
	w.passGen++
	next := password(w.passGen)
	w.tracef("fault: operator adds password %s on every data node", next)
	for _, in := range w.inst {
		in.passwords = append(in.passwords, next)
	}
	w.pushPassword(next)
}

// pushPassword sends SENTINEL SET auth-pass to the sentinels whose config
// file does not hold it yet, and finishes the rotation once all do.
func (w *World) pushPassword(next string) {
	missing := 0
	for k, s := range w.sent {
		if s.diskHasPass(w.masters, next) {
			continue
		}
		missing++
		if !s.up || s.opPending {
			continue
		}
		s := s
		w.sch.after(int64(50*k), func() {
			if !s.up || s.opPending {
				return
			}
			for _, name := range w.masters {
				args := []string{"SENTINEL", "SET", name, "auth-pass", next}
				s.nextReq++
				s.reqs[s.nextReq] = reqRoute{args: args, at: w.sch.now, operator: true}
				s.opPending = true
				s.opOutstanding++
				w.toSentinel(s, s.inc, core.Request{ID: s.nextReq, Client: 1002, Args: args})
			}
		})
	}
	if missing == 0 {
		w.tracef("operator: every sentinel has %s; old passwords removed", next)
		for _, in := range w.inst {
			in.passwords = []string{next}
		}
		w.rotating = false
		return
	}
	w.sch.after(500, func() { w.pushPassword(next) })
}

// diskHasPass reports whether the config file of s holds pass as the
// auth-pass of every master.
func (s *sentinel) diskHasPass(masters []string, pass string) bool {
	for _, name := range masters {
		if m, ok := diskMaster(s.disk, name); !ok || m.AuthPass != pass {
			return false
		}
	}
	return true
}
