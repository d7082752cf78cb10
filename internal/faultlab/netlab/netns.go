package netlab

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// inNetns runs fn on a fresh OS thread that has joined the network
// namespace ns. The thread is locked and never unlocked, so the Go runtime
// discards it when fn returns: no other goroutine ever runs in the lab's
// namespace by accident. Sockets created by fn stay in ns for their life.
func inNetns(ns string, fn func() error) error {
	errc := make(chan error, 1)
	go netnsThread(ns, fn, errc)
	return <-errc
}

func netnsThread(ns string, fn func() error, errc chan<- error) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// Never move the main thread: Go cannot end it, so it would stay
		// in the lab namespace (and keep it alive) forever. While we hold
		// it, the new goroutine gets another thread.
		inner := make(chan error, 1)
		go netnsThread(ns, fn, inner)
		errc <- <-inner
		runtime.UnlockOSThread()
		return
	}
	// No UnlockOSThread from here on: the thread exits with the goroutine.
	f, err := os.Open("/run/netns/" + ns)
	if err != nil {
		errc <- fmt.Errorf("netlab: open netns %s: %w", ns, err)
		return
	}
	err = unix.Setns(int(f.Fd()), unix.CLONE_NEWNET)
	f.Close()
	if err != nil {
		errc <- fmt.Errorf("netlab: setns %s: %w", ns, err)
		return
	}
	errc <- fn()
}

// DialContext connects from inside the host's network namespace, so the
// connection is cut with the host. A host name in addr is resolved through
// the lab's hosts table as this host sees it (an unresolvable lab host
// fails); anything else must be an IP address.
func (h *Host) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("netlab: dial from %s: %w", h.Name, err)
	}
	if net.ParseIP(host) == nil {
		ip, ok := h.lab.resolve(host)
		if !ok {
			return nil, fmt.Errorf("netlab: dial from %s: %w", h.Name, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true})
		}
		addr = net.JoinHostPort(ip, port)
	}
	var c net.Conn
	err = inNetns(h.ns, func() error {
		var d net.Dialer
		var derr error
		c, derr = d.DialContext(ctx, network, addr)
		return derr
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// InNetns runs fn on a fresh OS thread that has joined the host's network
// namespace and waits for it: every socket fn creates on its own goroutine
// (net.Dialer.Dial, net.Listen) is in the host's namespace, so one call can
// open many connections without a thread per dial (DialContext's cost).
// Goroutines that fn starts run on other threads, outside the namespace.
func (h *Host) InNetns(fn func() error) error { return inNetns(h.ns, fn) }

// Listen listens inside the host's network namespace ("tcp", ":0" listens
// on every address of the host).
func (h *Host) Listen(network, addr string) (net.Listener, error) {
	var ln net.Listener
	err := inNetns(h.ns, func() error {
		var lerr error
		ln, lerr = net.Listen(network, addr)
		return lerr
	})
	if err != nil {
		return nil, fmt.Errorf("netlab: listen on %s: %w", h.Name, err)
	}
	return ln, nil
}

// commandContext is exec.CommandContext with a bounded wait for the output
// pipes, so a grandchild holding them cannot hang the caller.
func commandContext(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 2 * time.Second
	return cmd
}
