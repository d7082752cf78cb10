package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// ErrDiskFull is the PersistDone error of an injected config write failure.
var ErrDiskFull = errors.New("sim: config write failed (injected)")

// sentinel is one simulated gosentinel process: a core, its config file
// and its connections.
type sentinel struct {
	id   int // 0..N-1
	node int // node id (after the instances)
	addr core.Addr
	// pub is the address its peers reach it at: addr, or the announced
	// address behind a NAT (announce.go).
	pub core.Addr

	up   bool
	inc  int // incarnation: bumped by every crash, stale events are dropped
	core *core.Sentinel

	disk       core.State // the config file: last completed Persist
	diskFailTo int64      // config writes fail until this time

	conns   map[core.ConnID]*conn // connections this sentinel dialed
	dead    map[core.ConnID]bool  // connections the core closed or was told are closed
	reqs    map[uint64]reqRoute   // requests handed to the core, by ID
	nextReq uint64

	stallTo  int64        // process stalled (timer late) until this time
	inbox    []core.Event // events that arrived during a stall
	clockOff int64        // local clock = virtual time + clockOff
	lastJump int64        // virtual time of the last clock jump (S5 truth check skips it)
	// backShadow is the virtual time until which backward clock jumps can
	// make what the sentinel received before them look fresh (ages are
	// short by the jump): S6 does not judge its view of the replicas before.
	backShadow int64
	lastTick   int64 // local time of the last Tick

	startedAt int64      // virtual time of the last start
	template  core.State // the config file the operator provisioned (a lost file is replaced by it)
	losses    int        // config files lost: each gives a new identity
	opPending bool       // an operator's SENTINEL SET is not answered yet
	// opOutstanding counts the operator requests not answered yet (a
	// password rotation sends one SENTINEL SET per master, and the first
	// reply clears opPending): what O1's "+reset-master without a
	// SENTINEL RESET" check needs. opPending keeps gating the faults, so
	// every seed's course is unchanged.
	opOutstanding int
	chk           sentinelCheck         // invariant bookkeeping
	truth         truth                 // what this incarnation sent and received (check_rules.go)
	scripts       map[uint64]*simScript // script processes of this incarnation, by job id
}

// reqRoute says where the Respond of a Request goes.
type reqRoute struct {
	c    *conn
	s    *slot
	args []string
	at   int64 // virtual time the request reached the core
	// operator: the request of an operator's client (SENTINEL RESET),
	// not the liveness driver's SENTINEL FAILOVER.
	operator bool
}

func (s *sentinel) local(now int64) int64 { return now + s.clockOff }

// newCore builds a core from the sentinel's config file.
func (w *World) newCore(s *sentinel) error {
	cfg := core.Config{State: cloneState(s.disk), Port: s.addr.Port, Timing: w.opt.Timing}
	if w.opt.Hostnames {
		cfg.ResolveIP = w.resolve // as the runtime does with resolve-hostnames yes
	}
	rng := rand.New(rand.NewPCG(w.opt.Seed, uint64(s.id)<<32|uint64(s.inc)))
	c, err := core.New(cfg, rng)
	if err != nil {
		return fmt.Errorf("sentinel %d: %w", s.id, err)
	}
	s.core = c
	return nil
}

// startSentinel (re)starts the process of s from its config file.
func (w *World) startSentinel(s *sentinel) {
	s.inc++
	s.up = true
	s.conns = map[core.ConnID]*conn{}
	s.dead = map[core.ConnID]bool{}
	s.reqs = map[uint64]reqRoute{}
	s.opPending = false
	s.opOutstanding = 0
	s.inbox = nil
	s.stallTo = 0
	s.startedAt = w.sch.now
	if err := w.newCore(s); err != nil {
		w.violate("BOOT", s, "%v", err)
		s.up = false
		return
	}
	w.chk.restarted(w, s)
	s.truth = newTruth(s.local(w.sch.now), w.sch.now)
	s.scripts = nil
	w.tracef("sentinel %d starts (incarnation %d, epoch on disk %d)", s.id, s.inc, s.disk.CurrentEpoch)
	s.lastTick = s.local(w.sch.now)
	w.step(s, core.Tick{})
	w.scheduleTick(s)
}

