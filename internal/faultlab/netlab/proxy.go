package netlab

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// proxy is the userspace link shaper behind Delay and Bandwidth: it listens
// on 127.0.0.1 inside the source host's namespace; an nft redirect in that
// namespace sends the source's new connections to to:port into it, and it
// dials the real destination from the same namespace (source address
// unchanged, so the destination still sees the true client address).
type proxy struct {
	from, to *Host
	port     int
	delay    time.Duration
	jitter   time.Duration
	up, down *limiter // nil = unlimited
	ln       net.Listener

	mu     sync.Mutex
	closed bool
	conns  map[net.Conn]bool
	wg     sync.WaitGroup
}

// Delay adds delay (± jitter, uniformly) to every chunk `from` sends to
// `to`'s TCP port, keeping byte order; the reverse direction is not delayed,
// so a request/response round trip grows by delay ± jitter. Connections
// `from` had open to that port are reset (they reconnect through the
// proxy); heal closes the proxied connections (they reconnect directly).
func (l *Lab) Delay(from, to *Host, port int, delay, jitter time.Duration) (heal func() error, err error) {
	if delay < 0 || jitter < 0 || jitter > delay {
		return nil, fmt.Errorf("netlab: delay %v jitter %v: need 0 <= jitter <= delay", delay, jitter)
	}
	return l.startProxy(from, to, port, &proxy{delay: delay, jitter: jitter},
		fmt.Sprintf("delay %s->%s:%d %v±%v", from.Name, to.Name, port, delay, jitter))
}

// Bandwidth limits `from`'s TCP traffic with `to`'s port to bytesPerSec in
// each direction (shared by all its connections), through the same proxy
// as Delay, with the same reset-on-start and close-on-heal behaviour.
func (l *Lab) Bandwidth(from, to *Host, port int, bytesPerSec int) (heal func() error, err error) {
	if bytesPerSec <= 0 {
		return nil, fmt.Errorf("netlab: bandwidth %d bytes/s: must be positive", bytesPerSec)
	}
	return l.startProxy(from, to, port, &proxy{up: newLimiter(bytesPerSec), down: newLimiter(bytesPerSec)},
		fmt.Sprintf("bandwidth %s->%s:%d %d B/s", from.Name, to.Name, port, bytesPerSec))
}

func (l *Lab) startProxy(from, to *Host, port int, px *proxy, what string) (func() error, error) {
	if err := checkPair(from, to); err != nil {
		return nil, err
	}
	if port <= 0 || port > 65535 {
		return nil, fmt.Errorf("netlab: port %d out of range", port)
	}
	ln, err := from.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	px.from, px.to, px.port, px.ln, px.conns = from, to, port, ln, map[net.Conn]bool{}
	px.wg.Add(1)
	go px.serve()
	f := &fault{kind: kindProxy, from: from, to: to, port: port, proxyPort: ln.Addr().(*net.TCPAddr).Port}
	heal, err := l.addFaults(what, []*fault{f}, px.close)
	if err != nil {
		px.close()
		return nil, err
	}
	l.mu.Lock()
	l.proxies[f.id] = px
	l.mu.Unlock()
	return func() error {
		err := heal()
		l.mu.Lock()
		delete(l.proxies, f.id)
		l.mu.Unlock()
		return err
	}, nil
}

func (px *proxy) serve() {
	defer px.wg.Done()
	for {
		c, err := px.ln.Accept()
		if err != nil {
			return
		}
		if !px.track(c) {
			c.Close()
			return
		}
		px.wg.Add(1)
		go px.handle(c)
	}
}

func (px *proxy) track(c net.Conn) bool {
	px.mu.Lock()
	defer px.mu.Unlock()
	if px.closed {
		return false
	}
	px.conns[c] = true
	return true
}

func (px *proxy) untrack(c net.Conn) {
	px.mu.Lock()
	delete(px.conns, c)
	px.mu.Unlock()
	c.Close()
}

