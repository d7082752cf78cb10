package server

import (
	"syscall"
	"unsafe"
)

// writeConn writes p to the connection like net.Conn.Write: all of it,
// waiting for writability as needed, honouring the write deadline. On a
// plain TCP or Unix socket (the raw read path's connections) it writes
// with RawSyscall inside RawConn.Write, for the reason rawRead does
// (rawread.go): a write to a non-blocking socket never blocks, and
// entersyscall is what wakes sysmon into its 20 µs polling after every
// idle moment. Errors are the bare errno (or the RawConn's error: closed,
// deadline exceeded); callers only test for non-nil.
func (c *client) writeConn(p []byte) (int, error) {
	if c.rc == nil {
		return c.conn.Write(p)
	}
	n := 0
	var werr error
	err := c.rc.Write(func(fd uintptr) bool {
		for n < len(p) {
			m, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n))
			switch e {
			case 0:
				n += int(m)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait for writability, then write the rest
			default:
				werr = e
				return true
			}
		}
		return true
	})
	if err == nil {
		err = werr
	}
	return n, err
}
