package link

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gosentinel/gosentinel/internal/resp"
	"github.com/gosentinel/gosentinel/internal/testutil"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const waitFor = 10 * time.Second

func newManager(t *testing.T, cfg Config) *Manager {
	t.Helper()
	m := NewManager(cfg)
	t.Cleanup(m.Shutdown)
	return m
}

// next returns the next event, failing the test after waitFor.
func next(t *testing.T, m *Manager) Event {
	t.Helper()
	select {
	case ev := <-m.Events():
		return ev
	case <-time.After(waitFor):
		t.Fatalf("no link event within %v", waitFor)
		return nil
	}
}

func mustConnect(t *testing.T, m *Manager, id ConnID, addr string, kind Kind) Connected {
	t.Helper()
	if err := m.Dial(id, addr, kind); err != nil {
		t.Fatalf("Dial: %v", err)
	}
	ev := next(t, m)
	c, ok := ev.(Connected)
	if !ok || c.Conn != id {
		t.Fatalf("want Connected for %d, got %#v", id, ev)
	}
	return c
}

func mustReply(t *testing.T, m *Manager, id ConnID, tag Tag) resp.Value {
	t.Helper()
	ev := next(t, m)
	r, ok := ev.(Reply)
	if !ok || r.ID != id || r.Conn != tag {
		t.Fatalf("want Reply %d/%d, got %#v", id, tag, ev)
	}
	return r.Value
}

func mustClosed(t *testing.T, m *Manager, id ConnID, want error) Closed {
	t.Helper()
	for {
		ev := next(t, m)
		if c, ok := ev.(Closed); ok && c.Conn == id {
			if !errors.Is(c.Err, want) {
				t.Fatalf("Closed error = %v, want %v", c.Err, want)
			}
			return c
		}
	}
}

func TestConnectPipelineInOrder(t *testing.T) {
	srv := testutil.StartRedis(t)
	m := newManager(t, Config{})
	c := mustConnect(t, m, 1, srv.Addr(), Cmd)
	if c.LocalIP != "127.0.0.1" {
		t.Fatalf("LocalIP = %q, want 127.0.0.1", c.LocalIP)
	}
	const n = 500
	for i := range n {
		if !m.Send(1, Tag(i), []string{"ECHO", strconv.Itoa(i)}, 0) {
			t.Fatalf("Send %d refused", i)
		}
	}
	for i := range n {
		v := mustReply(t, m, 1, Tag(i))
		if v.Kind != resp.KindBulkString || v.Str != strconv.Itoa(i) {
			t.Fatalf("reply %d = %#v", i, v)
		}
	}
	// MULTI/EXEC sent as consecutive commands, replies in order.
	batch := [][]string{{"MULTI"}, {"SET", "k", "v"}, {"GET", "k"}, {"EXEC"}}
	for i, args := range batch {
		m.Send(1, Tag(1000+i), args, 0)
	}
	want := []string{"+OK", "+QUEUED", "+QUEUED", "*2"}
	for i := range batch {
		v := mustReply(t, m, 1, Tag(1000+i))
		got := ""
		switch v.Kind {
		case resp.KindSimpleString:
			got = "+" + v.Str
		case resp.KindArray:
			got = "*" + strconv.Itoa(len(v.Elems))
		}
		if got != want[i] {
			t.Fatalf("batch reply %d = %#v, want %s", i, v, want[i])
		}
	}
}

