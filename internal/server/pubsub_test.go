package server

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// waitFor polls cond until it holds or the deadline passes (used where the
// server offers no event to wait on).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestPublishToSubscribers(t *testing.T) {
	s, addr, _ := startServer(t, Config{})
	c2 := dial(t, addr)
	c2.send("SUBSCRIBE +sdown +odown\r\nPSUBSCRIBE +*\r\n")
	c2.expect("*3\r\n$9\r\nsubscribe\r\n$6\r\n+sdown\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$6\r\n+odown\r\n:2\r\n*3\r\n$10\r\npsubscribe\r\n$2\r\n+*\r\n:3\r\n")
	c3 := dial(t, addr)
	c3.send("HELLO 3\r\n")
	if v := c3.value(); v.Kind != resp.KindMap {
		t.Fatalf("HELLO 3 = %v", v)
	}
	if v := c3.do("SUBSCRIBE", "+sdown"); v.Kind != resp.KindPush {
		t.Fatalf("RESP3 subscribe reply kind %v, want push", v.Kind)
	}
	if n := s.Publish("+sdown", "master mym 127.0.0.1 6379"); n != 3 {
		t.Fatalf("Publish delivered %d, want 3 (2 channel + 1 pattern)", n)
	}
	msg := "*3\r\n$7\r\nmessage\r\n$6\r\n+sdown\r\n$25\r\nmaster mym 127.0.0.1 6379\r\n"
	pmsg := "*4\r\n$8\r\npmessage\r\n$2\r\n+*\r\n$6\r\n+sdown\r\n$25\r\nmaster mym 127.0.0.1 6379\r\n"
	got := c2.readN(len(msg) + len(pmsg))
	if got != msg+pmsg && got != pmsg+msg {
		t.Fatalf("got %q", got)
	}
	v := c3.value()
	if v.Kind != resp.KindPush || len(v.Elems) != 3 || v.Elems[0].Str != "message" || v.Elems[2].Str != "master mym 127.0.0.1 6379" {
		t.Fatalf("RESP3 message = %#v", v)
	}
	if n := s.Publish("-nothing", "x"); n != 0 {
		t.Fatalf("Publish to nobody delivered %d", n)
	}
	// INFO stats counts channels and patterns.
	c4 := dial(t, addr)
	info := c4.do("INFO", "stats").Str
	if !strings.Contains(info, "pubsub_channels:2\r\n") || !strings.Contains(info, "pubsub_patterns:1\r\n") {
		t.Fatalf("INFO stats pubsub counters wrong:\n%s", info)
	}
}

func TestPatternAndChannelACL(t *testing.T) {
	_, addr, _ := startServer(t, Config{Users: []string{"limited on nopass &ev* +@all"}})
	c := dial(t, addr)
	c.send("AUTH limited x\r\nSUBSCRIBE other\r\nSUBSCRIBE event\r\nPSUBSCRIBE e*\r\nPSUBSCRIBE ev*\r\n")
	c.expect("+OK\r\n-NOPERM this user has no permissions to access one of the channels used as arguments\r\n" +
		"*3\r\n$9\r\nsubscribe\r\n$5\r\nevent\r\n:1\r\n" +
		"-NOPERM this user has no permissions to access one of the channels used as arguments\r\n" +
		"*3\r\n$10\r\npsubscribe\r\n$3\r\nev*\r\n:2\r\n")
}

func ExampleServer_Publish() {
	s, err := New(Config{Bind: []string{"127.0.0.1"}}, newFakeBackend())
	if err != nil {
		panic(err)
	}
	defer s.Close()
	fmt.Println(s.Publish("+switch-master", "mym 127.0.0.1 6379 127.0.0.1 6380"))
	// Output: 0
}

func TestRevokedChannelKillsSubscriber(t *testing.T) {
	_, addr, _ := startServer(t, Config{Users: []string{"sub on nopass &* +@all"}})
	c := dial(t, addr)
	c.send("AUTH sub x\r\nSUBSCRIBE +sdown\r\n")
	c.expect("+OK\r\n*3\r\n$9\r\nsubscribe\r\n$6\r\n+sdown\r\n:1\r\n")
	other := dial(t, addr)
	other.send("AUTH sub x\r\nSUBSCRIBE -sdown\r\n")
	other.expect("+OK\r\n*3\r\n$9\r\nsubscribe\r\n$6\r\n-sdown\r\n:1\r\n")
	admin := dial(t, addr)
	admin.send("ACL SETUSER sub resetchannels &-*\r\n")
	admin.expect("+OK\r\n")
	c.expectClosed()
	other.send("PING\r\n")
	other.expect("*2\r\n$4\r\npong\r\n$0\r\n\r\n")
}

// TestPublishGarbage: Publish encodes into pooled memory (the queue
// copies the message), so an event storm does not make a new ~1 KiB slice
// per message and protocol. Before, a 1023-byte event to a RESP2 channel
// subscriber, a RESP2 pattern subscriber and a RESP3 pattern subscriber
// allocated ~5 KiB per Publish (three encodings grown by appending, their
// cache maps and the target list).
func TestPublishGarbage(t *testing.T) {
	s, addr, _ := startServer(t, Config{})
	c2 := dial(t, addr)
	c2.send("SUBSCRIBE +reset-master\r\nPSUBSCRIBE *\r\n")
	c2.expect("*3\r\n$9\r\nsubscribe\r\n$13\r\n+reset-master\r\n:1\r\n*3\r\n$10\r\npsubscribe\r\n$1\r\n*\r\n:2\r\n")
	c3 := dial(t, addr)
	c3.send("HELLO 3\r\n")
	if v := c3.value(); v.Kind != resp.KindMap {
		t.Fatalf("HELLO 3 = %v", v)
	}
	if v := c3.do("PSUBSCRIBE", "*"); v.Kind != resp.KindPush {
		t.Fatalf("RESP3 psubscribe reply kind %v, want push", v.Kind)
	}
	msg := "master " + strings.Repeat("x", MaxEventLen-len("master "))
	const n = 200
	chLen := len("*3\r\n$7\r\nmessage\r\n$13\r\n+reset-master\r\n$1023\r\n\r\n") + MaxEventLen
	patLen := len("*4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$13\r\n+reset-master\r\n$1023\r\n\r\n") + MaxEventLen
	want := []int64{n * int64(chLen+patLen), n * int64(patLen)} // c2, c3 (RESP3 push: same length)
	done := make(chan error, 2)
	for i, c := range []*testConn{c2, c3} {
		go func() {
			got, err := io.CopyN(io.Discard, c.conn, want[i])
			if err != nil {
				err = fmt.Errorf("subscriber %d read %d of %d bytes: %w", i, got, want[i], err)
			}
			done <- err
		}()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		if got := s.Publish("+reset-master", msg); got != 3 {
			t.Fatalf("Publish delivered %d, want 3", got)
		}
	}
	runtime.ReadMemStats(&after)
	// Both subscribers received every message.
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if raceEnabled {
		return // the race detector allocates on its own; the bound is checked without -race
	}
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 512 {
		t.Fatalf("Publish allocated %d bytes per 1023-byte event to 3 subscribers, want at most 512", per)
	}
}
