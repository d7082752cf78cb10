package core

import "strings"

type connState uint8

const (
	connNone connState = iota
	connConnecting
	connUp
)

// instanceLink is sentinel.c's instanceLink: the connections to one instance and the
// failure-detection timestamps, shared by every sentinel object with the
// same runid (§21).
type instanceLink struct {
	id       LinkID
	refcount int
	users    []*instance // instances sharing the link; users[0] sets auth/rename
	needPC   bool

	cc, pc           ConnID
	ccState, pcState connState
	pending          int
	localIP          string

	ccConnTime     Millis
	pcConnTime     Millis
	pcLastActivity Millis
	lastReconnTime Millis // 0: never
	// resetRedial is the time of the last SENTINEL RESET of the link's
	// master whose redial is still owed (0: none): the redial comes at the
	// first tick with no RESET since the previous tick, or earlier by the
	// ping-period pacing (reconnect; docs/core.md decision 14).
	resetRedial Millis
	// resetAt is the time of the last SENTINEL RESET that reset the
	// pacing (redial at the next tick), 0: none.
	resetAt       Millis
	actPingTime   Millis // send time of the oldest unanswered PING, 0 if none
	lastPingTime  Millis
	lastPongTime  Millis
	lastAvailTime Millis
	// authWarned: an AUTH refusal on this link was logged and no AUTH has
	// been accepted since (authwarn.go).
	authWarned bool
}

// disconnected is link->disconnected: the command connection, or the
// pub/sub connection of a master or replica, is missing. A connection
// being established counts as present, as with hiredis.
func (l *instanceLink) disconnected() bool {
	return l.ccState == connNone || (l.needPC && l.pcState == connNone)
}

type pendingCmd struct {
	link *instanceLink
	conn ConnID
	kind SendKind
	inst *instance
	// master is the master an is-master-down request was about.
	counted bool // counted in link.pending
}

func (s *Sentinel) newLink(owner *instance) *instanceLink {
	s.nextLink++
	l := &instanceLink{
		id:            s.nextLink,
		refcount:      1,
		users:         []*instance{owner},
		needPC:        !owner.isSentinel(),
		actPingTime:   s.now,
		lastAvailTime: s.now,
		lastPongTime:  s.now,
	}
	s.links[l.id] = l
	return l
}

// releaseLink drops i's reference to its link, closing it when unused.
func (s *Sentinel) releaseLink(i *instance) {
	l := i.link
	for k, u := range l.users {
		if u == i {
			l.users = append(l.users[:k:k], l.users[k+1:]...)
			break
		}
	}
	l.refcount--
	if l.refcount > 0 {
		return
	}
	s.closeConn(l, false)
	s.closeConn(l, true)
	delete(s.links, l.id)
}

// tryConnectionSharing makes a sentinel object use the link of another
// object with the same runid under another master (sentinelTryConnectionSharing).
func (s *Sentinel) tryConnectionSharing(si *instance) bool {
	if si.runid == "" || si.link.refcount > 1 {
		return false
	}
	for _, m := range s.sortedMasters() {
		if m == si.master {
			continue
		}
		match, ok := m.m.sentinels[si.runid]
		if !ok || match == si || match.link == si.link {
			continue
		}
		s.releaseLink(si)
		si.link = match.link
		match.link.refcount++
		match.link.users = append(match.link.users, si)
		return true
	}
	return false
}

// mapCmd maps a command name through the master's rename-command table
// (sentinelInstanceMapCommand).
func (s *Sentinel) mapCmd(i *instance, name string) string {
	m := i.masterOf()
	if m == nil || m.m == nil {
		return name
	}
	for _, r := range m.m.renames {
		if strings.EqualFold(r.From, name) {
			return r.To
		}
	}
	return name
}

// authFor returns the credentials for connections to i (sentinelSendAuthIfNeeded).
func (s *Sentinel) authFor(i *instance) Auth {
	if i.isSentinel() {
		if s.sentinelPass != "" {
			return Auth{User: s.sentinelUser, Pass: s.sentinelPass}
		}
		return Auth{Pass: s.requirePass}
	}
	m := i.masterOf()
	return Auth{User: m.m.authUser, Pass: m.m.authPass}
}