func TestPubSubHelloRoundTrip(t *testing.T) {
	srv := testutil.StartRedis(t)
	m := newManager(t, Config{})
	mustConnect(t, m, 1, srv.Addr(), PubSub)
	m.Send(1, 1, []string{"CLIENT", "SETNAME", "sentinel-abcdef01-pubsub"}, 0)
	m.Send(1, 2, []string{"SUBSCRIBE", "__sentinel__:hello"}, CloseOnError)
	if v := mustReply(t, m, 1, 1); v.Str != "OK" {
		t.Fatalf("SETNAME reply %#v", v)
	}
	v := mustReply(t, m, 1, 2)
	if v.Kind != resp.KindArray || len(v.Elems) != 3 || v.Elems[0].Str != "subscribe" {
		t.Fatalf("SUBSCRIBE reply %#v", v)
	}
	mustConnect(t, m, 2, srv.Addr(), Cmd)
	hello := "127.0.0.1,26379,0123456789012345678901234567890123456789,0,mym,127.0.0.1,6379,0"
	m.Send(2, 3, []string{"PUBLISH", "__sentinel__:hello", hello}, 0)
	gotReply, gotMsg := false, false
	for !gotReply || !gotMsg {
		switch ev := next(t, m).(type) {
		case Reply:
			if ev.ID != 2 || ev.Conn != 3 || ev.Value.Int != 1 {
				t.Fatalf("PUBLISH reply %#v", ev)
			}
			gotReply = true
		case Message:
			if ev.ID != 1 || ev.Conn != "__sentinel__:hello" || ev.Payload != hello {
				t.Fatalf("message %#v", ev)
			}
			gotMsg = true
		default:
			t.Fatalf("unexpected event %#v", ev)
		}
	}
}

// startRedisWithAuth starts a redis-server and then runs cmds on it (the
// testutil readiness probe cannot authenticate, so passwords are set after
// start).
func startRedisWithAuth(t *testing.T, cmds ...[]string) *testutil.Process {
	t.Helper()
	srv := testutil.StartRedis(t)
	m := NewManager(Config{})
	defer m.Shutdown()
	mustConnect(t, m, 1, srv.Addr(), Cmd)
	for i, args := range cmds {
		m.Send(1, Tag(i), args, 0)
	}
	for i := range cmds {
		if v := mustReply(t, m, 1, Tag(i)); v.IsError() {
			t.Fatalf("%q: %s", cmds[i], v.Str)
		}
	}
	return srv
}

func TestAuth(t *testing.T) {
	srv := startRedisWithAuth(t, []string{"CONFIG", "SET", "requirepass", "secret"},
		[]string{"ACL", "SETUSER", "alice", "on", ">wonder", "~*", "&*", "+@all"})
	tests := []struct {
		name string
		auth []string
		want string // PING reply after AUTH
	}{
		{"requirepass", []string{"AUTH", "secret"}, "PONG"},
		{"acl user", []string{"AUTH", "alice", "wonder"}, "PONG"},
		{"wrong password", []string{"AUTH", "nope"}, "NOAUTH Authentication required."},
	}
	m := newManager(t, Config{})
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := ConnID(i + 1)
			mustConnect(t, m, id, srv.Addr(), Cmd)
			m.Send(id, 1, tc.auth, 0)
			m.Send(id, 2, []string{"PING"}, 0)
			mustReply(t, m, id, 1)
			if v := mustReply(t, m, id, 2); v.Str != tc.want {
				t.Fatalf("PING after AUTH = %#v, want %q", v, tc.want)
			}
			m.Close(id)
		})
	}
}

func TestSubscribeNoAuthClosesPubSub(t *testing.T) {
	srv := startRedisWithAuth(t, []string{"CONFIG", "SET", "requirepass", "secret"})
	m := newManager(t, Config{})
	mustConnect(t, m, 1, srv.Addr(), PubSub)
	m.Send(1, 1, []string{"CLIENT", "SETNAME", "sentinel-abcdef01-pubsub"}, 0)
	m.Send(1, 2, []string{"SUBSCRIBE", "__sentinel__:hello"}, CloseOnError)
	if v := mustReply(t, m, 1, 1); !v.IsError() {
		t.Fatalf("SETNAME without auth = %#v, want NOAUTH", v)
	}
	if v := mustReply(t, m, 1, 2); !v.IsError() || !strings.HasPrefix(v.Str, "NOAUTH") {
		t.Fatalf("SUBSCRIBE without auth = %#v, want NOAUTH", v)
	}
	c := mustClosed(t, m, 1, ErrSubscribeFailed)
	if len(c.Pending) != 0 {
		t.Fatalf("pending after subscribe failure: %v", c.Pending)
	}
	if m.Send(1, 3, []string{"PING"}, 0) {
		t.Fatal("Send on a closed connection accepted")
	}
}