// crashSentinel kills s: in-flight persists and every connection are lost.
func (w *World) crashSentinel(s *sentinel) {
	if !s.up {
		return
	}
	w.tracef("sentinel %d crashes", s.id)
	w.chk.crashed(w, s)
	s.up = false
	s.core = nil
	s.inc++
	w.resetConnsOf(s.node)
}

// scheduleTick arms the next timer event of s.
func (w *World) scheduleTick(s *sentinel) {
	inc := s.inc
	d := w.opt.TickMin + w.rng.Int64N(w.opt.TickMax-w.opt.TickMin+1)
	if w.opt.DeadlineTicks && s.core != nil {
		now := s.local(w.sch.now)
		d = min(d, max(s.core.NextDeadline(now)-now, 1))
	}
	w.sch.after(d, func() {
		if s.inc != inc || !s.up {
			return
		}
		w.toSentinel(s, inc, core.Tick{})
		w.scheduleTick(s)
	})
}

// toSentinel delivers an event to incarnation inc of s.
func (w *World) toSentinel(s *sentinel, inc int, ev core.Event) {
	if s.inc != inc || !s.up {
		return
	}
	if w.sch.now < s.stallTo {
		if _, tick := ev.(core.Tick); !tick {
			s.inbox = append(s.inbox, ev)
		}
		return
	}
	w.step(s, ev)
}

// unstall delivers the events queued during a stall.
func (w *World) unstall(s *sentinel, inc int) {
	if s.inc != inc || !s.up {
		return
	}
	s.stallTo = 0
	w.step(s, core.Tick{})
	for len(s.inbox) > 0 && s.up && s.inc == inc {
		ev := s.inbox[0]
		s.inbox = s.inbox[1:]
		w.step(s, ev)
	}
}

// step feeds one event to the core of s, checks the invariants and
// executes the effects in order.
func (w *World) step(s *sentinel, ev core.Event) {
	now := s.local(w.sch.now)
	if _, ok := ev.(core.Tick); ok {
		s.lastTick = now
	}
	w.steps++
	switch e := ev.(type) {
	case core.LinkClosed:
		s.dead[e.Conn] = true
	case core.Reply:
		w.chk.heardReply(s, e, now)
	}
	w.chk.beforeRules(w, s, ev, now)
	changes := s.core.Changes()
	effects := s.core.Step(now, ev)
	if w.trace != nil {
		w.tracef("s%d <- %s", s.id, describeEvent(ev))
	}
	inc := s.inc
	// The step may have changed the master's config: a vote whose Persist
	// is coalesced and whose events are held shows in neither (late.go).
	full := s.core.Changes() != changes
	for _, e := range effects {
		if s.inc != inc || !s.up {
			return // an Exit effect crashed the process
		}
		switch e.(type) {
		case core.Emit, core.Persist:
			full = true
		}
		if w.trace != nil {
			w.tracef("s%d -> %s", s.id, describeEffect(e))
		}
		w.recordEffect(s, e, now)
		w.chk.effect(w, s, e)
		w.execEffect(s, e)
	}
	if s.up && s.inc == inc {
		w.chk.afterStep(w, s, full)
		w.chk.afterRules(w, s, ev, now)
		w.chk.recordStep(w, s, now)
	}
}

// execEffect runs one effect.
func (w *World) execEffect(s *sentinel, e core.Effect) {
	switch e := e.(type) {
	case core.Connect:
		w.dial(s, e)
	case core.Close:
		if c := s.conns[e.Conn]; c != nil {
			w.dropConn(c)
		}
	case core.Send:
		w.send(s, e)
	case core.Persist:
		w.persist(s, e)
	case core.Respond:
		if r, ok := s.reqs[e.ID]; ok {
			delete(s.reqs, e.ID)
			if r.operator {
				w.operatorReply(s, r, e.Value)
				return
			}
			if r.c == nil { // the liveness driver's own request
				v := e.Value
				w.live.manualReply = &v
				w.tracef("s%d answers SENTINEL FAILOVER: %s", s.id, describeValue(v))
				return
			}
			w.chk.noteDownReply(w, s, r, e.Value)
			r.s.done, r.s.val = true, e.Value
			w.flushSlots(r.c)
		}
	case core.RunScript:
		w.runScript(s, e)
	case core.KillScript:
		w.killScript(s, e)
	case core.Exit:
		w.crashSentinel(s)
		w.scheduleRestart(s)
	}
}

