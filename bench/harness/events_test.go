package harness

import (
	"net"
	"strings"
	"testing"
	"time"
)

func TestFirstPerSentinel(t *testing.T) {
	t0 := time.Unix(100, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ev := []Event{
		{Sentinel: 1, Type: "+sdown", Payload: "master mymaster 127.0.0.1 1 ", At: at(10)},
		{Sentinel: 0, Type: "+switch-master", Payload: "mymaster a 1 b 2", At: at(20)},
		{Sentinel: 0, Type: "+switch-master", Payload: "mymaster a 1 b 2", At: at(25)},
		{Sentinel: 2, Type: "+switch-master", Payload: "other a 1 b 2", At: at(30)},
		{Sentinel: 9, Type: "+switch-master", Payload: "mymaster a 1 b 2", At: at(31)},
		{Sentinel: 1, Type: "+switch-master", Payload: "mymaster a 1 b 2", At: at(40)},
	}
	m := TypeFor("+switch-master", "mymaster ")
	tests := []struct {
		n, want int
	}{{1, 1}, {2, 2}, {3, 2}}
	for _, tt := range tests {
		per, found := FirstPerSentinel(ev, tt.n, m)
		if found != tt.want {
			t.Errorf("n=%d: found %d, want %d", tt.n, found, tt.want)
		}
		if !per[0].At.Equal(at(20)) {
			t.Errorf("n=%d: sentinel 0 first at %v, want the first event", tt.n, per[0].At)
		}
	}
	if e, ok := First(ev, TypeFor("+sdown", "master mymaster ")); !ok || e.Sentinel != 1 {
		t.Errorf("First +sdown = %+v, %v", e, ok)
	}
	if _, ok := First(ev, TypeFor("+odown", "")); ok {
		t.Errorf("First found an +odown that does not exist")
	}
}

// fakePublisher is a listener that answers PSUBSCRIBE and then sends the
// given pmessages, standing in for a sentinel's Pub/Sub.
func fakePublisher(t *testing.T, msgs [][2]string, send <-chan struct{}) string {
	t.Helper()
	return fakeServer(t, func(c net.Conn) {
		buf := make([]byte, 256)
		if _, err := c.Read(buf); err != nil {
			return
		}
		c.Write([]byte("*3\r\n$10\r\npsubscribe\r\n$1\r\n*\r\n:1\r\n"))
		<-send
		var b strings.Builder
		for _, m := range msgs {
			b.Write(EncodeCommand("pmessage", "*", m[0], m[1]))
		}
		c.Write([]byte(b.String()))
		// Keep the connection open until the watcher closes it.
		c.Read(buf)
	})
}

func TestWatcherWaitUntil(t *testing.T) {
	send := make(chan struct{})
	addr := fakePublisher(t, [][2]string{{"+sdown", "master m 1 2"}, {"+switch-master", "m a 1 b 2"}}, send)
	w, err := Watch([]string{addr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	sw := TypeFor("+switch-master", "m ")
	has := func(ev []Event) bool { _, ok := First(ev, sw); return ok }
	if w.WaitUntil(time.Now().Add(20*time.Millisecond), has) {
		t.Fatalf("WaitUntil true before anything was published")
	}
	close(send)
	if !w.WaitUntil(time.Now().Add(5*time.Second), has) {
		t.Fatalf("WaitUntil did not see +switch-master; events %+v", w.Events())
	}
	ev := w.Events()
	if len(ev) != 2 || ev[0].Type != "+sdown" || ev[1].Payload != "m a 1 b 2" || ev[1].At.Before(ev[0].At) {
		t.Errorf("events = %+v", ev)
	}
}

func TestWatchRejectsNonSubscriber(t *testing.T) {
	addr := fakeServer(t, func(c net.Conn) {
		c.Write([]byte("-ERR unknown command 'PSUBSCRIBE'\r\n"))
		buf := make([]byte, 64)
		c.Read(buf)
	})
	if _, err := Watch([]string{addr}); err == nil {
		t.Fatalf("Watch accepted an error reply to PSUBSCRIBE")
	}
}
