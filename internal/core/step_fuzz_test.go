package core

import (
	"strconv"
	"testing"
)

// words is the vocabulary FuzzStep builds commands and payloads from.
var words = []string{"SENTINEL", "masters", "master", "replicas", "slaves", "sentinels", "mym", "nope",
	"get-master-addr-by-name", "is-master-down-by-addr", "reset", "failover", "monitor", "remove",
	"set", "config", "get", "debug", "ckquorum", "info-cache", "simulate-failure", "flushconfig",
	"pending-scripts", "help", "myid", "quorum", "down-after-milliseconds", "rename-command",
	"auth-pass", "parallel-syncs", "failover-timeout", "ping-period", "tilt-period", "*", "0", "1",
	"-1", "6379", "6380", "127.0.0.1", "::1", "99999999999999999999", "", "ROLE", "PUBLISH",
	HelloChannel, "announce-ip", "resolve-hostnames", "yes", "crash-after-election", peerB}

// FuzzStep feeds arbitrary event sequences to a core: it must never panic
// and must answer every request exactly once.
func FuzzStep(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("\x05\x00\x06\x07\x01\x02\x03\x04\x05\x06\x07\x08"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newTestCore(t)
		now := Millis(0)
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := int(data[0])
			data = data[1:]
			return b
		}
		word := func() string { return words[next()%len(words)] }
		var tags []Tag
		var links []LinkID
		var conns []ConnID
		id := uint64(0)
		outstanding := map[uint64]bool{}
		collect := func(effs []Effect) {
			for _, e := range effs {
				switch e := e.(type) {
				case Send:
					tags = append(tags, e.Tag)
					links = append(links, e.Link)
					conns = append(conns, e.Conn)
				case Connect:
					links = append(links, e.Link)
					conns = append(conns, e.Conn)
				case Respond:
					if !outstanding[e.ID] {
						t.Fatalf("reply to %d not outstanding", e.ID)
					}
					delete(outstanding, e.ID)
				}
			}
		}
		pick := func() (LinkID, ConnID, Tag) {
			if len(tags) == 0 || len(links) == 0 {
				return LinkID(next()), ConnID(next()), Tag(next())
			}
			k := next()
			return links[k%len(links)], conns[k%len(conns)], tags[k%len(tags)]
		}
		for steps := 0; len(data) > 0 && steps < 200; steps++ {
			now += Millis(next() * 20)
			var ev Event
			switch next() % 8 {
			case 0:
				ev = Tick{}
			case 1:
				l, c, _ := pick()
				ev = LinkConnected{Link: l, Conn: c, LocalIP: "127.0.0.1"}
			case 2:
				l, c, _ := pick()
				ev = LinkClosed{Link: l, Conn: c}
			case 3:
				l, c, tag := pick()
				vals := []Value{Status("PONG"), ErrorValue("BUSY x"), Bulk(masterInfo), Bulk(replicaInfo),
					Array(Int(1), Bulk(word()), Int(int64(next()))), Nil(), Array(), Int(3)}
				ev = Reply{Link: l, Conn: c, Tag: tag, Value: vals[next()%len(vals)]}
			case 4:
				l, c, _ := pick()
				ev = Message{Link: l, Conn: c, Channel: HelloChannel,
					Payload: word() + "," + strconv.Itoa(next()) + "," + word() + "," + strconv.Itoa(next()) + ",mym," + word() + "," + word() + "," + strconv.Itoa(next())}
			case 5, 6:
				n := next() % 8
				args := make([]string, n)
				for k := range args {
					args[k] = word()
				}
				id++
				outstanding[id] = true
				ev = Request{ID: id, Args: args}
			case 7:
				ev = PersistDone{Seq: uint64(next() % 4)}
			}
			collect(s.Step(now, ev))
		}
		// Complete every persist: all requests must then be answered.
		for k := 0; k < 10; k++ {
			effs := s.Step(now, PersistDone{Seq: s.persist.inflight})
			collect(effs)
		}
		if len(outstanding) != 0 {
			t.Fatalf("unanswered requests: %v", outstanding)
		}
	})
}
