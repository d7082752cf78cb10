package core

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// world is a tiny deterministic environment for scenario tests: fake Redis
// instances that understand the commands Sentinel sends, several cores
// wired to them and to each other, and one virtual clock. It is not the
// simulator (internal/sim); it only exists so scenario files can tell
// classic stories in a few lines.
type world struct {
	t      testing.TB
	now    Millis
	redis  map[string]*fakeRedis // by "ip:port"
	rnames map[string]*fakeRedis // by test name
	sents  []*tsent
	queue  []delivery
	nextID uint64
	reqs   map[uint64]reqOrigin
	out    []string
	filter map[string]bool // event types to hide
	// latency delays every delivery (replies, messages, connects).
	latency Millis
	// showAll prints debug/verbose events too.
	showAll bool
	// deadlines also ticks each sentinel at its NextDeadline, and delivers
	// delayed events at their own instant, as the runtime does (directive
	// "deadlines on"); otherwise everything happens on the 100 ms grid.
	deadlines bool
	// traced logs the commands sent to a Redis (directive "trace"): redis
	// name → upper-case command names.
	traced map[string]map[string]bool
	// dns maps the hostnames of fake Redis instances (host=) to their IP.
	dns map[string]string
	// logs prints Log effects too ("show log").
	logs bool
	// diskLatency is the time a Persist takes ("disk ms=N"; default 0).
	diskLatency Millis
}

type tsent struct {
	name     string
	port     int
	core     *Sentinel
	cfg      Config
	disk     State
	hasDisk  bool
	crashed  bool
	stallTo  Millis
	failNext bool // fail the next Persist
	// pub is the announced "ip:port" of a sentinel behind a NAT (directive
	// announce=): its own 127.0.0.1:port is then unreachable.
	pub     string
	failAll bool // fail every Persist (a read-only config directory)
	// passwords are the sentinel's requirepass values (nil: no AUTH).
	passwords []string
	seed      uint64
	wakeAt    Millis // NextDeadline after its last Tick (deadlines on)
	conns     map[ConnID]*fconn
	// written holds Persist snapshots until their PersistDone; durable is
	// the last one reported done without error.
	written map[uint64]State
	durable State
}

type fconn struct {
	s      *tsent
	id     ConnID
	link   LinkID
	typ    ConnType
	target string // "ip:port"
	up     bool
	multi  [][]string
	inTx   bool
	authed bool
}

type delivery struct {
	at Millis
	to *tsent
	ev Event
}

type reqOrigin struct {
	client bool
	from   *tsent
	link   LinkID
	conn   ConnID
	tag    Tag
}

type fakeRedis struct {
	// renamed maps a rename-command name (upper case) to the original;
	// hidden holds the originals that were renamed away.
	renamed   map[string]string
	hidden    map[string]bool
	passwords []string // requirepass / ACL passwords (nil: none)
	// denied holds the commands (upper case) the sentinels' ACL user may
	// not run: they answer -NOPERM as redis 7.0 does.
	denied    map[string]bool
	name      string
	ip        string
	host      string // hostname (replica-announce-ip), "" for none
	port      int
	runid     string
	master    bool
	ofHost    string
	ofPort    int
	priority  int
	offset    int64
	up        bool
	paused    bool
	downSince Millis
}

func (r *fakeRedis) addr() string { return r.ip + ":" + strconv.Itoa(r.port) }

// announced is the address r announces: its hostname if it has one.
func (r *fakeRedis) announced() string {
	if r.host != "" {
		return r.host
	}
	return r.ip
}

// isAt reports whether host (an IP or a name) designates r.
func (r *fakeRedis) isAt(host string) bool {
	return host == r.ip || (r.host != "" && strings.EqualFold(host, r.host))
}

func newWorld(t testing.TB) *world {
	return &world{t: t, redis: map[string]*fakeRedis{}, rnames: map[string]*fakeRedis{},
		reqs: map[uint64]reqOrigin{}, filter: map[string]bool{}, dns: map[string]string{}}
}

