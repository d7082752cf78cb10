//go:build linux

package link

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// connector waits for the non-blocking connects of a Manager's links in
// one goroutine (epoll), so that a link has a goroutine only once its
// socket is connected, as redis-sentinel connects from its event loop
// (anetTcpNonBlockConnect). A link whose connect fails (a refused port, a
// host that does not answer) never had one: each SENTINEL RESET * of
// hundreds of masters redials every link at once, and one goroutine per
// dial (8 KiB and more of stack while it dials) was a good part of the
// peak memory of that load (docs/security.md, "Memory per client").
//
// Only addresses given as IP literals take this path (hostnames, zoned
// IPv6 addresses and a bind-source-addr of the other family dial through
// net.Dialer in the link's goroutine, as before).
type connector struct {
	mu      sync.Mutex
	epfd    int // -1 until first use
	evfd    int // eventfd: wakes the waiter (cancel)
	next    uint32
	pending map[uint32]*pendingConnect
	queue   []uint32 // connects the waiter has still to start
	running bool     // the waiter goroutine runs
	// woken: the eventfd was written and no waiter has taken that wake
	// yet (cleared before it reads the eventfd): later Dials and
	// cancellations need no write of their own, the waiter's next sweep
	// sees them. A SENTINEL RESET * of 200 masters cancels 400 pending
	// connects in one step: one eventfd write, not 400.
	woken bool
	wakes int // eventfd writes (tests)
}

// pendingConnect is one connect under way.
type pendingConnect struct {
	c         *conn
	tok       uint32
	fd        int        // -1 until the waiter started the connect
	src       netip.Addr // bind-source-addr, when valid
	raddr     *net.TCPAddr
	deadline  time.Time
	cancelled bool // fail was called: close without waiting
}

// wakeToken is the epoll token of the eventfd; connects have others.
const wakeToken = 0

// startConnect queues c's connect for the waiter goroutine when it can
// and reports whether it did; otherwise the caller starts c.run. m.mu is
// held and the Manager is not shut down.
//
// The socket(2), connect(2) and epoll_ctl(2) calls run in the waiter, not
// here: Dial's caller is the runtime's loop, and a tick that redials a
// few hundred links would otherwise hold the loop for ~25 µs a link (10 ms
// for 400 links), delaying every client request queued behind that tick
// (docs/security.md, "Latency under these loads").
func (m *Manager) startConnect(c *conn) bool {
	ap, err := netip.ParseAddrPort(c.addr)
	if err != nil || ap.Addr().Zone() != "" {
		return false
	}
	dst := ap.Addr().Unmap()
	var src netip.Addr
	if m.cfg.SourceIP != "" {
		if ip := net.ParseIP(m.cfg.SourceIP); ip != nil {
			src, _ = netip.AddrFromSlice(ip)
			src = src.Unmap()
			if src.Is4() != dst.Is4() {
				return false
			}
		}
	}
	cn := &m.cn
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if !cn.init() {
		return false
	}
	cn.next++
	if cn.next == wakeToken {
		cn.next++
	}
	tok := cn.next
	cn.pending[tok] = &pendingConnect{
		c:        c,
		tok:      tok,
		fd:       -1,
		src:      src,
		raddr:    net.TCPAddrFromAddrPort(netip.AddrPortFrom(dst, ap.Port())),
		deadline: time.Now().Add(m.cfg.DialTimeout),
	}
	// c is not yet visible to any other goroutine but through m.conns,
	// whose lock the caller holds.
	c.cancelDial = func() { m.cancelConnect(tok) }
	cn.queue = append(cn.queue, tok)
	if !cn.running {
		cn.running = true
		m.wg.Add(1)
		go m.waitConnects()
	} else {
		// The waiter takes the whole queue at once: one wake per batch.
		cn.wake()
	}
	return true
}

// wake wakes the waiter unless a wake is pending already; cn.mu is held.
// The waiter clears woken before it reads the eventfd and then looks at
// the queue and the pending connects, so a Dial or a cancellation made
// while woken was set is seen by that sweep.
func (cn *connector) wake() {
	if cn.woken {
		return
	}
	cn.woken = true
	cn.wakes++
	one := [8]byte{1}
	_, _ = unix.Write(cn.evfd, one[:]) // little-endian 1 (amd64, arm64); non-blocking
}

