//go:build unix

package link

import (
	"syscall"
	"unsafe"
)

// Both calls below are made with syscall.RawSyscall, without the
// scheduler's entersyscall/exitsyscall: a recv with MSG_DONTWAIT or a
// write on a non-blocking socket never blocks, so there is nothing to
// hand off, and entersyscall wakes the runtime's sysmon thread into 20 µs
// polling whenever it was asleep (docs/decisions.md 24 and 32; the client
// port's reads and writes already avoid it). A runtime loop that writes
// to hundreds of links per second kept sysmon awake on an otherwise idle
// sentinel.

// canPeek says whether peekEmpty and writeFD work here.
const canPeek = true

// peekEmpty reports whether the socket fd has no byte to read right now
// (recv with MSG_PEEK|MSG_DONTWAIT fails with EAGAIN). EOF and errors count
// as "not empty": the next read reports them.
func peekEmpty(fd uintptr) bool {
	var b [1]byte
	for {
		_, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(&b[0])), 1,
			syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		return e == syscall.EAGAIN || e == syscall.EWOULDBLOCK
	}
}

// writeFD makes one non-blocking write of b on the socket fd. A full
// socket (EAGAIN) is not an error: n is then 0.
func writeFD(fd uintptr, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch e {
		case 0:
			return int(n), nil
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return 0, nil
		}
		return 0, e
	}
}
