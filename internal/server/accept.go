package server

import (
	"errors"
	"net"
	"time"
)

// maxStarting bounds the accepted connections whose goroutine has not
// started running yet. Without it a burst of connections (hostilelat's
// `idle` load: 4000 opened at once) makes the accept loop create
// thousands of runnable goroutines within a few milliseconds, and Go's
// scheduler runs runnable goroutines first in, first out: a request of an
// established client that arrives meanwhile (its goroutine made runnable
// by the poller) waits behind all of them, ~80–220 ms in that load
// (docs/security.md, "Latency under these loads"). With the bound, the
// accept loop waits until one of the new goroutines runs, so at most this
// many are queued ahead of an established client, and the connections
// not accepted yet wait in the kernel's listen backlog, as they do for
// Redis, which accepts at most 1000 per event-loop pass
// (MAX_ACCEPTS_PER_CALL). The parker shares the bound when it resumes
// parked clients that became readable (park_linux.go): in the same load
// 3491 of the 4000 new connections parked before their PING was read and
// were resumed once (a runtime trace of 2026-12-04), in bursts of
// hundreds.
// A token is returned when the goroutine starts, before it reads: a
// client that never sends, or never reads its reply, holds none.
const maxStarting = 16

func (s *Server) acceptLoop(l net.Listener) {
	defer s.wg.Done()
	var delay time.Duration
	for {
		conn, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || s.ctx.Err() != nil {
				return
			}
			// Out of file descriptors and the like: back off like net/http.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			s.cfg.Logf("server: accept: %v; retrying in %v", err, delay)
			select {
			case <-time.After(delay):
			case <-s.ctx.Done():
				return
			}
			continue
		}
		delay = 0
		select {
		case s.starting <- struct{}{}:
		case <-s.ctx.Done():
			_ = conn.Close()
			return
		}
		if !s.accept(conn) {
			<-s.starting
		}
	}
}

// accept registers a connection and starts its goroutine, which returns
// the accept loop's starting token when it runs, or refuses the
// connection when maxclients is reached (false: no goroutine started).
func (s *Server) accept(conn net.Conn) bool {
	s.stats.connections.Add(1)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = conn.Close()
		return false
	}
	if len(s.clients) >= s.cfg.MaxClients {
		s.mu.Unlock()
		s.stats.rejected.Add(1)
		_ = conn.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = conn.Write([]byte("-ERR max number of clients reached\r\n"))
		_ = conn.Close()
		return false
	}
	c := newClient(s, conn)
	s.clients[c.id] = c
	s.wg.Add(1)
	s.mu.Unlock()
	go c.start()
	return true
}

// start is a new connection's goroutine: it hands back the accept loop's
// token, then serves the connection.
func (c *client) start() {
	<-c.s.starting
	c.readLoop()
}

// startResume is a parked client's new goroutine started by the parker
// (park_linux.go): it hands back the token, then resumes the client.
func (c *client) startResume() {
	<-c.s.starting
	c.resume()
}