func (w *world) logf(format string, args ...any) {
	w.out = append(w.out, fmt.Sprintf("%d.%03d ", w.now/1000, w.now%1000)+fmt.Sprintf(format, args...))
}

func (w *world) sentinelByName(name string) *tsent {
	for _, s := range w.sents {
		if s.name == name {
			return s
		}
	}
	w.t.Fatalf("no sentinel %q", name)
	return nil
}

func (w *world) sentinelByAddr(addr string) *tsent {
	for _, s := range w.sents {
		if s.pub != "" { // behind a NAT: only the announced address leads to it
			if s.pub == addr {
				return s
			}
			continue
		}
		if "127.0.0.1:"+strconv.Itoa(s.port) == addr {
			return s
		}
	}
	return nil
}

func (w *world) addRedis(name string, port int) *fakeRedis {
	r := &fakeRedis{name: name, ip: "127.0.0.1", port: port, master: true, priority: 100, up: true,
		runid: fmt.Sprintf("%040x", 0xabc000+port)}
	w.redis[r.addr()] = r
	w.rnames[name] = r
	return r
}

func (w *world) addSentinel(name string, port int, cfg Config) *tsent {
	s := &tsent{name: name, port: port, cfg: cfg, seed: uint64(port), conns: map[ConnID]*fconn{}}
	w.sents = append(w.sents, s)
	w.boot(s, cfg)
	return s
}

func (w *world) boot(s *tsent, cfg Config) {
	c, err := New(cfg, rand.New(rand.NewPCG(s.seed, 7)))
	if err != nil {
		w.t.Fatalf("New(%s): %v", s.name, err)
	}
	s.core = c
	s.crashed = false
	s.written = map[uint64]State{}
	s.conns = map[ConnID]*fconn{}
	w.step(s, Tick{})
}

// step feeds one event to a sentinel and executes its effects.
func (w *world) step(s *tsent, ev Event) {
	if s.crashed {
		return
	}
	if pd, ok := ev.(PersistDone); ok && pd.Err == nil {
		if st, ok := s.written[pd.Seq]; ok {
			s.durable = st
		}
	}
	for _, e := range s.core.Step(w.now, ev) {
		w.checkDurable(s, e)
		w.exec(s, e)
	}
}

// enqueue schedules an event for a sentinel after the network latency.
// The queue stays sorted by delivery time (stable for equal times).
func (w *world) enqueue(to *tsent, ev Event) {
	d := delivery{at: w.now + w.latency, to: to, ev: ev}
	k := len(w.queue)
	for k > 0 && w.queue[k-1].at > d.at {
		k--
	}
	w.queue = append(w.queue, delivery{})
	copy(w.queue[k+1:], w.queue[k:])
	w.queue[k] = d
}

// drain delivers the queued events that are due, in order; events for a
// stalled sentinel wait.
func (w *world) drain() {
	for n := 0; ; n++ {
		if n > 100000 {
			w.t.Fatalf("event storm")
		}
		k := -1
		for j, d := range w.queue {
			if d.at > w.now {
				break
			}
			if d.to.stallTo <= w.now {
				k = j
				break
			}
		}
		if k < 0 {
			return
		}
		d := w.queue[k]
		w.queue = append(w.queue[:k], w.queue[k+1:]...)
		w.step(d.to, d.ev)
	}
}

// run advances the clock by d in 100 ms ticks (and, with deadlines on,
// to every deadline and delivery in between).
func (w *world) run(d Millis) {
	end := w.now + d
	for w.now < end {
		grid := w.now + 100
		if w.deadlines {
			w.runBetween(grid)
		}
		w.now = grid
		for _, s := range w.sents {
			if s.stallTo > w.now || s.crashed {
				continue
			}
			w.tick(s)
			w.drain()
		}
		w.drain()
	}
}

// tick feeds a Tick and, like the runtime, reads the next deadline.
func (w *world) tick(s *tsent) {
	w.step(s, Tick{})
	if w.deadlines && !s.crashed {
		s.wakeAt = s.core.NextDeadline(w.now)
	}
}

