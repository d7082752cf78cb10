//go:build linux

package server

import (
	"context"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Parking idle connections (docs/security.md, "Memory per client").
//
// A connection on the raw read path (rawread.go) that has waited
// parkDelay for input without any arriving gives up its goroutine: its
// socket is registered, one-shot, in an epoll instance of the server and
// the goroutine returns. When the socket becomes readable (a command, the
// peer's close), the parker goroutine starts a new reader goroutine for
// it, which goes on exactly where the old one stopped: nothing was
// buffered, no reply was pending. An idle connection then costs its
// client struct and socket, as in Redis (a client struct per connection
// and no thread), instead of a goroutine stack of 4–8 KiB: with 4000 idle
// connections that was 16 MiB of stacks (and ~4 KiB of read buffer each
// before the buffer was taken lazily, resp.NewReaderSize).
//
// Busy connections do not park: the deadline is moved forward before each
// wait, so only a connection quiet for parkDelay pays the epoll_ctl and
// the new goroutine (a few microseconds, at most once per parkDelay).
// When many connections have a goroutine at once (parkCrowd: thousands of
// clients connecting together, each sending a command and going quiet),
// the delay is parkDelayCrowded, so that their goroutine stacks do not
// pile up before they park (park.go).
//
// The epoll instance is itself waited for by the Go poller (an epoll fd
// is readable while it has ready events), so the parker holds no thread
// in epoll_wait. Killing a parked client (CLIENT KILL, an output limit,
// Server.Close) resumes it so that its goroutine finishes it; a client
// with an idle timeout is resumed by a timer when the timeout is due.

// parkSupported: connections on the raw read path can park.
const parkSupported = true

// parker holds the parked clients of a Server.
type parker struct {
	mu      sync.Mutex
	started bool // the epoll instance and its goroutine were set up (or failed: file nil)
	stopped bool // the parker goroutine ended: no more parking
	epfd    int
	file    *os.File
	parked  map[int64]*client
}

// startLocked sets up the epoll instance and the parker goroutine on first
// use; p.mu is held and the caller is a client goroutine (it holds a count
// of s.wg). It reports whether parking is possible.
func (p *parker) startLocked(s *Server) bool {
	if p.started {
		return p.file != nil && !p.stopped
	}
	p.started = true
	if s.ctx.Err() != nil {
		return false
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		s.cfg.Logf("server: epoll_create1: %v; idle connections keep their goroutine", err)
		return false
	}
	if err := unix.SetNonblock(epfd, true); err != nil {
		_ = unix.Close(epfd)
		return false
	}
	// Non-blocking: os.NewFile registers it with the Go poller.
	p.file = os.NewFile(uintptr(epfd), "client-park-epoll")
	p.epfd = epfd
	p.parked = make(map[int64]*client)
	s.wg.Add(1)
	go p.run(s)
	return true
}

// park parks c, whose goroutine found it idle for parkDelay (nothing
// buffered, nothing pending). It reports whether c is parked: the caller's
// goroutine must then return without touching c again.
func (s *Server) park(c *client) bool {
	p := &s.parker
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.startLocked(s) {
		return false
	}
	c.mu.Lock()
	closing := c.closing
	c.mu.Unlock()
	if closing {
		return false
	}
	// The registration carries the client id, not a pointer: an event
	// for a client that is no longer parked (resumed by kill or a timer,
	// gone) finds nothing and is dropped.
	ev := unix.EpollEvent{
		Events: unix.EPOLLIN | unix.EPOLLRDHUP | unix.EPOLLONESHOT,
		Fd:     int32(uint32(c.id)),
		Pad:    int32(uint32(uint64(c.id) >> 32)),
	}
	p.parked[c.id] = c // before epoll_ctl: the event may come at once
	var cerr error
	// Control holds the socket open: no epoll_ctl on a descriptor that
	// was closed (and perhaps reused) meanwhile.
	err := c.rc.Control(func(fd uintptr) {
		op := unix.EPOLL_CTL_MOD
		if !c.registered {
			op = unix.EPOLL_CTL_ADD
		}
		cerr = unix.EpollCtl(p.epfd, op, int(fd), &ev)
		if cerr == unix.EEXIST {
			cerr = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_MOD, int(fd), &ev)
		} else if cerr == unix.ENOENT {
			cerr = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, int(fd), &ev)
		}
	})
	if err != nil || cerr != nil {
		delete(p.parked, c.id)
		return false
	}
	c.registered = true
	if !c.idleDeadline.IsZero() {
		c.parkTimer = time.AfterFunc(time.Until(c.idleDeadline), func() { s.unpark(c) })
	}
	return true
}