// openSocket makes p's non-blocking socket and starts its connect: the
// socket, or -1 when the connect failed at once (the goroutine path then
// dials again and reports the error: no route, no source address).
func openSocket(p *pendingConnect) int {
	dst := p.raddr.AddrPort().Addr()
	family := unix.AF_INET6
	if dst.Is4() {
		family = unix.AF_INET
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return -1
	}
	if p.src.IsValid() {
		if err := unix.Bind(fd, sockaddr(p.src, 0)); err != nil {
			_ = unix.Close(fd)
			return -1
		}
	}
	switch err := unix.Connect(fd, sockaddr(dst, uint16(p.raddr.Port))); err {
	case nil, unix.EINPROGRESS, unix.EINTR:
		return fd
	default:
		_ = unix.Close(fd)
		return -1
	}
}

// startQueued starts the connects queued by startConnect (the waiter).
func (m *Manager) startQueued() {
	cn := &m.cn
	cn.mu.Lock()
	queue := cn.queue
	cn.queue = nil
	var ps []*pendingConnect
	for _, tok := range queue {
		if p := cn.pending[tok]; p != nil && !p.cancelled {
			ps = append(ps, p)
		}
	}
	cn.mu.Unlock()
	for _, p := range ps {
		fd := openSocket(p)
		cn.mu.Lock()
		tok := p.tok
		switch {
		case cn.pending[tok] != p:
			// Gone meanwhile (cannot happen: only this goroutine
			// removes pending connects).
			cn.mu.Unlock()
			if fd >= 0 {
				_ = unix.Close(fd)
			}
			continue
		case fd < 0:
			delete(cn.pending, tok)
			cn.mu.Unlock()
			go p.c.run() // m.wg.Done when it ends
			continue
		}
		p.fd = fd
		if !p.cancelled {
			ev := unix.EpollEvent{Events: unix.EPOLLOUT, Fd: int32(tok)}
			if err := unix.EpollCtl(cn.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
				delete(cn.pending, tok)
				p.fd = -1
				cn.mu.Unlock()
				_ = unix.Close(fd)
				go p.c.run()
				continue
			}
		}
		// Cancelled: the waiter's next sweep closes fd.
		cn.mu.Unlock()
	}
}

// init creates the epoll instance and the eventfd on first use; cn.mu is
// held.
func (cn *connector) init() bool {
	if cn.pending != nil {
		return true
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return false
	}
	evfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		_ = unix.Close(epfd)
		return false
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeToken}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, evfd, &ev); err != nil {
		_ = unix.Close(epfd)
		_ = unix.Close(evfd)
		return false
	}
	cn.epfd, cn.evfd = epfd, evfd
	cn.pending = make(map[uint32]*pendingConnect)
	return true
}

// close releases the epoll instance; no connect is pending (Shutdown,
// after the waiter returned).
func (cn *connector) close() {
	cn.mu.Lock()
	defer cn.mu.Unlock()
	if cn.pending == nil {
		return
	}
	_ = unix.Close(cn.epfd)
	_ = unix.Close(cn.evfd)
	cn.pending = nil
}

// cancelConnect is the cancelDial of a pending connect: the waiter closes
// the socket and finishes the link. It may be called with c.mu held.
func (m *Manager) cancelConnect(tok uint32) {
	cn := &m.cn
	cn.mu.Lock()
	p := cn.pending[tok]
	if p == nil || p.cancelled {
		cn.mu.Unlock()
		return
	}
	p.cancelled = true
	cn.wake()
	cn.mu.Unlock()
}