// persist writes a snapshot to the config file after a delay; a crash in
// between loses it; an injected disk failure reports an error.
func (w *World) persist(s *sentinel, e core.Persist) {
	inc := s.inc
	st := cloneState(e.State)
	d := w.opt.PersistMin + w.rng.Int64N(w.opt.PersistMax-w.opt.PersistMin+1)
	fail := w.sch.now < s.diskFailTo && w.rng.IntN(2) == 0
	w.sch.after(d, func() {
		if s.inc != inc || !s.up {
			return
		}
		if fail || w.sch.now < s.diskFailTo && w.rng.IntN(3) == 0 {
			w.toSentinel(s, inc, core.PersistDone{Seq: e.Seq, Err: ErrDiskFull})
			return
		}
		s.disk = st
		w.chk.persisted(w, s, st)
		w.toSentinel(s, inc, core.PersistDone{Seq: e.Seq})
	})
}

// serveSentinel handles a command arriving on a peer's connection to s.
func (w *World) serveSentinel(s *sentinel, c *conn, tag core.Tag, args []string) {
	if !s.up {
		return
	}
	sl := &slot{tag: tag}
	c.slots = append(c.slots, sl)
	cmd := ""
	if len(args) > 0 {
		cmd = strings.ToUpper(args[0])
	}
	if w.opt.SentinelAuth {
		if v, ok := w.sentAuthReply(c, args, cmd); !ok {
			sl.done, sl.val = true, v
			w.flushSlots(c)
			return
		}
	}
	switch cmd {
	case "PING":
		sl.done, sl.val = true, core.Status("PONG")
	case "CLIENT":
		sl.done, sl.val = true, core.Status("OK")
	case "AUTH":
		sl.done, sl.val = true, core.ErrorValue("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
	case "SENTINEL", "PUBLISH", "ROLE":
		s.nextReq++
		id := s.nextReq
		s.reqs[id] = reqRoute{c: c, s: sl, args: args, at: w.sch.now}
		w.toSentinel(s, s.inc, core.Request{ID: id, Client: uint64(c.owner.id), Args: args})
		return
	default:
		sl.done, sl.val = true, core.ErrorValue(fmt.Sprintf("ERR unknown command '%s', with args beginning with: ", cmd))
	}
	w.flushSlots(c)
}

// flushSlots sends the replies that are ready, in request order.
func (w *World) flushSlots(c *conn) {
	for len(c.slots) > 0 && c.slots[0].done {
		sl := c.slots[0]
		c.slots = c.slots[1:]
		w.reply(c, sl.tag, sl.val)
	}
}

// scheduleRestart brings s back after a while.
func (w *World) scheduleRestart(s *sentinel) {
	w.restartAfter(s, 200+w.rng.Int64N(3*w.opt.DownAfter))
}

// restartAfter brings s back after d ms.
func (w *World) restartAfter(s *sentinel, d int64) {
	inc := s.inc
	w.sch.after(d, func() {
		if !s.up && s.inc == inc {
			w.startSentinel(s)
		}
	})
}

// cloneState deep-copies a core.State so later mutations by the core
// cannot change what the simulator recorded.
func cloneState(st core.State) core.State {
	out := st
	out.Masters = make([]core.MasterConfig, len(st.Masters))
	for i, m := range st.Masters {
		m.RenameCommands = append([]core.Rename(nil), m.RenameCommands...)
		m.KnownReplicas = append([]core.Addr(nil), m.KnownReplicas...)
		m.KnownSentinels = append([]core.KnownSentinel(nil), m.KnownSentinels...)
		out.Masters[i] = m
	}
	return out
}

// ident is the identity of s for per-sentinel records (votes): a lost
// config file makes a new sentinel at the same address.
func (s *sentinel) ident() int { return s.id + 1000*s.losses }
