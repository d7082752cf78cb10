package netlab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// PortMap is a NAT-like port mapping (scenario E4, "docker -p"): it listens
// on a port of one lab host and forwards every connection to a port of
// another, dialled from the listening host, so the destination sees the
// mapping host's address, as behind a NAT. It runs in the test process;
// Lab.Close stops it.
type PortMap struct {
	on, to     *Host
	port, dest int
	ln         net.Listener
	conns      atomic.Int64
	mu         sync.Mutex
	open       map[net.Conn]bool
	closed     bool
	wg         sync.WaitGroup
}

// PortMap maps port `port` of host `on` to port `dest` of host `to`.
func (l *Lab) PortMap(on *Host, port int, to *Host, dest int) (*PortMap, error) {
	if on == nil || to == nil || on.lab != l || to.lab != l {
		return nil, fmt.Errorf("netlab: PortMap: host not in this lab")
	}
	ln, err := on.Listen("tcp4", ":"+strconv.Itoa(port))
	if err != nil {
		return nil, err
	}
	pm := &PortMap{on: on, to: to, port: port, dest: dest, ln: ln, open: map[net.Conn]bool{}}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		ln.Close()
		return nil, ErrClosed
	}
	l.closers = append(l.closers, pm.Close)
	l.mu.Unlock()
	pm.wg.Add(1)
	go pm.serve()
	return pm, nil
}

// Addr is the mapped address ("ip:port" of the mapping host).
func (pm *PortMap) Addr() string { return pm.on.Addr(pm.port) }

// Conns is the number of connections accepted so far.
func (pm *PortMap) Conns() int64 { return pm.conns.Load() }

// Close stops listening and closes every forwarded connection.
func (pm *PortMap) Close() {
	pm.mu.Lock()
	if pm.closed {
		pm.mu.Unlock()
		return
	}
	pm.closed = true
	pm.ln.Close()
	for c := range pm.open {
		c.Close()
	}
	pm.mu.Unlock()
	pm.wg.Wait()
}

func (pm *PortMap) track(cs ...net.Conn) bool {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	if pm.closed {
		return false
	}
	for _, c := range cs {
		pm.open[c] = true
	}
	return true
}

func (pm *PortMap) untrack(cs ...net.Conn) {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	for _, c := range cs {
		delete(pm.open, c)
		c.Close()
	}
}

func (pm *PortMap) serve() {
	defer pm.wg.Done()
	for {
		c, err := pm.ln.Accept()
		if err != nil {
			return
		}
		pm.conns.Add(1)
		if !pm.track(c) {
			c.Close()
			return
		}
		pm.wg.Add(1)
		go pm.handle(c)
	}
}

func (pm *PortMap) handle(c net.Conn) {
	defer pm.wg.Done()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	up, err := pm.on.DialContext(ctx, "tcp4", pm.to.Addr(pm.dest))
	cancel()
	if err != nil {
		// Like a NAT forwarding a refused SYN: the client's connection ends.
		pm.untrack(c)
		return
	}
	if !pm.track(up) {
		up.Close()
		pm.untrack(c)
		return
	}
	done := make(chan struct{}, 2)
	cp := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
		done <- struct{}{}
	}
	go cp(up, c)
	go cp(c, up)
	<-done
	// One side ended: give the other a moment to drain its half, then close both.
	select {
	case <-done:
	case <-time.After(time.Second):
	}
	pm.untrack(c, up)
}

// SYNCounter counts the TCP connection attempts (SYN packets) that reach
// chosen ports of a host from any source but the allowed ones, with an
// nftables counter in a table of its own (inet gslcount; the fault table
// inet gsl is rewritten on every fault and never touches it).
type SYNCounter struct {
	host *Host
}

// CountSYN starts counting connection attempts to host h's ports from every
// source address except allowed (loopback connections to 127.0.0.1 are
// counted too: they are not announced addresses either).
func (l *Lab) CountSYN(h *Host, ports []int, allowed []string) (*SYNCounter, error) {
	if h == nil || h.lab != l || len(ports) == 0 {
		return nil, fmt.Errorf("netlab: CountSYN: bad host or no port")
	}
	var ps []string
	for _, p := range ports {
		ps = append(ps, strconv.Itoa(p))
	}
	match := fmt.Sprintf("tcp dport { %s } tcp flags & (syn | ack) == syn", strings.Join(ps, ", "))
	if len(allowed) > 0 {
		match += fmt.Sprintf(" ip saddr != { %s }", strings.Join(allowed, ", "))
	}
	rs := "add table inet gslcount\ndelete table inet gslcount\ntable inet gslcount {\n" +
		"  set seen { type ipv4_addr . inet_service; flags dynamic; }\n" +
		"  chain in {\n    type filter hook input priority -10; policy accept;\n" +
		"    " + match + " add @seen { ip saddr . tcp dport } counter\n  }\n}\n"
	cmd := commandContext(context.Background(), "ip", "netns", "exec", h.ns, "nft", "-f", "-")
	cmd.Stdin = strings.NewReader(rs)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("netlab: CountSYN on %s: %w: %s", h.Name, err, strings.TrimSpace(string(out)))
	}
	return &SYNCounter{host: h}, nil
}

// ErrNoCounter is returned when the counter's rule is not found.
var ErrNoCounter = errors.New("netlab: SYN counter not found")

// Packets reads the counter: connection attempts from non-allowed sources so far.
func (c *SYNCounter) Packets(ctx context.Context) (int64, error) {
	out, err := c.host.Exec(ctx, "nft", "list", "table", "inet", "gslcount")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(out))
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "packets" {
			return strconv.ParseInt(f[i+1], 10, 64)
		}
	}
	return 0, ErrNoCounter
}

// Sources lists the "source-ip . port" pairs the counter has seen.
func (c *SYNCounter) Sources(ctx context.Context) ([]string, error) {
	out, err := c.host.Exec(ctx, "nft", "list", "set", "inet", "gslcount", "seen")
	if err != nil {
		return nil, err
	}
	s := string(out)
	i := strings.Index(s, "elements = {")
	if i < 0 {
		return nil, nil
	}
	s = s[i+len("elements = {"):]
	if j := strings.Index(s, "}"); j >= 0 {
		s = s[:j]
	}
	var srcs []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.Join(strings.Fields(e), " "); e != "" {
			srcs = append(srcs, e)
		}
	}
	return srcs, nil
}