// reconnect opens the missing connections of i's link, at most once per
// ping-period (sentinelReconnectInstance).
func (s *Sentinel) reconnect(i *instance) {
	l := i.link
	if i.addr.Port == 0 || !l.disconnected() {
		return
	}
	if l.lastReconnTime != 0 && s.now-l.lastReconnTime < s.timing.PingPeriod &&
		(l.resetRedial == 0 || l.resetRedial >= s.tickPrev) {
		// Paced by ping-period from the last attempt (sentinel.c), unless a
		// SENTINEL RESET owes a redial and no RESET came since the previous
		// tick: a RESET loop redials once per ping-period and once more
		// after its last RESET, not at every tick (decision 14).
		return
	}
	l.lastReconnTime = s.now
	l.resetRedial = 0
	if l.ccState == connNone {
		s.reresolve(i)
		s.nextConn++
		l.cc, l.ccState = s.nextConn, connConnecting
		l.ccConnTime = s.now
		l.pending = 0
		// sentinel.c queues a PING right away (sentinelSendPing), so the
		// failure-detection clock runs while the connection is attempted.
		l.lastPingTime = s.now
		if l.actPingTime == 0 {
			l.actPingTime = s.now
		}
		s.emit(Connect{Link: l.id, Conn: l.cc, Type: ConnCmd, Role: i.role(), Addr: i.addr})
	}
	if l.needPC && l.pcState == connNone {
		s.nextConn++
		l.pc, l.pcState = s.nextConn, connConnecting
		l.pcConnTime = s.now
		l.pcLastActivity = s.now
		s.emit(Connect{Link: l.id, Conn: l.pc, Type: ConnPubSub, Role: i.role(), Addr: i.addr})
	}
}

// onLinkConnected sends the handshake on a new connection.
func (s *Sentinel) onLinkConnected(e LinkConnected) {
	l, ok := s.links[e.Link]
	if !ok || len(l.users) == 0 {
		return
	}
	i := l.users[0]
	name := "sentinel-" + s.myid[:8]
	switch {
	case e.Conn == l.cc && l.ccState == connConnecting:
		l.ccState = connUp
		l.localIP = e.LocalIP
		s.sendAuth(i, false)
		s.sendCmd(i, false, SendOther, s.mapCmd(i, "CLIENT"), "SETNAME", name+"-cmd")
		s.sendPing(i)
	case e.Conn == l.pc && l.pcState == connConnecting:
		l.pcState = connUp
		l.pcLastActivity = s.now
		s.sendAuth(i, true)
		s.sendCmd(i, true, SendOther, s.mapCmd(i, "CLIENT"), "SETNAME", name+"-pubsub")
		s.sendCmd(i, true, SendSubscribe, s.mapCmd(i, "SUBSCRIBE"), HelloChannel)
	}
}

func (s *Sentinel) sendAuth(i *instance, pc bool) {
	a := s.authFor(i)
	switch {
	case a.Pass == "":
	case a.User == "":
		s.sendCmd(i, pc, SendAuth, s.mapCmd(i, "AUTH"), a.Pass)
	default:
		s.sendCmd(i, pc, SendAuth, s.mapCmd(i, "AUTH"), a.User, a.Pass)
	}
}

// onLinkClosed forgets a connection that failed or was closed.
func (s *Sentinel) onLinkClosed(e LinkClosed) {
	l, ok := s.links[e.Link]
	if !ok {
		return
	}
	pc := false
	switch {
	case e.Conn == l.cc && l.ccState != connNone:
	case e.Conn == l.pc && l.pcState != connNone:
		pc = true
	default:
		return
	}
	if len(l.users) > 0 {
		typ := "-cmd-link"
		if pc {
			typ = "-pubsub-link"
		}
		msg := ""
		if e.Err != nil {
			msg = e.Err.Error()
		}
		s.eventAt(LevelDebug, typ, l.users[0], "#"+msg)
	}
	s.dropConn(l, pc)
}

