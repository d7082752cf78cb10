package link

import (
	"net"
	"testing"
)

// FuzzPeerBytes feeds arbitrary bytes from a peer to a connection with
// three pending commands and checks the accounting invariant: every tag is
// reported exactly once, in order, either as a Reply or in Closed.Pending,
// whatever the peer sends (garbage, partial replies, pub/sub frames).
func FuzzPeerBytes(f *testing.F) {
	for _, s := range []string{
		"+OK\r\n:1\r\n$3\r\nfoo\r\n",
		"*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\np\r\n+OK\r\n",
		"-ERR x\r\n",
		"$999999999999\r\n",
		"*1\r\n*1\r\n*1\r\n",
		"hello\r\n",
		"+OK\r\n+OK\r\n+OK\r\n+OK\r\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, pubsub bool) {
		kind := Cmd
		if pubsub {
			kind = PubSub
		}
		m := NewManager(Config{MaxReplyBytes: 1 << 16, MaxBulkLen: 1 << 12, EventBuffer: 1 << 16})
		c := newConn(m, 1, "fuzz", kind)
		m.conns[1] = c
		client, peer := net.Pipe()
		c.nc = client
		for tag := range Tag(3) {
			c.pending = append(c.pending, pendingCmd{tag: tag, flags: CloseOnError})
		}
		go func() {
			peer.Write(data)
			peer.Close()
		}()
		c.readLoop(client)
		c.finish()
		client.Close()
		var got []Tag
		closed := 0
		for len(m.events) > 0 {
			switch ev := (<-m.events).(type) {
			case Reply:
				got = append(got, ev.Conn)
			case Closed:
				closed++
				got = append(got, ev.Pending...)
			}
		}
		if closed != 1 {
			t.Fatalf("%d Closed events, want 1", closed)
		}
		if len(got) != 3 || got[0] != 0 || got[1] != 1 || got[2] != 2 {
			t.Fatalf("tags reported %v, want [0 1 2] exactly once in order", got)
		}
	})
}