func TestServerKilledCancelsPending(t *testing.T) {
	srv := testutil.StartRedis(t)
	m := newManager(t, Config{})
	mustConnect(t, m, 1, srv.Addr(), Cmd)
	m.Send(1, 1, []string{"PING"}, 0)
	mustReply(t, m, 1, 1)
	// BLPOP blocks, so these stay pending until the server dies.
	m.Send(1, 2, []string{"BLPOP", "nothing", "0"}, 0)
	m.Send(1, 3, []string{"PING"}, 0)
	srv.Kill()
	c := mustClosed(t, m, 1, ErrConnLost)
	if fmt.Sprint(c.Pending) != "[2 3]" {
		t.Fatalf("pending = %v, want [2 3]", c.Pending)
	}
	// The dead address refuses new connections.
	if err := m.Dial(2, srv.Addr(), Cmd); err != nil {
		t.Fatal(err)
	}
	mustClosed(t, m, 2, ErrDial)
}

// fakePeer accepts one connection, runs script on it, then holds the
// connection open until the test ends.
func fakePeer(t *testing.T, script func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		script(c)
		<-stop
	}()
	t.Cleanup(func() { close(stop); l.Close(); wg.Wait() })
	return l.Addr().String()
}

func TestHostilePeer(t *testing.T) {
	big := Config{MaxBulkLen: 1 << 20, MaxReplyBytes: 64 << 10}
	tests := []struct {
		name    string
		cfg     Config
		send    bool // send one command before the peer answers
		payload func(net.Conn)
		want    error
	}{
		{"garbage", big, true, func(c net.Conn) { c.Write([]byte("hello world\r\n")) }, ErrProtocol},
		{"huge bulk header", big, true, func(c net.Conn) { c.Write([]byte("$999999999999\r\n")) }, ErrProtocol},
		{"bulk above MaxBulkLen", big, true, func(c net.Conn) { c.Write([]byte("$2000000\r\n")) }, ErrProtocol},
		{"huge array header", big, true, func(c net.Conn) { c.Write([]byte("*99999999\r\n")) }, ErrProtocol},
		{"reply above MaxReplyBytes", big, true, func(c net.Conn) {
			c.Write([]byte("$500000\r\n"))
			chunk := []byte(strings.Repeat("x", 4096))
			for range 200 {
				if _, err := c.Write(chunk); err != nil {
					return
				}
			}
		}, ErrReplyTooLarge},
		{"deep nesting", big, true, func(c net.Conn) { c.Write([]byte(strings.Repeat("*1\r\n", 100))) }, ErrProtocol},
		{"unsolicited reply", big, false, func(c net.Conn) { c.Write([]byte("+PONG\r\n")) }, ErrUnexpectedReply},
		{"peer hangs up", big, true, func(c net.Conn) { c.Close() }, ErrConnLost},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addr := fakePeer(t, func(c net.Conn) {
				if tc.send {
					buf := make([]byte, 64)
					c.Read(buf) // wait for the command
				}
				tc.payload(c)
			})
			m := newManager(t, tc.cfg)
			mustConnect(t, m, 1, addr, Cmd)
			if tc.send {
				m.Send(1, 7, []string{"PING"}, 0)
			}
			c := mustClosed(t, m, 1, tc.want)
			if tc.send && fmt.Sprint(c.Pending) != "[7]" {
				t.Fatalf("pending = %v, want [7]", c.Pending)
			}
		})
	}
}