// runBetween handles, strictly before until, every sentinel deadline and
// delayed delivery at its own instant.
func (w *world) runBetween(until Millis) {
	for {
		at, who := until, (*tsent)(nil)
		for _, s := range w.sents {
			if !s.crashed && s.stallTo <= w.now && s.wakeAt > w.now && s.wakeAt < at {
				at, who = s.wakeAt, s
			}
		}
		for _, q := range w.queue {
			if q.at > w.now {
				if q.at < at {
					at, who = q.at, nil
				}
				break
			}
		}
		if at >= until {
			return
		}
		w.now = at
		if who != nil {
			w.tick(who)
		}
		w.drain()
	}
}

func (w *world) exec(s *tsent, e Effect) {
	switch e := e.(type) {
	case Connect:
		ip := e.Addr.IP
		if ip == "" {
			ip = w.dns[e.Addr.Host] // as the runtime does: dial the name
		}
		addr := ip + ":" + strconv.Itoa(e.Addr.Port)
		c := &fconn{s: s, id: e.Conn, link: e.Link, typ: e.Type, target: addr}
		s.conns[e.Conn] = c
		if r := w.redis[addr]; r != nil && r.up {
			c.up = true
			w.enqueue(s, LinkConnected{Link: e.Link, Conn: e.Conn, LocalIP: "127.0.0.1"})
		} else if p := w.sentinelByAddr(addr); p != nil && !p.crashed {
			c.up = true
			w.enqueue(s, LinkConnected{Link: e.Link, Conn: e.Conn, LocalIP: "127.0.0.1"})
		} else {
			delete(s.conns, e.Conn)
			w.enqueue(s, LinkClosed{Link: e.Link, Conn: e.Conn, Err: errors.New("connection refused")})
		}
	case Close:
		delete(s.conns, e.Conn)
	case Send:
		c := s.conns[e.Conn]
		if c == nil || !c.up {
			return
		}
		if r := w.redis[c.target]; r != nil && len(e.Args) > 0 && w.traced[r.name][strings.ToUpper(e.Args[0])] {
			w.logf("%s sends %s to %s", s.name, strings.ToUpper(e.Args[0]), r.name)
		}
		w.deliverSend(s, c, e)
	case Emit:
		if err := emitFieldsAgree(e); err != nil {
			w.t.Errorf("%s: %v", s.name, err)
		}
		if w.filter[e.Type] || (!w.showAll && (e.Level == LevelDebug || e.Level == LevelVerbose)) {
			return
		}
		if e.At != w.now {
			// Held until its Persist (event.go): show when it happened.
			w.logf("%s %s %s (at %d.%03d)", s.name, e.Type, e.Msg, e.At/1000, e.At%1000)
			return
		}
		w.logf("%s %s %s", s.name, e.Type, e.Msg)
	case Log:
		if w.logs {
			w.logf("%s log %s", s.name, e.Msg)
		}
	case Persist:
		var err error
		if s.failNext || s.failAll {
			s.failNext = false
			err = errors.New("disk full")
			w.logf("%s persist #%d FAILED", s.name, e.Seq)
		} else {
			s.disk = e.State
			s.hasDisk = true
			s.written[e.Seq] = e.State
		}
		// The disk is local: no network latency, only its own.
		lat := w.latency
		w.latency = w.diskLatency
		w.enqueue(s, PersistDone{Seq: e.Seq, Err: err})
		w.latency = lat
	case Respond:
		o, ok := w.reqs[e.ID]
		if !ok {
			w.t.Fatalf("respond to unknown request %d", e.ID)
		}
		delete(w.reqs, e.ID)
		if o.client {
			w.logf("%s reply %s", s.name, renderValue(e.Value))
			return
		}
		if c := o.from.conns[o.conn]; c != nil && c.up {
			w.enqueue(o.from, Reply{Link: o.link, Conn: o.conn, Tag: o.tag, Value: e.Value})
		}
	case RunScript:
		w.logf("%s script %s %s", s.name, e.Path, strings.Join(e.Args, " "))
		// The script's name says how it behaves: .../exit1 and .../exit2
		// exit with that code, .../hang runs until killed, .../slow runs
		// for 1.5 s; anything else exits 0 at once.
		switch {
		case strings.HasSuffix(e.Path, "/exit1"):
			w.enqueue(s, ScriptDone{ID: e.ID, ExitCode: 1})
		case strings.HasSuffix(e.Path, "/exit2"):
			w.enqueue(s, ScriptDone{ID: e.ID, ExitCode: 2})
		case strings.HasSuffix(e.Path, "/hang"):
		case strings.HasSuffix(e.Path, "/slow"):
			lat := w.latency
			w.latency = 1500
			w.enqueue(s, ScriptDone{ID: e.ID})
			w.latency = lat
		default:
			w.enqueue(s, ScriptDone{ID: e.ID})
		}
	case KillScript:
		w.logf("%s kill script %d", s.name, e.ID)
		w.enqueue(s, ScriptDone{ID: e.ID, Signal: 9})
	case Exit:
		w.logf("%s EXIT %d", s.name, e.Code)
		w.crash(s)
	default:
		w.t.Fatalf("unknown effect %T", e)
	}
}

