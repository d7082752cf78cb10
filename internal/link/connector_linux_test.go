//go:build linux

package link

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fullListener returns the address of a listening socket whose accept
// queue is full (backlog 0, one connection queued and never accepted):
// the kernel drops further SYNs, so a connect to it stays under way until
// the dialer gives up.
func fullListener(t *testing.T) string {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*unix.SockaddrInet4).Port)
	// Fill the queue: these connect (the kernel completes the handshake
	// for the queued ones) and are never accepted.
	for range 2 {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err != nil {
			break
		}
		t.Cleanup(func() { c.Close() })
	}
	return addr
}

// refusedAddr returns an address nothing listens on.
func refusedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestConnectsWithoutGoroutines: links whose connect is under way have no
// goroutine each (one waiter serves them all, as redis-sentinel connects
// from its event loop); Shutdown aborts them at once, silently. With a
// goroutine per dial, 200 links to a host that does not answer held 200
// goroutines (and their stacks) until the dial timeout.
func TestConnectsWithoutGoroutines(t *testing.T) {
	addr := fullListener(t)
	m := NewManager(Config{DialTimeout: time.Hour})
	before := runtime.NumGoroutine()
	const n = 200
	for id := range ConnID(n) {
		if err := m.Dial(id, addr, Cmd); err != nil {
			t.Fatal(err)
		}
	}
	if g := runtime.NumGoroutine() - before; g > 3 {
		t.Errorf("%d links connecting hold %d goroutines, want at most 3", n, g)
	}
	m.Close(0)
	done := make(chan struct{})
	go func() { m.Shutdown(); close(done) }()
	select {
	case <-done:
	case <-time.After(waitFor):
		t.Fatal("Shutdown waits for connects under way")
	}
	select {
	case ev := <-m.Events():
		t.Fatalf("event after Close and Shutdown: %#v", ev)
	default:
	}
}

// TestConnectErrors: the connects the waiter serves fail as net.Dialer's
// do: refused (ECONNREFUSED) and timed out (a net.Error with Timeout),
// each wrapped in ErrDial; a queue overflow while connecting closes the
// link with ErrQueueFull and every pending tag.
func TestConnectErrors(t *testing.T) {
	m := newManager(t, Config{DialTimeout: 300 * time.Millisecond, MaxPending: 2})
	if err := m.Dial(1, refusedAddr(t), Cmd); err != nil {
		t.Fatal(err)
	}
	c := mustClosed(t, m, 1, ErrDial)
	if !errors.Is(c.Err, syscall.ECONNREFUSED) {
		t.Errorf("refused connect: %v, want ECONNREFUSED", c.Err)
	}

	full := fullListener(t)
	start := time.Now()
	if err := m.Dial(2, full, Cmd); err != nil {
		t.Fatal(err)
	}
	c = mustClosed(t, m, 2, ErrDial)
	var ne net.Error
	if !errors.As(c.Err, &ne) || !ne.Timeout() {
		t.Errorf("connect past DialTimeout: %v, want a timeout", c.Err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("timed out after %v, before DialTimeout", d)
	}

	if err := m.Dial(3, full, Cmd); err != nil {
		t.Fatal(err)
	}
	for tag := range Tag(3) {
		m.Send(3, tag, []string{"PING"}, 0)
	}
	c = mustClosed(t, m, 3, ErrQueueFull)
	if fmt.Sprint(c.Pending) != "[0 1 2]" {
		t.Errorf("pending = %v, want [0 1 2]", c.Pending)
	}
}

// TestCancelConnectsWakeOnce: closing hundreds of links whose connects
// are under way (SENTINEL RESET * of 200 masters closes 400 of them in one
// step) wakes the waiter a few times, not once a link: a cancellation
// made while a wake is pending writes no eventfd of its own. Every link
// still ends (Shutdown returns at once).
func TestCancelConnectsWakeOnce(t *testing.T) {
	addr := fullListener(t)
	m := NewManager(Config{DialTimeout: time.Hour})
	const n = 400
	for id := range ConnID(n) {
		if err := m.Dial(id, addr, Cmd); err != nil {
			t.Fatal(err)
		}
	}
	// Let the waiter start every connect (socket, connect, epoll_ctl).
	deadline := time.Now().Add(waitFor)
	for {
		m.cn.mu.Lock()
		started := len(m.cn.queue) == 0
		m.cn.mu.Unlock()
		if started || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	m.cn.mu.Lock()
	before := m.cn.wakes
	m.cn.mu.Unlock()
	for id := range ConnID(n) {
		m.Close(id)
	}
	m.cn.mu.Lock()
	wakes := m.cn.wakes - before
	m.cn.mu.Unlock()
	if wakes > n/8 {
		t.Errorf("closing %d connecting links wrote the waiter's eventfd %d times, want a few", n, wakes)
	}
	done := make(chan struct{})
	go func() { m.Shutdown(); close(done) }()
	select {
	case <-done:
	case <-time.After(waitFor):
		t.Fatal("Shutdown waits for cancelled connects")
	}
}
