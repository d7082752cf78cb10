package sim

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// Errors carried by LinkClosed events.
var (
	// ErrRefused is the LinkClosed error when nothing listens at the address.
	ErrRefused = errors.New("sim: connection refused")
	// ErrTimeout is the LinkClosed error when a partition blocks a dial.
	ErrTimeout = errors.New("sim: connect timeout")
	// ErrReset is the LinkClosed error of a reset or killed connection.
	ErrReset = errors.New("sim: connection reset by peer")
)

// Directions of traffic on a connection.
const (
	up   = 0 // client (dialing sentinel) → server
	down = 1 // server → client
)

// connectTimeout is how long a dial across a partition hangs before
// failing; synRetry is how often the SYN is retransmitted meanwhile (a
// partition healing within the timeout lets the dial succeed).
const (
	connectTimeout = 1000
	synRetry       = 200
)

// conn is one TCP connection dialed by a sentinel, seen from both ends.
type conn struct {
	owner    *sentinel
	ownerInc int // owner's incarnation when it dialed
	link     core.LinkID
	cid      core.ConnID
	typ      core.ConnType
	target   int // node id of the server end

	established bool
	closed      bool

	// Server-side client state.
	name       string
	subscribed bool
	authed     bool
	channels   []string
	multi      bool
	multiErr   bool
	queued     [][]string

	// In-order delivery per direction: the latest scheduled delivery time,
	// and messages held back by a partition.
	last [2]int64
	held [2][]func()

	// Replies of a sentinel server are released in request order.
	slots []*slot
}

// slot is a reply owed by a sentinel server on a connection.
type slot struct {
	tag  core.Tag
	done bool
	val  core.Value
}

// from and to return the node ids of the two ends for a direction.
func (c *conn) ends(dir int) (from, to int) {
	if dir == up {
		return c.owner.node, c.target
	}
	return c.target, c.owner.node
}

// latency draws a one-way latency.
func (w *World) latency() int64 {
	o := w.opt
	return o.LatencyMin + w.rng.Int64N(o.LatencyMax-o.LatencyMin+1)
}

// transmit sends fn over c in direction dir: delivered in order after a
// latency, held while a partition blocks the direction, dropped if the
// connection closes first.
func (w *World) transmit(c *conn, dir int, fn func()) {
	if c.closed {
		return
	}
	from, to := c.ends(dir)
	if w.blocked[from][to] || len(c.held[dir]) > 0 {
		c.held[dir] = append(c.held[dir], fn)
		return
	}
	t := w.sch.now + w.latency()
	if t < c.last[dir] {
		t = c.last[dir]
	}
	c.last[dir] = t
	w.sch.at(t, func() {
		if !c.closed {
			fn()
		}
	})
}

// releaseHeld reschedules messages held by partitions that have healed.
func (w *World) releaseHeld() {
	for _, c := range w.conns {
		for dir := up; dir <= down; dir++ {
			from, to := c.ends(dir)
			if len(c.held[dir]) == 0 || w.blocked[from][to] {
				continue
			}
			held := c.held[dir]
			c.held[dir] = nil
			for _, fn := range held {
				w.transmit(c, dir, fn)
			}
		}
	}
}

// lookup finds the node a designates: by hostname when it has one (a
// name identifies a data node wherever it moved), else by IP.
func (w *World) lookup(a core.Addr) int {
	a = normName(a)
	if isName(a.Host) {
		for _, in := range w.inst {
			if strings.EqualFold(in.addr.Host, a.Host) && in.addr.Port == a.Port {
				return in.id
			}
		}
	}
	host := a.IP
	if host == "" {
		host = a.Host
	}
	for _, in := range w.inst {
		if in.addr.IP == host && in.addr.Port == a.Port {
			return in.id
		}
	}
	for _, s := range w.sent {
		// Behind a NAT (announce.go) only the announced address leads
		// to the sentinel.
		if s.pub.IP == host && s.pub.Port == a.Port {
			return s.node
		}
	}
	return -1
}

// nodeUp reports whether the process of node id is running (a paused
// process still completes TCP handshakes in the kernel).
func (w *World) nodeUp(id int) bool {
	if id < len(w.inst) {
		return w.inst[id].up
	}
	return w.sent[id-len(w.inst)].up
}

// dial executes a Connect effect of s.
func (w *World) dial(s *sentinel, e core.Connect) {
	w.announcedDial(s, e) // N1
	c := &conn{owner: s, ownerInc: s.inc, link: e.Link, cid: e.Conn, typ: e.Type, target: w.dialTarget(e.Addr)}
	w.conns = append(w.conns, c)
	s.conns[e.Conn] = c
	fail := func(d int64, err error) {
		w.sch.after(d, func() {
			if c.closed {
				return
			}
			w.dropConn(c)
			w.toSentinel(s, c.ownerInc, core.LinkClosed{Link: c.link, Conn: c.cid, Err: err})
		})
	}
	if c.target < 0 {
		fail(w.latency(), ErrRefused)
		return
	}
	start := w.sch.now
	var attempt func()
	attempt = func() {
		if c.closed {
			return
		}
		switch {
		case w.blocked[s.node][c.target] || w.blocked[c.target][s.node] || w.noDial[s.node][c.target] > 0:
			// SYN lost: retransmitted until the connect timeout.
			if w.sch.now-start >= connectTimeout {
				fail(0, ErrTimeout)
				return
			}
			w.sch.after(synRetry, attempt)
		case !w.nodeUp(c.target):
			fail(0, ErrRefused)
		default:
			c.established = true
			w.toSentinel(s, c.ownerInc, core.LinkConnected{Link: c.link, Conn: c.cid, LocalIP: s.addr.IP})
		}
	}
	w.sch.after(2*w.latency(), attempt)
}