// checkDurable fails the test when an effect reveals an epoch or a vote
// that is not durable yet (invariant S8 / the persist-before-reveal
// contract of doc.go).
func (w *world) checkDurable(s *tsent, e Effect) {
	epoch := uint64(0)
	switch e := e.(type) {
	case Send:
		switch {
		case len(e.Args) == 6 && strings.EqualFold(e.Args[1], "is-master-down-by-addr"):
			epoch, _ = strconv.ParseUint(e.Args[4], 10, 64)
		case len(e.Args) == 3 && strings.EqualFold(e.Args[0], "PUBLISH"):
			if h, ok := parseHello(e.Args[2]); ok {
				epoch = h.epoch
			}
		}
	case Respond:
		v := e.Value
		if v.Kind == KindArray && len(v.Elems) == 3 && v.Elems[1].Kind == KindBulk && v.Elems[1].Str != "*" {
			epoch = uint64(v.Elems[2].Int)
			voted := false
			for _, m := range s.durable.Masters {
				if m.LeaderEpoch >= epoch {
					voted = true
				}
			}
			if !voted {
				w.t.Fatalf("%s: vote for epoch %d revealed before it is durable (t=%d)", s.name, epoch, w.now)
			}
		}
	}
	if epoch > s.durable.CurrentEpoch {
		w.t.Fatalf("%s: epoch %d revealed while durable epoch is %d (t=%d): %v", s.name, epoch, s.durable.CurrentEpoch, w.now, e)
	}
}

// crash stops a sentinel: its connections vanish.
func (w *world) crash(s *tsent) {
	s.crashed = true
	s.conns = map[ConnID]*fconn{}
	for _, o := range w.sents {
		for id, c := range o.conns {
			if c.target == "127.0.0.1:"+strconv.Itoa(s.port) {
				delete(o.conns, id)
				w.enqueue(o, LinkClosed{Link: c.link, Conn: id, Err: errors.New("EOF")})
			}
		}
	}
}

// restart boots a crashed sentinel from what it persisted.
func (w *world) restart(s *tsent) {
	cfg := s.cfg
	if s.hasDisk {
		cfg.State = s.disk
	}
	s.seed += 1000
	w.boot(s, cfg)
}