// waitConnects is the waiter: it hands each connected socket to a new
// goroutine of its link (runConnected) and fails the others, until no
// connect is pending.
func (m *Manager) waitConnects() {
	defer m.wg.Done()
	cn := &m.cn
	var events [64]unix.EpollEvent
	var due []*pendingConnect
	for {
		m.startQueued()
		// Cancelled and timed-out connects first; the next deadline
		// bounds the wait.
		now := time.Now()
		next := now.Add(time.Hour)
		cn.mu.Lock()
		if len(cn.pending) == 0 {
			cn.running = false
			cn.mu.Unlock()
			return
		}
		due = due[:0]
		for tok, p := range cn.pending {
			if p.cancelled || !now.Before(p.deadline) {
				delete(cn.pending, tok)
				if p.fd >= 0 {
					_ = unix.EpollCtl(cn.epfd, unix.EPOLL_CTL_DEL, p.fd, nil)
				}
				due = append(due, p)
			} else if p.deadline.Before(next) {
				next = p.deadline
			}
		}
		epfd, evfd := cn.epfd, cn.evfd
		cn.mu.Unlock()
		for i, p := range due {
			due[i] = nil
			var err error = &net.OpError{Op: "dial", Net: "tcp", Addr: p.raddr, Err: os.ErrDeadlineExceeded}
			if p.cancelled {
				err = errors.New("connect cancelled")
			}
			m.connectDone(p, err)
		}
		if len(due) > 0 {
			continue
		}
		wait := int(time.Until(next)/time.Millisecond) + 1
		n, err := unix.EpollWait(epfd, events[:], wait)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			// Cannot happen with a valid epoll fd; fail every connect
			// rather than spin.
			m.failConnects(fmt.Errorf("epoll_wait: %w", err))
			continue
		}
		for _, ev := range events[:n] {
			tok := uint32(ev.Fd)
			if tok == wakeToken {
				cn.mu.Lock()
				cn.woken = false
				cn.mu.Unlock()
				var b [8]byte
				_, _ = unix.Read(evfd, b[:])
				continue
			}
			cn.mu.Lock()
			p := cn.pending[tok]
			if p != nil {
				delete(cn.pending, tok)
				_ = unix.EpollCtl(cn.epfd, unix.EPOLL_CTL_DEL, p.fd, nil)
			}
			cn.mu.Unlock()
			if p == nil {
				continue
			}
			var err error
			if p.cancelled {
				err = errors.New("connect cancelled")
			} else if soerr, gerr := unix.GetsockoptInt(p.fd, unix.SOL_SOCKET, unix.SO_ERROR); gerr != nil {
				err = &net.OpError{Op: "dial", Net: "tcp", Addr: p.raddr, Err: os.NewSyscallError("getsockopt", gerr)}
			} else if soerr != 0 {
				err = &net.OpError{Op: "dial", Net: "tcp", Addr: p.raddr, Err: os.NewSyscallError("connect", unix.Errno(soerr))}
			}
			m.connectDone(p, err)
		}
	}
}

// failConnects fails every pending connect with err.
func (m *Manager) failConnects(err error) {
	cn := &m.cn
	cn.mu.Lock()
	var all []*pendingConnect
	for tok, p := range cn.pending {
		delete(cn.pending, tok)
		if p.fd >= 0 {
			_ = unix.EpollCtl(cn.epfd, unix.EPOLL_CTL_DEL, p.fd, nil)
		}
		all = append(all, p)
	}
	cn.mu.Unlock()
	for _, p := range all {
		m.connectDone(p, err)
	}
}

// connectDone ends a pending connect: with err, the socket is closed and
// the link finishes (Closed, unless the caller closed it); connected, the
// socket goes to the Go poller and the link gets its goroutine.
func (m *Manager) connectDone(p *pendingConnect, err error) {
	c := p.c
	_ = c.setCancel(nil)
	if err == nil {
		f := os.NewFile(uintptr(p.fd), "")
		var nc net.Conn
		nc, err = net.FileConn(f) // a dup registered with the poller
		_ = f.Close()
		if err == nil {
			go c.runConnected(nc, p.deadline) // m.wg.Done when it ends
			return
		}
	} else if p.fd >= 0 {
		_ = unix.Close(p.fd)
	}
	c.fail(fmt.Errorf("%w: %s: %w", ErrDial, c.addr, err))
	c.finish()
	m.wg.Done()
}

// sockaddr converts an address and port.
func sockaddr(a netip.Addr, port uint16) unix.Sockaddr {
	if a.Is4() {
		return &unix.SockaddrInet4{Port: int(port), Addr: a.As4()}
	}
	return &unix.SockaddrInet6{Port: int(port), Addr: a.As16()}
}
