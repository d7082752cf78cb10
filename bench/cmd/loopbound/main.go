// Command loopbound is the upper-bound experiment behind docs/decisions.md
// 32: how much CPU per request would an event loop of our own save over
// Go's goroutine per connection, for the query every client asks?
//
// It is a minimal server, not a sentinel: it answers every complete RESP
// multibulk command with the same two-element array (the reply of
// SENTINEL GET-MASTER-ADDR-BY-NAME), with no dispatch, ACL or state, so
// that what differs between its two modes is only how a ready connection
// reaches the code that serves it:
//
//   - -mode g: one goroutine per connection, reading and writing with raw
//     system calls inside one syscall.RawConn.Read callback that returns
//     to Go's poller after a short read — the shape of gosentinel's client
//     port (internal/server/rawread.go, rawwrite.go).
//   - -mode e (Linux): one goroutine serves every connection from an epoll
//     set of its own (edge-triggered), itself parked on Go's poller, so a
//     batch of ready connections costs one goroutine wake-up — the shape
//     of Redis' event loop.
//
// Run side by side with redis-sentinel through bench/scripts/query-ab.sh,
// which passes a sentinel config file as the last argument; loopbound
// listens on 127.0.0.1 at that file's "port":
//
//	go build -o bin/loopbound ./bench/cmd/loopbound
//	bench/scripts/query-ab.sh 5 real=redis-sentinel g="bin/loopbound -mode g" e="bin/loopbound -mode e"
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

var reply = []byte("*2\r\n$9\r\n127.0.0.1\r\n$4\r\n6379\r\n")

// conn is one client connection and its unparsed input.
type conn struct {
	c   net.Conn
	rc  syscall.RawConn
	buf []byte
	n   int
	out []byte
}

func rawRead(fd uintptr, p []byte) (int, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}

// rawWrite writes p; the replies are small enough for the socket buffer
// (a client that stops reading is not this experiment's concern).
func rawWrite(fd uintptr, p []byte) {
	for len(p) > 0 {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return
		}
		p = p[n:]
	}
}

// serve reads what the socket holds and answers every complete command,
// until a read comes back short or with EAGAIN (then the poller, Go's or
// the loop's, reports the next edge). It returns true when the
// connection is done.
func (k *conn) serve(fd uintptr) (done bool) {
	for {
		room := len(k.buf) - k.n
		if room == 0 {
			return true // a command over 4 KiB: not part of the experiment
		}
		m, e := rawRead(fd, k.buf[k.n:])
		if e == syscall.EAGAIN {
			return false
		}
		if e == syscall.EINTR {
			continue
		}
		if e != 0 || m == 0 {
			return true
		}
		k.n += m
		off := 0
		k.out = k.out[:0]
		for {
			u := parse(k.buf[off:k.n])
			if u == 0 {
				break
			}
			off += u
			k.out = append(k.out, reply...)
		}
		copy(k.buf, k.buf[off:k.n])
		k.n -= off
		rawWrite(fd, k.out)
		if m < room {
			return false
		}
	}
}

// parse returns the length of the first complete multibulk command in b,
// or 0 when b holds none yet.
func parse(b []byte) int {
	num := func(i int) (int, int) {
		v := 0
		for i < len(b) && b[i] != '\r' {
			v = v*10 + int(b[i]-'0')
			i++
		}
		if i+1 >= len(b) {
			return 0, -1
		}
		return v, i + 2
	}
	if len(b) == 0 || b[0] != '*' {
		return 0
	}
	n, i := num(1)
	if i < 0 {
		return 0
	}
	for ; n > 0; n-- {
		if i >= len(b) {
			return 0
		}
		l, j := num(i + 1)
		if j < 0 || j+l+2 > len(b) {
			return 0
		}
		i = j + l + 2
	}
	return i
}

// goroutine serves one connection on its own goroutine (-mode g).
func goroutine(k *conn) {
	_ = k.rc.Read(func(fd uintptr) bool { return k.serve(fd) })
	_ = k.c.Close()
}

// portOf reads "port N" from a sentinel config file.
func portOf(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "port "); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("no port line in %s", path)
}

func main() {
	mode := flag.String("mode", "g", "g: goroutine per connection; e: one epoll loop (Linux)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: loopbound [-mode g|e] sentinel.conf")
		os.Exit(2)
	}
	port, err := portOf(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "loopbound:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "loopbound:", err)
		os.Exit(1)
	}
	var l *loop
	if *mode == "e" {
		if l, err = newLoop(); err != nil {
			fmt.Fprintln(os.Stderr, "loopbound:", err)
			os.Exit(1)
		}
		go l.run()
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			fmt.Fprintln(os.Stderr, "loopbound:", err)
			os.Exit(1)
		}
		rc, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			_ = c.Close()
			continue
		}
		k := &conn{c: c, rc: rc, buf: make([]byte, 4096)}
		if l == nil {
			go goroutine(k)
		} else if err := l.add(k); err != nil {
			_ = c.Close()
		}
	}
}