// dropConn forgets a connection at both ends without notifying anyone.
func (w *World) dropConn(c *conn) {
	if c.closed {
		return
	}
	c.closed = true
	c.held = [2][]func(){}
	if c.owner.conns[c.cid] == c {
		delete(c.owner.conns, c.cid)
	}
	for i, x := range w.conns {
		if x == c {
			w.conns = append(w.conns[:i], w.conns[i+1:]...)
			break
		}
	}
}

// resetConn closes c at both ends; the dialing sentinel sees LinkClosed.
func (w *World) resetConn(c *conn) {
	if c.closed {
		return
	}
	w.dropConn(c)
	if c.target >= 0 { // -1: a dial to nowhere (an old IP, a name that does not resolve) not failed yet
		w.netDisturbed[c.target] = w.sch.now
	}
	w.netDisturbed[c.owner.node] = w.sch.now
	s, inc := c.owner, c.ownerInc
	w.sch.after(w.latency(), func() {
		w.toSentinel(s, inc, core.LinkClosed{Link: c.link, Conn: c.cid, Err: ErrReset})
	})
}

// resetConnsOf resets every connection with node id at either end.
func (w *World) resetConnsOf(id int) {
	for _, c := range append([]*conn(nil), w.conns...) {
		if c.target == id || c.owner.node == id {
			w.resetConn(c)
		}
	}
}

// send executes a Send effect of s.
func (w *World) send(s *sentinel, e core.Send) {
	c := s.conns[e.Conn]
	if c == nil || !c.established {
		return // closed under the core's feet: its LinkClosed is on the way
	}
	args := append([]string(nil), e.Args...)
	w.transmit(c, up, func() { w.serve(c, e.Tag, args) })
}

// serve handles a request arriving at the server end of c.
func (w *World) serve(c *conn, tag core.Tag, args []string) {
	if c.target < len(w.inst) {
		in := w.inst[c.target]
		if !in.up {
			return
		}
		if in.paused {
			in.backlog = append(in.backlog, func() { w.serve(c, tag, args) })
			return
		}
		args, ok := w.renameIn(args)
		if !ok {
			w.reply(c, tag, core.ErrorValue(fmt.Sprintf("ERR unknown command '%s', with args beginning with: ", args[0])))
			return
		}
		if in.passwords != nil && !c.authed && !strings.EqualFold(args[0], "AUTH") {
			w.reply(c, tag, core.ErrorValue("NOAUTH Authentication required."))
			return
		}
		v := w.execute(in, c, args)
		w.reply(c, tag, v)
		return
	}
	w.serveSentinel(w.sent[c.target-len(w.inst)], c, tag, args)
}

// reply sends a reply from the server end of c back to the dialer.
func (w *World) reply(c *conn, tag core.Tag, v core.Value) {
	s, inc := c.owner, c.ownerInc
	w.transmit(c, down, func() {
		w.toSentinel(s, inc, core.Reply{Link: c.link, Conn: c.cid, Tag: tag, Value: v})
	})
}

// publish delivers a message to the subscribers of in, then (as redis does
// for PUBLISH outside cluster mode) to the subscribers of its linked
// replicas. It returns the number of receivers on in itself.
func (w *World) publish(in *instance, channel, payload string, depth int) int {
	n := 0
	for _, c := range w.conns {
		if c.target != in.id || !c.subscribed || !hasChannel(c.channels, channel) {
			continue
		}
		n++
		s, inc, cc := c.owner, c.ownerInc, c
		w.transmit(c, down, func() {
			w.toSentinel(s, inc, core.Message{Link: cc.link, Conn: cc.cid, Channel: channel, Payload: payload})
		})
	}
	if depth < len(w.inst) {
		for _, r := range w.inst {
			if r.up && !r.paused && r.linkUp && r.isReplicaOf(in.addr) {
				w.publish(r, channel, payload, depth+1)
			}
		}
	}
	return n
}

func hasChannel(chs []string, ch string) bool {
	for _, x := range chs {
		if x == ch {
			return true
		}
	}
	return false
}

// killClients implements CLIENT KILL TYPE normal|pubsub (SKIPME yes).
func (w *World) killClients(in *instance, self *conn, pubsub bool) int {
	n := 0
	for _, c := range append([]*conn(nil), w.conns...) {
		if c == self || c.target != in.id || !c.established || c.subscribed != pubsub {
			continue
		}
		n++
		w.resetConn(c)
	}
	return n
}