func (w *world) deliverSend(s *tsent, c *fconn, e Send) {
	if p := w.sentinelByAddr(c.target); p != nil {
		w.sendToSentinel(s, p, c, e)
		return
	}
	r := w.redis[c.target]
	if r == nil || !r.up || r.paused {
		return // hangs
	}
	reply := func(v Value) { w.enqueue(s, Reply{Link: c.link, Conn: c.id, Tag: e.Tag, Value: v}) }
	cmd := strings.ToUpper(e.Args[0])
	if orig, ok := r.renamed[cmd]; ok {
		cmd = orig
		e.Args = append([]string{orig}, e.Args[1:]...)
	} else if r.hidden[cmd] {
		w.logf("%s rejects renamed-away %s", r.name, cmd)
		reply(ErrorValue("ERR unknown command '" + e.Args[0] + "'"))
		return
	}
	if cmd == "AUTH" && r.passwords != nil {
		for _, p := range r.passwords {
			if e.Args[len(e.Args)-1] == p {
				c.authed = true
				reply(Status("OK"))
				return
			}
		}
		w.logf("%s rejects AUTH %s", r.name, e.Args[len(e.Args)-1])
		reply(ErrorValue("WRONGPASS invalid username-password pair or user is disabled."))
		return
	}
	if r.passwords != nil && !c.authed {
		reply(ErrorValue("NOAUTH Authentication required."))
		return
	}
	if c.inTx && cmd != "EXEC" {
		c.multi = append(c.multi, e.Args)
		reply(Status("QUEUED"))
		return
	}
	switch cmd {
	case "MULTI":
		c.inTx = true
		reply(Status("OK"))
	case "EXEC":
		c.inTx = false
		var res []Value
		for _, a := range c.multi {
			res = append(res, w.redisCmd(r, c, a))
		}
		c.multi = nil
		reply(Array(res...))
	default:
		reply(w.redisCmd(r, c, e.Args))
	}
}

func (w *world) redisCmd(r *fakeRedis, c *fconn, args []string) Value {
	if cmd := strings.ToUpper(args[0]); r.denied[cmd] {
		return ErrorValue("NOPERM this user has no permissions to run the '" + strings.ToLower(cmd) + "' command or its subcommand")
	}
	switch strings.ToUpper(args[0]) {
	case "PING":
		return Status("PONG")
	case "AUTH", "CONFIG":
		return Status("OK")
	case "INFO":
		return Bulk(w.renderInfo(r))
	case "SUBSCRIBE":
		return Array(Bulk("subscribe"), Bulk(args[1]), Int(1))
	case "PUBLISH":
		n := 0
		for _, o := range w.sents {
			for _, oc := range o.conns {
				if oc.target == r.addr() && oc.typ == ConnPubSub && oc.up {
					n++
					w.enqueue(o, Message{Link: oc.link, Conn: oc.id, Channel: args[1], Payload: args[2]})
				}
			}
		}
		return Int(int64(n))
	case "SLAVEOF", "REPLICAOF":
		if strings.EqualFold(args[1], "NO") {
			if !r.master {
				w.logf("%s %s promoted (SLAVEOF NO ONE)", c.s.name, r.name)
			}
			r.master, r.ofHost, r.ofPort = true, "", 0
		} else {
			port, _ := strconv.Atoi(args[2])
			if r.master || r.ofHost != args[1] || r.ofPort != port {
				w.logf("%s %s now replica of %s:%d", c.s.name, r.name, args[1], port)
			}
			r.master, r.ofHost, r.ofPort = false, args[1], port
		}
		return Status("OK")
	case "CLIENT":
		if len(args) >= 4 && strings.EqualFold(args[1], "KILL") {
			typ := ConnCmd
			if strings.EqualFold(args[3], "pubsub") {
				typ = ConnPubSub
			}
			w.killClients(r, typ, c)
		}
		return Status("OK")
	case "SCRIPT":
		return Status("OK")
	}
	return ErrorValue("ERR unknown command '" + args[0] + "'")
}

// killClients closes every connection of a type to r except skip.
func (w *world) killClients(r *fakeRedis, typ ConnType, skip *fconn) {
	for _, o := range w.sents {
		for _, id := range sortedConnIDs(o.conns) {
			oc := o.conns[id]
			if oc == skip || oc.target != r.addr() || oc.typ != typ {
				continue
			}
			delete(o.conns, id)
			w.enqueue(o, LinkClosed{Link: oc.link, Conn: id, Err: errors.New("killed")})
		}
	}
}

