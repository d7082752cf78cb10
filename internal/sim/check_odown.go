package sim

import (
	"strconv"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// The truth half of S5's ODOWN rule: when a sentinel declares +odown, at
// least quorum sentinels (itself included) must really have said the
// master is down, recently. The simulator sees every IS-MASTER-DOWN-BY-ADDR
// reply leave a peer and reach the asker, so it can count the reports the
// asker had at that moment.

// replyKey identifies a reply in flight to an asker's incarnation.
type replyKey struct {
	asker int
	inc   int
	conn  core.ConnID
	tag   core.Tag
}

// downReply is an IS-MASTER-DOWN-BY-ADDR answer in flight.
type downReply struct {
	responder int
	master    string
	addr      string // the master address asked about
	down      bool
	ident     int // the responder's identity when it answered
}

// downKey names what an asker last heard from a responder about a master.
type downKey struct {
	asker, responder int
	master           string
}

// downSeen is when (asker's local clock) that answer was processed.
type downSeen struct {
	at    int64
	down  bool
	addr  string
	ident int
	conn  core.ConnID // the asker's connection it came on
}

// noteDownReply registers a reply of responder p to an IS-MASTER-DOWN-BY-ADDR
// request that arrived on c.
func (c *checker) noteDownReply(w *World, p *sentinel, r reqRoute, v core.Value) {
	if r.c == nil || len(r.args) != 6 || !strings.EqualFold(r.args[1], "is-master-down-by-addr") ||
		v.Kind != core.KindArray || len(v.Elems) != 3 || v.Elems[0].Kind != core.KindInt {
		return
	}
	port, _ := strconv.Atoi(r.args[3])
	name := w.masterAt(core.Addr{IP: r.args[2], Port: port})
	if name == "" {
		return
	}
	if c.inflight == nil {
		c.inflight = map[replyKey]downReply{}
		c.heard = map[downKey]downSeen{}
	}
	k := replyKey{r.c.owner.id, r.c.ownerInc, r.c.cid, r.s.tag}
	c.inflight[k] = downReply{responder: p.id, master: name, addr: textKey(r.args[2], r.args[3]), down: v.Elems[0].Int == 1, ident: p.ident()}
}

// heardReply records that asker s processes a reply (called before Step).
func (c *checker) heardReply(s *sentinel, e core.Reply, local int64) {
	k := replyKey{s.id, s.inc, e.Conn, e.Tag}
	d, ok := c.inflight[k]
	if !ok {
		return
	}
	delete(c.inflight, k)
	c.heard[downKey{s.id, d.responder, d.master}] = downSeen{at: local, down: d.down, addr: d.addr, ident: d.ident, conn: e.Conn}
}

// forgetHeardOf drops what s had heard from its peers about master name,
// and the answers still in flight to it, at its +reset-master: SENTINEL
// RESET releases the peer objects, whose answers go with them, and the
// core ignores replies to requests of a released object (reply.go).
// Peers rediscovered from their hellos share the links of other masters'
// peer objects, so the connection alone does not tell.
func (c *checker) forgetHeardOf(s *sentinel, name string) {
	for k := range c.heard {
		if k.asker == s.id && k.master == name {
			delete(c.heard, k)
		}
	}
	for k, d := range c.inflight {
		if k.asker == s.id && d.master == name {
			delete(c.inflight, k)
		}
	}
}

// forgetHeard drops what a crashed sentinel had heard.
func (c *checker) forgetHeard(s *sentinel) {
	for k := range c.heard {
		if k.asker == s.id {
			delete(c.heard, k)
		}
	}
}

// odownTruth checks a +odown of master name by s against the reports it
// really had: itself plus peers whose last answer said down and is at most
// 5×ask-period old (sentinel.c forgets older answers; one tick of slack,
// since it forgets them after the ODOWN check of the same tick). Skipped
// for a sentinel whose clock jumped recently (ages in its clock are then
// not comparable).
func (c *checker) odownTruth(w *World, s *sentinel, name string, now int64) {
	o := c.opt
	if w.sch.now-s.lastJump < 10*o.Timing.AskPeriod+o.TiltTriggerSlack() {
		return
	}
	win := 5*o.Timing.AskPeriod + o.TickMax
	n := 1
	for k, d := range c.heard {
		if k.asker == s.id && k.master == name && d.down && now-d.at <= win {
			n++
		}
	}
	if n < o.Quorum {
		w.violate("S5", s, "+odown for %s with %d fresh down reports (itself included), quorum is %d", name, n, o.Quorum)
	}
}

// TiltTriggerSlack is the extra slack after a clock jump (one TILT trigger).
func (o Options) TiltTriggerSlack() int64 { return o.Timing.TiltTrigger }
