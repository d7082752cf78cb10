//go:build unix

package link

import "syscall"

// canPeek says whether peekEmpty and writeFD work here.
const canPeek = true

// peekEmpty reports whether the socket fd has no byte to read right now
// (recv with MSG_PEEK|MSG_DONTWAIT fails with EAGAIN). EOF and errors count
// as "not empty": the next read reports them.
func peekEmpty(fd uintptr) bool {
	var b [1]byte
	for {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		if err == syscall.EINTR {
			continue
		}
		return err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
	}
}

// writeFD makes one non-blocking write of b on the socket fd. A full
// socket (EAGAIN) is not an error: n is then 0.
func writeFD(fd uintptr, b []byte) (int, error) {
	for {
		n, err := syscall.Write(int(fd), b)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN || err == syscall.EWOULDBLOCK {
			return 0, nil
		}
		return max(n, 0), err
	}
}