func sortedConnIDs(m map[ConnID]*fconn) []ConnID {
	ids := make([]ConnID, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

func (w *world) renderInfo(r *fakeRedis) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Server\r\nredis_version:7.0.15\r\nrun_id:%s\r\ntcp_port:%d\r\n\r\n# Replication\r\n", r.runid, r.port)
	if r.master {
		b.WriteString("role:master\r\n")
		var reps []*fakeRedis
		for _, k := range sortedKeys(w.redis) {
			o := w.redis[k]
			if o.up && !o.master && r.isAt(o.ofHost) && o.ofPort == r.port {
				reps = append(reps, o)
			}
		}
		fmt.Fprintf(&b, "connected_slaves:%d\r\n", len(reps))
		for k, o := range reps {
			fmt.Fprintf(&b, "slave%d:ip=%s,port=%d,state=online,offset=%d,lag=0\r\n", k, o.announced(), o.port, o.offset)
		}
		fmt.Fprintf(&b, "master_repl_offset:%d\r\n", r.offset)
		return b.String()
	}
	up := false
	if m := w.redisAt(r.ofHost, r.ofPort); m != nil && m.up && m.master {
		up = true
	}
	status := "down"
	if up {
		status = "up"
	}
	fmt.Fprintf(&b, "role:slave\r\nmaster_host:%s\r\nmaster_port:%d\r\nmaster_link_status:%s\r\n", r.ofHost, r.ofPort, status)
	if !up {
		since := int64(-1)
		if m := w.redisAt(r.ofHost, r.ofPort); m != nil && !m.up {
			since = (w.now - m.downSince) / 1000
		}
		fmt.Fprintf(&b, "master_link_down_since_seconds:%d\r\n", since)
	}
	fmt.Fprintf(&b, "slave_repl_offset:%d\r\nslave_priority:%d\r\nreplica_announced:1\r\n", r.offset, r.priority)
	return b.String()
}

// redisAt finds the fake Redis at host (IP or name) and port.
func (w *world) redisAt(host string, port int) *fakeRedis {
	if ip, ok := w.dns[host]; ok {
		host = ip
	}
	return w.redis[host+":"+strconv.Itoa(port)]
}

func (w *world) sendToSentinel(from, to *tsent, c *fconn, e Send) {
	if to.crashed {
		return
	}
	reply := func(v Value) { w.enqueue(from, Reply{Link: c.link, Conn: c.id, Tag: e.Tag, Value: v}) }
	if to.passwords != nil {
		// requirepass on the sentinel (sentinel-pass / requirepass of the
		// asking sentinel, reference §19)
		if strings.EqualFold(e.Args[0], "AUTH") {
			for _, p := range to.passwords {
				if e.Args[len(e.Args)-1] == p {
					c.authed = true
					reply(Status("OK"))
					return
				}
			}
			w.logf("%s rejects AUTH %s from %s", to.name, e.Args[len(e.Args)-1], from.name)
			reply(ErrorValue("WRONGPASS invalid username-password pair or user is disabled."))
			return
		}
		if !c.authed {
			reply(ErrorValue("NOAUTH Authentication required."))
			return
		}
	}
	switch strings.ToUpper(e.Args[0]) {
	case "PING":
		reply(Status("PONG"))
	case "AUTH", "CLIENT":
		reply(Status("OK"))
	default:
		w.nextID++
		w.reqs[w.nextID] = reqOrigin{from: from, link: c.link, conn: c.id, tag: e.Tag}
		w.enqueue(to, Request{ID: w.nextID, Args: e.Args})
	}
}

// clientCmd sends a client command to a sentinel and drains.
func (w *world) clientCmd(s *tsent, args []string) {
	w.nextID++
	w.reqs[w.nextID] = reqOrigin{client: true}
	w.step(s, Request{ID: w.nextID, Args: args})
	w.drain()
}

// renderValue prints a Value compactly for golden files.
func renderValue(v Value) string {
	switch v.Kind {
	case KindStatus:
		return "+" + v.Str
	case KindError:
		return "-" + v.Str
	case KindInt:
		return ":" + strconv.FormatInt(v.Int, 10)
	case KindBulk:
		return strconv.Quote(v.Str)
	case KindNil:
		return "(nil)"
	case KindNilArray:
		return "(nil-array)"
	case KindArray, KindMap:
		parts := make([]string, len(v.Elems))
		for i, e := range v.Elems {
			parts[i] = renderValue(e)
		}
		if v.Kind == KindMap {
			return "{" + strings.Join(parts, " ") + "}"
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return "?"
}
