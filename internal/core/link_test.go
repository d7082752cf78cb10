package core

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func argsOf(effs []Effect) []string {
	var out []string
	for _, s := range effectsOf[Send](effs) {
		out = append(out, strings.Join(s.Args, " "))
	}
	return out
}

// TestHandshake pins the first commands on new connections (§12, §19):
// AUTH with the master's credentials, CLIENT SETNAME, then PING or
// SUBSCRIBE, all through rename-command.
func TestHandshake(t *testing.T) {
	s, err := New(Config{State: State{MyID: testMyID, Masters: []MasterConfig{{
		Name: "mym", Addr: Addr{Host: "127.0.0.1", Port: 6379}, Quorum: 1,
		AuthUser: "u", AuthPass: "p",
		RenameCommands: []Rename{{From: "PING", To: "PONGER"}, {From: "client", To: "KLIENT"}},
	}}}}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	effs := s.Step(0, Tick{})
	conns := effectsOf[Connect](effs)
	if len(conns) != 2 || conns[0].Type != ConnCmd || conns[1].Type != ConnPubSub ||
		conns[0].Role != RoleMaster || conns[0].Addr.Port != 6379 {
		t.Fatalf("connects: %+v", conns)
	}
	got := argsOf(s.Step(1, LinkConnected{Link: conns[0].Link, Conn: conns[0].Conn, LocalIP: "127.0.0.1"}))
	want := []string{"AUTH u p", "KLIENT SETNAME sentinel-aaaaaaaa-cmd", "PONGER"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("cmd handshake %q, want %q", got, want)
	}
	got = argsOf(s.Step(2, LinkConnected{Link: conns[1].Link, Conn: conns[1].Conn}))
	want = []string{"AUTH u p", "KLIENT SETNAME sentinel-aaaaaaaa-pubsub", "SUBSCRIBE __sentinel__:hello"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("pubsub handshake %q, want %q", got, want)
	}
	// The next tick asks for INFO (never received).
	if got := argsOf(s.Step(3, Tick{})); len(got) != 1 || got[0] != "INFO" {
		t.Fatalf("tick sends %q", got)
	}
}

// TestSubscribeErrorDisconnects: hiredis drops the pub/sub connection when
// SUBSCRIBE fails (e.g. -NOAUTH); the instance then shows "disconnected".
func TestSubscribeErrorDisconnects(t *testing.T) {
	s := newTestCore(t)
	var pc Connect
	for _, c := range effectsOf[Connect](s.Step(1, Tick{})) {
		if c.Type == ConnPubSub && c.Role == RoleMaster {
			pc = c
		}
	}
	if pc.Conn == 0 {
		// The first tick of newTestCore already connected.
		m := s.masters["mym"]
		pc = Connect{Link: m.link.id, Conn: m.link.pc}
	}
	var subTag Tag
	for _, snd := range effectsOf[Send](s.Step(2, LinkConnected{Link: pc.Link, Conn: pc.Conn})) {
		if snd.Args[0] == "SUBSCRIBE" {
			subTag = snd.Tag
		}
	}
	effs := s.Step(3, Reply{Link: pc.Link, Conn: pc.Conn, Tag: subTag, Value: ErrorValue("NOAUTH Authentication required.")})
	if cl := effectsOf[Close](effs); len(cl) != 1 || cl[0].Conn != pc.Conn {
		t.Fatalf("close: %v", effs)
	}
	v, _ := s.Master("mym")
	if !strings.Contains(s.masters["mym"].flagsString(), "disconnected") {
		t.Fatalf("flags %q (%+v)", s.masters["mym"].flagsString(), v)
	}
}

// TestPendingAndStaleEvents: replies for unknown tags or old connections
// are ignored; a LinkClosed cancels pending commands.
func TestPendingAndStaleEvents(t *testing.T) {
	s := newTestCore(t)
	m := s.masters["mym"]
	l := m.link
	cc := l.cc
	effs := s.Step(1, LinkConnected{Link: l.id, Conn: cc})
	if l.pending != 2 { // SETNAME + PING
		t.Fatalf("pending %d", l.pending)
	}
	s.Step(2, Reply{Link: l.id, Conn: cc + 100, Tag: effectsOf[Send](effs)[0].Tag, Value: Status("OK")})
	if l.pending != 2 {
		t.Fatalf("stale reply counted: %d", l.pending)
	}
	s.Step(3, LinkClosed{Link: l.id, Conn: cc})
	if l.pending != 0 || len(s.pending) != 0 && s.pendingOn(cc) != 0 {
		t.Fatalf("pending after close: %d", l.pending)
	}
	// A reply after the close is ignored without panicking.
	s.Step(4, Reply{Link: l.id, Conn: cc, Tag: effectsOf[Send](effs)[1].Tag, Value: Status("PONG")})
	s.Step(5, Reply{Link: 999, Conn: 999, Tag: 999})
	s.Step(6, LinkClosed{Link: 999, Conn: 1})
	s.Step(7, Message{Link: 999, Conn: 1, Channel: HelloChannel, Payload: "x"})
	s.Step(8, PersistDone{Seq: 999})
	s.Step(9, ScriptDone{ID: 999})
	s.Step(10, nil)
}

func (s *Sentinel) pendingOn(conn ConnID) int {
	n := 0
	for _, p := range s.pending {
		if p.conn == conn {
			n++
		}
	}
	return n
}