func TestQueueFullClosesConnection(t *testing.T) {
	addr := fakePeer(t, func(c net.Conn) {}) // never answers
	m := newManager(t, Config{MaxPending: 3})
	mustConnect(t, m, 1, addr, Cmd)
	for i := range 4 {
		m.Send(1, Tag(i), []string{"PING"}, 0)
	}
	c := mustClosed(t, m, 1, ErrQueueFull)
	if fmt.Sprint(c.Pending) != "[0 1 2 3]" {
		t.Fatalf("pending = %v", c.Pending)
	}
}

func TestCloseIsSilent(t *testing.T) {
	srv := testutil.StartRedis(t)
	m := NewManager(Config{})
	mustConnect(t, m, 1, srv.Addr(), Cmd)
	m.Send(1, 1, []string{"BLPOP", "nothing", "0"}, 0)
	m.Close(1)
	if m.Send(1, 2, []string{"PING"}, 0) {
		t.Fatal("Send after Close accepted")
	}
	// A dial that is aborted by Close is silent too.
	m.Dial(2, "10.255.255.1:6379", Cmd)
	m.Close(2)
	m.Shutdown() // waits for every goroutine: no event can come later
	for {
		select {
		case ev := <-m.Events():
			t.Fatalf("event after Close: %#v", ev)
		default:
			if err := m.Dial(3, srv.Addr(), Cmd); !errors.Is(err, ErrShutdown) {
				t.Fatalf("Dial after Shutdown = %v", err)
			}
			return
		}
	}
}

func TestSourceIP(t *testing.T) {
	srv := testutil.StartRedis(t)
	tests := []struct {
		source, want string
	}{
		{"", "127.0.0.1"},
		{"127.0.0.2", "127.0.0.2"}, // all of 127/8 is local on Linux
	}
	for i, tc := range tests {
		m := newManager(t, Config{SourceIP: tc.source})
		if c := mustConnect(t, m, ConnID(i), srv.Addr(), Cmd); c.LocalIP != tc.want {
			t.Errorf("SourceIP %q: LocalIP = %q, want %q", tc.source, c.LocalIP, tc.want)
		}
	}
}

func TestDialDuplicateID(t *testing.T) {
	srv := testutil.StartRedis(t)
	m := newManager(t, Config{})
	mustConnect(t, m, 1, srv.Addr(), Cmd)
	if err := m.Dial(1, srv.Addr(), Cmd); err == nil {
		t.Fatal("second Dial with a live id accepted")
	}
}

func TestAppendCommand(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"PING"}, "*1\r\n$4\r\nPING\r\n"},
		{[]string{"SET", "", "a b"}, "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$3\r\na b\r\n"},
		{[]string{}, "*0\r\n"},
	}
	for _, tc := range tests {
		if got := string(appendCommand(nil, tc.args)); got != tc.want {
			t.Errorf("appendCommand(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestCloseAbortsHandshake: Close and Shutdown abort a dial still under
// way (here a TLS handshake with a server that accepts and never answers)
// at once, not after DialTimeout: the dial is cancelled by the caller's
// Close itself, with no goroutine per dial waiting for it.
func TestCloseAbortsHandshake(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c // held open, never written to
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for c := range accepted {
			c.Close()
		}
	})
	m := NewManager(Config{DialTimeout: time.Hour, TLS: &tls.Config{InsecureSkipVerify: true}})
	for id := ConnID(1); id <= 2; id++ {
		if err := m.Dial(id, ln.Addr().String(), Cmd); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		select {
		case c := <-accepted:
			accepted <- c // keep it for the cleanup
		case <-time.After(waitFor):
			t.Fatal("the dials never reached the server")
		}
	}
	done := make(chan struct{})
	go func() {
		m.Close(1)   // aborted by the caller: silent
		m.Shutdown() // waits for both dials' goroutines
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(waitFor):
		t.Fatal("Close+Shutdown did not return with handshakes under way (DialTimeout 1 h)")
	}
	select {
	case ev := <-m.Events():
		t.Fatalf("event after Close/Shutdown: %#v", ev)
	default:
	}
}