// dialUpstream connects to the real destination from the source's
// namespace with proxyMark set, so the redirect rule skips it.
func (px *proxy) dialUpstream() (net.Conn, error) {
	var c net.Conn
	err := inNetns(px.from.ns, func() error {
		d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, rc syscall.RawConn) error {
			var serr error
			if err := rc.Control(func(fd uintptr) {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_MARK, proxyMark)
			}); err != nil {
				return err
			}
			return serr
		}}
		var derr error
		c, derr = d.DialContext(context.Background(), "tcp4", net.JoinHostPort(px.to.IP(), strconv.Itoa(px.port)))
		return derr
	})
	return c, err
}

func (px *proxy) handle(client net.Conn) {
	defer px.wg.Done()
	defer px.untrack(client)
	up, err := px.dialUpstream()
	if err != nil {
		// The destination is unreachable: make the client see a reset, as
		// it would without the proxy.
		if tc, ok := client.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		return
	}
	if !px.track(up) {
		up.Close()
		return
	}
	defer px.untrack(up)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); px.pipe(up, client, px.delay, px.jitter, px.up) }()
	go func() { defer wg.Done(); px.pipe(client, up, 0, 0, px.down) }()
	wg.Wait()
}

type chunk struct {
	b       []byte
	release time.Time
}

// pipe copies src to dst, holding each chunk until its release time and
// pacing through lim. At EOF it half-closes dst.
func (px *proxy) pipe(dst, src net.Conn, delay, jitter time.Duration, lim *limiter) {
	defer func() {
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	}()
	size := 32 << 10
	if lim != nil && lim.rate/20 < size {
		size = max(lim.rate/20, 64)
	}
	if delay == 0 {
		buf := make([]byte, size)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				if lim != nil {
					lim.wait(n)
				}
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	q := make(chan chunk, 4096)
	go func() {
		defer close(q)
		var last time.Time
		for {
			buf := make([]byte, size)
			n, err := src.Read(buf)
			if n > 0 {
				d := delay
				if jitter > 0 {
					d += time.Duration(rand.Int64N(int64(2*jitter)+1)) - jitter
				}
				rel := time.Now().Add(d)
				if rel.Before(last) { // keep byte order
					rel = last
				}
				last = rel
				q <- chunk{buf[:n], rel}
			}
			if err != nil {
				return
			}
		}
	}()
	t := time.NewTimer(0)
	defer t.Stop()
	for c := range q {
		if wait := time.Until(c.release); wait > 0 {
			t.Reset(wait)
			<-t.C
		}
		if lim != nil {
			lim.wait(len(c.b))
		}
		if _, err := dst.Write(c.b); err != nil {
			src.Close()
			for range q { // drain so the reader exits
			}
			return
		}
	}
}

// close stops the proxy and closes every proxied connection.
func (px *proxy) close() {
	px.mu.Lock()
	if px.closed {
		px.mu.Unlock()
		return
	}
	px.closed = true
	conns := px.conns
	px.conns = map[net.Conn]bool{}
	px.mu.Unlock()
	px.ln.Close()
	for c := range conns {
		c.Close()
	}
	px.wg.Wait()
}

// limiter paces writes to rate bytes per second (shared by its users).
type limiter struct {
	rate int
	mu   sync.Mutex
	next time.Time
}

func newLimiter(rate int) *limiter { return &limiter{rate: rate} }

// wait blocks until n more bytes fit in the rate.
func (lm *limiter) wait(n int) {
	lm.mu.Lock()
	now := time.Now()
	if lm.next.Before(now) {
		lm.next = now
	}
	lm.next = lm.next.Add(time.Duration(float64(n) / float64(lm.rate) * float64(time.Second)))
	until := lm.next
	lm.mu.Unlock()
	if d := time.Until(until); d > 0 {
		time.Sleep(d)
	}
}
