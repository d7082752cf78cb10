//go:build linux

package main

import (
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// loop serves every connection from one goroutine (-mode e). Its epoll
// descriptor is non-blocking and registered with Go's poller (os.NewFile),
// so the goroutine parks there while no connection is ready and one
// wake-up brings a whole batch. The connections stay in Go's poller too
// (they are net.Conns); nobody waits on them there.
type loop struct {
	ep    int
	f     *os.File
	mu    sync.Mutex
	conns map[int32]*conn
}

func newLoop() (*loop, error) {
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	if err := syscall.SetNonblock(ep, true); err != nil {
		return nil, err
	}
	return &loop{ep: ep, f: os.NewFile(uintptr(ep), "epoll"), conns: map[int32]*conn{}}, nil
}

// add registers a connection, edge-triggered; a connection that already
// has input is reported at once.
func (l *loop) add(k *conn) error {
	var fd int
	if err := k.rc.Control(func(f uintptr) { fd = int(f) }); err != nil {
		return err
	}
	l.mu.Lock()
	l.conns[int32(fd)] = k
	l.mu.Unlock()
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP | 1<<31 /* EPOLLET */, Fd: int32(fd)}
	return syscall.EpollCtl(l.ep, syscall.EPOLL_CTL_ADD, fd, &ev)
}

func (l *loop) run() {
	rc, err := l.f.SyscallConn()
	if err != nil {
		panic(err)
	}
	evs := make([]syscall.EpollEvent, 128)
	_ = rc.Read(func(efd uintptr) bool {
		for {
			n, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, efd, uintptr(unsafe.Pointer(&evs[0])), uintptr(len(evs)), 0, 0, 0)
			if e == syscall.EINTR {
				continue
			}
			if e != 0 || n == 0 {
				return false // park on Go's poller until the set has a ready connection
			}
			for _, ev := range evs[:n] {
				l.mu.Lock()
				k := l.conns[ev.Fd]
				l.mu.Unlock()
				if k == nil {
					continue
				}
				done := true
				_ = k.rc.Control(func(fd uintptr) { done = k.serve(fd) })
				if done {
					_ = syscall.EpollCtl(l.ep, syscall.EPOLL_CTL_DEL, int(ev.Fd), nil)
					l.mu.Lock()
					delete(l.conns, ev.Fd)
					l.mu.Unlock()
					_ = k.c.Close()
				}
			}
			if int(n) < len(evs) {
				return false // drained: every later event raises a new edge
			}
		}
	})
}
