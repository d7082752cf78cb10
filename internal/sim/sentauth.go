package sim

import (
	"strconv"

	"github.com/gosentinel/gosentinel/internal/core"
)

// Sentinel-to-sentinel AUTH (Options.SentinelAuth): every sentinel has a
// requirepass (the passwords its server accepts, sentAccepted, the same on
// all of them) and a sentinel-pass it sends to its peers (in its config
// file). Two operator fault kinds: a rotation (add the new password to
// every sentinel's accepted list, SENTINEL CONFIG SET sentinel-pass on each
// — which drops its peer connections — and remove the old one once every
// config file holds the new one), and a wrong sentinel-pass given to one
// sentinel for a while (its peers then answer NOAUTH: it sees them down,
// gets no votes, but still serves them). At the heal every sentinel is
// set back to the current password.

// sentinelPassword is the sentinels' password of generation g.
func sentinelPassword(g int) string { return "spw-" + strconv.Itoa(g) }

// sentAuthReply answers AUTH on a sentinel's server, or reports that a
// command needs AUTH first (ok false with the NOAUTH error).
func (w *World) sentAuthReply(c *conn, args []string, cmd string) (core.Value, bool) {
	if cmd == "AUTH" {
		pass := ""
		if len(args) > 1 {
			pass = args[len(args)-1]
		}
		for _, p := range w.sentAccepted {
			if p == pass {
				c.authed = true
				return core.Status("OK"), false
			}
		}
		return core.ErrorValue("WRONGPASS invalid username-password pair or user is disabled."), false
	}
	if !c.authed {
		return core.ErrorValue("NOAUTH Authentication required."), false
	}
	return core.Value{}, true
}

// rotateSentinelPassword starts a rotation of the sentinels' password.
func (w *World) rotateSentinelPassword() {
	if !w.opt.SentinelAuth || w.sentRotating {
		return
	}
	w.sentRotating = true
	w.sentGen++
	next := sentinelPassword(w.sentGen)
	w.tracef("fault: operator adds sentinel password %s on every sentinel", next)
	w.sentAccepted = append(w.sentAccepted, next)
	for k := range w.sentWant {
		w.sentWant[k] = next
	}
	w.pushSentinelPass()
}

// wrongSentinelPass gives one sentinel a wrong sentinel-pass for a while.
func (w *World) wrongSentinelPass(f Fault) {
	if !w.opt.SentinelAuth {
		return
	}
	s := w.sent[f.n(0, len(w.sent))]
	d := 500 + f.n64(1, 3*w.opt.DownAfter)
	bad := "wrong-" + strconv.Itoa(f.n(2, 1000))
	w.tracef("fault: operator sets sentinel-pass %s on sentinel %d for %dms", bad, s.id, d)
	w.sentWant[s.id] = bad
	w.pushSentinelPass()
	w.sch.after(d, func() {
		if w.sentWant[s.id] == bad {
			w.tracef("operator: sentinel %d gets the right sentinel-pass again", s.id)
			w.sentWant[s.id] = sentinelPassword(w.sentGen)
			w.pushSentinelPass()
		}
	})
}

// restoreSentinelPass is the heal: every sentinel gets the current password.
func (w *World) restoreSentinelPass() {
	if !w.opt.SentinelAuth {
		return
	}
	for k := range w.sentWant {
		w.sentWant[k] = sentinelPassword(w.sentGen)
	}
	w.pushSentinelPass()
}

// pushSentinelPass sends SENTINEL CONFIG SET sentinel-pass to every
// running sentinel whose config file does not hold the password it should
// have, every 500 ms until all do; a rotation then removes the old
// password.
func (w *World) pushSentinelPass() {
	if w.sentPushing {
		return
	}
	w.sentPushing = true
	w.sentPush()
}

func (w *World) sentPush() {
	missing := 0
	for _, s := range w.sent {
		want := w.sentWant[s.id]
		if s.disk.SentinelPass == want {
			continue
		}
		missing++
		if !s.up || s.opPending {
			continue
		}
		args := []string{"SENTINEL", "CONFIG", "SET", "sentinel-pass", want}
		s.nextReq++
		s.reqs[s.nextReq] = reqRoute{args: args, at: w.sch.now, operator: true}
		s.opPending = true
		s.opOutstanding++
		w.toSentinel(s, s.inc, core.Request{ID: s.nextReq, Client: 1003, Args: args})
	}
	if missing == 0 {
		w.sentPushing = false
		if w.sentRotating {
			cur := sentinelPassword(w.sentGen)
			w.tracef("operator: every sentinel has %s; old sentinel passwords removed", cur)
			w.sentAccepted = []string{cur}
			w.sentRotating = false
		}
		return
	}
	w.sch.after(500, w.sentPush)
}