// closeConn closes one connection of a link on the core's initiative
// (instanceLinkCloseConnection).
func (s *Sentinel) closeConn(l *instanceLink, pc bool) {
	conn, st := l.cc, l.ccState
	if pc {
		conn, st = l.pc, l.pcState
	}
	if st == connNone {
		return
	}
	s.emit(Close{Link: l.id, Conn: conn})
	s.dropConn(l, pc)
}

// dropConn clears a connection and cancels its pending commands.
func (s *Sentinel) dropConn(l *instanceLink, pc bool) {
	conn := l.cc
	if pc {
		conn = l.pc
		l.pc, l.pcState = 0, connNone
	} else {
		l.cc, l.ccState = 0, connNone
		l.pending = 0
	}
	for tag := range s.pendingByConn[conn] { // deletion only: order is not visible
		p := s.pending[tag]
		s.delPending(tag)
		s.cancelPending(p)
	}
	s.dropHeldOn(conn)
}

// cancelPending undoes the in-flight markers of a command that will never
// be answered.
func (s *Sentinel) cancelPending(p *pendingCmd) {
	switch p.kind {
	case SendInfo:
		p.inst.infoPending = false
	case SendAskMasterDown:
		p.inst.askPending = false
	case SendHello:
		p.inst.helloPending = false
	case SendPeerMaster:
		p.inst.probe.pending = false
	}
}

// connUpFor reports whether the given connection of i's link is usable.
func (i *instance) connUp(pc bool) bool {
	if pc {
		return i.link.pcState == connUp
	}
	return i.link.ccState == connUp
}

// newSend registers a pending command and returns its Send effect without
// emitting it; ok is false when the connection is not up.
func (s *Sentinel) newSend(i *instance, pc bool, kind SendKind, args ...string) (Send, bool) {
	if !i.connUp(pc) {
		return Send{}, false
	}
	l := i.link
	conn := l.cc
	if pc {
		conn = l.pc
	}
	s.nextTag++
	p := &pendingCmd{link: l, conn: conn, kind: kind, inst: i}
	if kind != SendSubscribe {
		p.counted = true
		if !pc {
			l.pending++
		}
	}
	s.addPending(s.nextTag, p)
	return Send{Link: l.id, Conn: conn, Tag: s.nextTag, Args: args, Kind: kind}, true
}

// sendCmd emits a command now.
func (s *Sentinel) sendCmd(i *instance, pc bool, kind SendKind, args ...string) bool {
	snd, ok := s.newSend(i, pc, kind, args...)
	if ok {
		s.emit(snd)
	}
	return ok
}

// sendPing sends a PING (sentinelSendPing).
func (s *Sentinel) sendPing(i *instance) bool {
	if !s.sendCmd(i, false, SendPing, s.mapCmd(i, "PING")) {
		return false
	}
	l := i.link
	l.lastPingTime = s.now
	if l.actPingTime == 0 {
		l.actPingTime = s.now
	}
	return true
}

// dropInstanceConnections closes the connections of a master and all its
// replicas (after auth-pass/auth-user change).
func (s *Sentinel) dropInstanceConnections(m *instance) {
	s.closeConn(m.link, false)
	s.closeConn(m.link, true)
	for _, r := range m.sortedReplicas() {
		s.closeConn(r.link, false)
		s.closeConn(r.link, true)
	}
}

// dropSentinelConnections closes every sentinel link (sentinelDropConnections).
func (s *Sentinel) dropSentinelConnections() {
	for _, m := range s.sortedMasters() {
		for _, si := range m.sortedSentinels() {
			s.closeConn(si.link, false)
		}
	}
}

// reresolve resolves a hostname again before a new connection, keeping
// the old IP when the lookup fails (sentinelReconnectInstance with
// resolve-hostnames: an instance restarted on a new IP under the same name
// must be found there).
func (s *Sentinel) reresolve(i *instance) {
	if !s.resolveHostnames || s.resolveIP == nil || i.addr.Host == "" {
		return
	}
	if _, lit := parseIP(i.addr.Host); lit {
		return
	}
	if ip, ok := s.resolveIP(i.addr.Host); ok {
		i.addr.IP = ip
	}
}
