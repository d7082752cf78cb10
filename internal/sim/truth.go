package sim

import (
	"strconv"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// truth is what the simulator knows, from outside the core, about what one
// sentinel incarnation sent and what the network delivered to it: the
// commands it sent (by tag), the address of each of its links, the valid
// PING replies and the INFO replies it processed, all in its local clock.
// The rule checks of check_rules.go judge the core's events against this
// record, never against the core's own bookkeeping, so that a bug in the
// core cannot hide itself.
type truth struct {
	cmd       map[core.Tag]sentCmd       // commands awaiting their reply
	linkAddr  map[core.LinkID]string     // address ("ip:port") each link dials
	linkFirst map[core.LinkID]int64      // local time of the link's first Connect
	peerLink  map[core.LinkID]bool       // links to sentinels (Connect with RoleSentinel)
	valid     map[core.LinkID]int64      // local time of the last valid PING reply
	validV    map[core.LinkID]int64      // the same in virtual time (D1)
	validStep map[core.LinkID]int        // the same as the World's step number (D1 of late events)
	firstV    map[core.LinkID]int64      // virtual time of the last Tick before the link's first Connect (≤ its creation)
	tickV     int64                      // virtual time of the last Tick step
	prevTickV int64                      // virtual time of the last Tick before the current step
	info      map[string]*infoSeen       // per address: the INFO replies processed
	noOne     map[string]int64           // per address: SLAVEOF NO ONE sent at (virtual time)
	sdown     map[string]bool            // per "type addr": +sdown without -sdown
	sdownOff  map[string]int             // per "type addr": step number of the last -sdown (E1 of late +sdown)
	slaveOff  int                        // step number of the last master reset, which re-creates the replicas
	prevTick  int64                      // local time of the previous Tick
	tilt      tiltTruth                  // TILT as the tick deltas demand it
	reconf    map[string]map[string]bool // per master: replicas done (+slave-reconf-done or timeout)
	reconfLag map[string]bool            // per master: R1 was unmet at the previous tick
	odownLag  map[string]bool            // per master: D2 was unmet at the previous tick
	scripts   map[uint64]*scriptRun      // per script job id: runs seen
	running   int                        // scripts started and not done
	told      map[string]uint64          // per "master ip:port": highest config epoch a hello delivered announced
	reqSDown  map[uint64]bool            // per request id: the asked master was SDOWN (D3) when processed
	reqTilt   map[uint64]bool            // per request id: TILT in truth when the core processed it
	stepTilt  bool                       // TILT in truth for the current step (late.go)
}

// tiltTruth is TILT as the tick deltas delivered to the core demand it.
type tiltTruth struct {
	on      bool  // a trigger happened and no -tilt followed yet
	until   int64 // local time before which nothing may be acted on
	trigger bool  // the current step is a Tick whose delta triggers TILT
	entered bool  // +tilt seen in the current step
}

type sentCmd struct {
	name string // upper-case command name, before rename-command
	link core.LinkID
}

// infoSeen is what the INFO replies of one address said, as processed.
type infoSeen struct {
	at       int64  // local time of the last INFO reply
	role     string // role: of the last INFO
	masterAt int64  // virtual time of the last INFO with role:master
	prio     int    // slave_priority of the last INFO with role:slave
	prioSeen bool   // some INFO with role:slave showed slave_priority
	linkDown int64  // master_link_down_since_seconds × 1000 of the last INFO (0: none)
}

// scriptRun is the history of one script job (its runs share an id).
type scriptRun struct {
	runs      int
	running   bool
	startedAt int64 // local
	doneAt    int64 // local time of the last ScriptDone
	retryable bool  // the last run ended with exit 1 or a signal
	killed    bool  // KillScript sent for the current run
}

func newTruth(now, vnow int64) truth {
	return truth{
		tickV:     vnow,
		prevTickV: vnow,
		cmd:       map[core.Tag]sentCmd{},
		linkAddr:  map[core.LinkID]string{},
		linkFirst: map[core.LinkID]int64{},
		peerLink:  map[core.LinkID]bool{},
		valid:     map[core.LinkID]int64{},
		validV:    map[core.LinkID]int64{},
		validStep: map[core.LinkID]int{},
		firstV:    map[core.LinkID]int64{},
		info:      map[string]*infoSeen{},
		noOne:     map[string]int64{},
		sdown:     map[string]bool{},
		sdownOff:  map[string]int{},
		prevTick:  now,
		reconf:    map[string]map[string]bool{},
		reconfLag: map[string]bool{},
		odownLag:  map[string]bool{},
		scripts:   map[uint64]*scriptRun{},
		reqTilt:   map[uint64]bool{},
		reqSDown:  map[uint64]bool{},
		told:      map[string]uint64{},
	}
}

func addrKey(a core.Addr) string {
	ip := a.IP
	if ip == "" {
		ip = a.Host
	}
	return ip + ":" + strconv.Itoa(a.Port)
}

// recordEffect notes the links and commands of one effect of s.
func (w *World) recordEffect(s *sentinel, e core.Effect, now int64) {
	t := &s.truth
	switch e := e.(type) {
	case core.Connect:
		if a := w.dialAddr(e.Addr); a != "" {
			t.linkAddr[e.Link] = a
		}
		if e.Role == core.RoleSentinel {
			t.peerLink[e.Link] = true
		}
		if _, ok := t.linkFirst[e.Link]; !ok {
			t.linkFirst[e.Link] = now
			t.firstV[e.Link] = t.prevTickV
		}
	case core.Send:
		if len(e.Args) > 0 {
			name := w.unrename(strings.ToUpper(e.Args[0]))
			t.cmd[e.Tag] = sentCmd{name: name, link: e.Link}
			if name == "SLAVEOF" && len(e.Args) == 3 && strings.EqualFold(e.Args[1], "NO") {
				t.noOne[t.linkAddr[e.Link]] = w.sch.now // virtual: E2 is about order, and clocks jump
			}
		}
	}
}

// forgetPeerPings drops the PINGs in flight on s's links to its peers at
// its +reset-master. SENTINEL RESET releases the master's sentinel objects;
// a peer that also watches another master keeps its link, shared with its
// object under that master, but "releasing an object re-targets its
// pending callbacks to a discard callback" (../shared/reference/
// sentinel-reference.md §21, releaseInstanceLink): the reply to
// a PING the released object sent does not count as a valid reply, and
// the core ignores it too (reply.go, released instances). Which object
// sent a PING is not visible from outside, so none of those replies counts
// for D1: the bound only gets more lenient (seed 1615039).
func (t *truth) forgetPeerPings() {
	for tag, c := range t.cmd {
		if c.name == "PING" && t.peerLink[c.link] {
			delete(t.cmd, tag)
		}
	}
}

// recordReply notes a reply s is about to process: valid PING replies
// (PONG, -LOADING, -MASTERDOWN, reference §12) and INFO.
func (s *sentinel) recordReply(e core.Reply, now, vnow int64, step int) {
	t := &s.truth
	c, ok := t.cmd[e.Tag]
	if !ok {
		return
	}
	delete(t.cmd, e.Tag)
	v := e.Value
	switch c.name {
	case "PING":
		if (v.Kind == core.KindStatus || v.Kind == core.KindError) &&
			(strings.HasPrefix(v.Str, "PONG") || strings.HasPrefix(v.Str, "LOADING") || strings.HasPrefix(v.Str, "MASTERDOWN")) {
			t.valid[c.link] = now
			t.validV[c.link] = vnow
			t.validStep[c.link] = step
		}
	case "INFO":
		if v.Kind != core.KindBulk {
			return
		}
		a := t.linkAddr[c.link]
		in := t.info[a]
		if in == nil {
			in = &infoSeen{}
			t.info[a] = in
		}
		in.at, in.linkDown = now, 0
		role := ""
		prio, hasPrio := 0, false
		for _, l := range strings.Split(v.Str, "\r\n") {
			k, val, found := strings.Cut(l, ":")
			if !found {
				continue
			}
			switch k {
			case "role":
				role = val
			case "slave_priority", "replica_priority":
				if p, err := strconv.Atoi(val); err == nil {
					prio, hasPrio = p, true
				}
			case "master_link_down_since_seconds":
				if d, err := strconv.ParseInt(val, 10, 64); err == nil && d > 0 {
					in.linkDown = d * 1000
				}
			}
		}
		in.role = role
		if role == roleMaster {
			in.masterAt = vnow
		}
		if role == roleSlave && hasPrio {
			in.prio, in.prioSeen = prio, true
		}
	}
}

// lastAvailBound is a lower bound, in virtual time, of the core's
// last_avail_time for the links of s to address a: the last valid PING
// reply, or the link's creation (a new link connects in the first tick
// after its creation, so the Tick before its first Connect bounds it). ok
// is false when s has no link to a. Virtual time, because a clock jumped
// backwards lets the core measure silence from a PING sent after the jump
// (sentinel.c's act_ping_time rule), which the local clock would hide;
// a forward jump enters TILT for longer than any down-after of the
// simulator. step is the World's step number of the reply that set the
// bound (0 when it is a link's creation).
func (t *truth) lastAvailBound(a string) (bound int64, step int, ok bool) {
	first := true
	for l, la := range t.linkAddr {
		if la != a {
			continue
		}
		b, st := t.firstV[l], 0
		if v, has := t.validV[l]; has && v > b {
			b, st = v, t.validStep[l]
		}
		// Several links to one address (objects of different types):
		// judge by the least recently heard, so no object is blamed for
		// another's silence.
		if first || b < bound {
			bound, step, first = b, st, false
		}
	}
	return bound, step, !first
}

// lastValid is the latest valid PING reply on any link to a, or the
// latest first Connect when none replied (an upper bound of the core's
// last_avail_time for a replica object).
func (t *truth) lastValid(a string) (int64, bool) {
	var best int64
	found := false
	for l, la := range t.linkAddr {
		if la != a {
			continue
		}
		b := t.linkFirst[l]
		if v, has := t.valid[l]; has && v > b {
			b = v
		}
		if !found || b > best {
			best, found = b, true
		}
	}
	return best, found
}

// dialAddr renders the address a Connect dials, resolving a hostname the
// way the simulated DNS does.
//
// A data node's hostname is its identity: whatever IP the core holds for
// it (possibly stale after the name moved), the record is kept under the
// name, so that what was sent to and received from a node is found again
// from the event that names it.
func (w *World) dialAddr(a core.Addr) string {
	if a = normName(a); isName(a.Host) {
		return strings.ToLower(a.Host) + ":" + strconv.Itoa(a.Port)
	}
	if a.IP == "" && a.Host != "" {
		if ip, ok := w.resolve(a.Host); ok {
			return ip + ":" + strconv.Itoa(a.Port)
		}
	}
	return addrKey(a)
}

// unrename maps a command name sent through rename-command back to the
// original name.
func (w *World) unrename(cmd string) string {
	if orig, ok := w.renamedFrom[cmd]; ok {
		return orig
	}
	return cmd
}

// resolve is the simulated DNS: a hostname to its current IP.
func (w *World) resolve(host string) (string, bool) {
	ip, ok := w.dns[host]
	return ip, ok
}

// lookupKey finds the node listening at "ip:port".
func (w *World) lookupKey(a string) int {
	h, p, ok := strings.Cut(a, ":")
	if !ok {
		return -1
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return -1
	}
	return w.lookup(core.Addr{IP: h, Port: port})
}
