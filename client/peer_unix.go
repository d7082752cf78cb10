//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd || solaris || illumos

package client

import (
	"crypto/tls"
	"errors"
	"net"
	"syscall"
)

// peerClosed reports, without blocking and without consuming anything,
// whether the other end closed or reset c: a MSG_PEEK receive on the
// socket returns 0 bytes (EOF) or an error other than EAGAIN. (A read with
// a past deadline would not do: Go returns the deadline error without
// asking the kernel.) For TLS the underlying TCP socket is checked.
func peerClosed(c net.Conn) bool {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	_ = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = (n == 0 && err == nil) || (err != nil && !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EWOULDBLOCK))
		return true
	})
	return closed
}