// inputPending reports whether c's socket has input to read now. The
// park deadline can fire while a request already sits in the socket, the
// poller not having reported it yet (both Ps busy: a trace of the `idle`
// load showed the victim's connection park 50 ms after its PONG with its
// next request pending, and then wait 128 ms for the parker, which was
// resuming a crowd): such a connection keeps its goroutine.
func (c *client) inputPending() bool {
	pending := false
	_ = c.rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		pending = err == nil && n > 0 && fds[0].Revents&unix.POLLIN != 0
	})
	return pending
}

// unpark resumes c if it is parked (kill, idle timeout).
func (s *Server) unpark(c *client) {
	p := &s.parker
	p.mu.Lock()
	if p.parked[c.id] == c {
		delete(p.parked, c.id)
		p.resumeLocked(s, c)
	}
	p.mu.Unlock()
}

// resumeLocked starts a new goroutine for c, removed from p.parked; p.mu
// is held. The parker goroutine holds a count of s.wg while any client is
// parked, so the Add cannot race Server.Close's Wait.
func (p *parker) resumeLocked(s *Server, c *client) {
	p.stopTimerLocked(c)
	s.wg.Add(1)
	go c.resume()
}

// stopTimerLocked stops the idle-timeout timer of c, which is no longer
// parked; p.mu is held.
func (p *parker) stopTimerLocked(c *client) {
	if c.parkTimer != nil {
		c.parkTimer.Stop()
		c.parkTimer = nil
	}
}

// run is the parker goroutine: it resumes the clients whose sockets
// became readable until the server closes.
func (p *parker) run(s *Server) {
	defer s.wg.Done()
	stop := context.AfterFunc(s.ctx, func() { _ = p.file.Close() })
	defer stop()
	var events [128]unix.EpollEvent
	if rc, err := p.file.SyscallConn(); err == nil {
		_ = rc.Read(func(fd uintptr) bool {
			for {
				n, err := unix.EpollWait(int(fd), events[:], 0)
				if err == unix.EINTR {
					continue
				}
				if err != nil {
					return true
				}
				if n == 0 {
					return false // wait for the poller
				}
				var ready [len(events)]*client
				k := 0
				p.mu.Lock()
				for _, ev := range events[:n] {
					id := int64(uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32)
					if c := p.parked[id]; c != nil {
						delete(p.parked, id)
						p.stopTimerLocked(c)
						ready[k] = c
						k++
					}
				}
				p.mu.Unlock()
				// Like the accept loop, start at most maxStarting of
				// them ahead of their goroutines (accept.go): a burst
				// of parked clients becoming readable at once does not
				// queue hundreds of runnable goroutines ahead of an
				// established client's request. This goroutine holds a
				// count of s.wg (above), so the Adds cannot race Close.
				for _, c := range ready[:k] {
					s.wg.Add(1)
					select {
					case s.starting <- struct{}{}:
						go c.startResume()
					case <-s.ctx.Done():
						go c.resume()
					}
				}
			}
		})
	}
	// Closed (or the poller refused the epoll fd): nobody stays parked.
	p.mu.Lock()
	p.stopped = true
	for id, c := range p.parked {
		delete(p.parked, id)
		p.resumeLocked(s, c)
	}
	p.mu.Unlock()
	_ = p.file.Close()
}
