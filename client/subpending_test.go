package client

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// slowProxy forwards TCP connections to a target and holds every chunk
// the target sends for delay before passing it on: a sentinel that
// answers late, as under a fleet's load on a starved machine.
type slowProxy struct {
	ln     net.Listener
	target string
	delay  time.Duration
	mu     sync.Mutex
	conns  []net.Conn
	wg     sync.WaitGroup
}

func startSlowProxy(t *testing.T, target string, delay time.Duration) *slowProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	p := &slowProxy{ln: ln, target: target, delay: delay}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *slowProxy) addr() string { return p.ln.Addr().String() }

func (p *slowProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, u)
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(u, c, 0)
		go p.pipe(c, u, p.delay)
	}
}

// pipe copies src to dst, each chunk delay after it was read (in order).
func (p *slowProxy) pipe(dst, src net.Conn, delay time.Duration) {
	defer p.wg.Done()
	defer dst.Close()
	type chunk struct {
		b  []byte
		at time.Time
	}
	q := make(chan chunk, 1024)
	go func() {
		for ch := range q {
			if d := time.Until(ch.at); d > 0 {
				time.Sleep(d) // the simulated reply latency
			}
			if _, err := dst.Write(ch.b); err != nil {
				return
			}
		}
	}()
	defer close(q)
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			q <- chunk{append([]byte(nil), buf[:n]...), time.Now().Add(delay)}
		}
		if err != nil {
			return
		}
	}
}

func (p *slowProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// TestSubscribingNoQueryDial: while a subscription to a slow sentinel is
// being made (on the query connection the first resolution opened), the
// queries the client sends to that sentinel meanwhile — verifications,
// since the event path is not live yet — wait for it instead of dialling
// a second connection that the subscription would close once up. One
// sentinel (so that discovery adds no address beside the proxy), which
// answers 800 ms late (a proxy holds its replies); the client must open
// exactly one connection to it. Before, each such query met the
// subscription still in its handshake and dialled (1000 clients starting
// at one core and 12 busy loops dialled 1.5 such connections each).
func TestSubscribingNoQueryDial(t *testing.T) {
	t.Parallel()
	c := testutil.StartSentinelCluster(t, "mymaster", 1, 1, 1, 5000, 10000)
	const delay = 800 * time.Millisecond
	proxy := startSlowProxy(t, c.SentinelAddrs()[0], delay)
	var dials atomic.Int64
	d := net.Dialer{}
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{proxy.addr()}, SentinelQuorum: 1, PubSubSentinels: 1,
		ReconcileInterval: -1,
		SentinelDialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return d.DialContext(ctx, network, addr)
		}})
	ctx := context.Background()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	waitSubscribed(t, rdb, 1)
	st, _ := StatsOf(rdb)
	t.Logf("subscribed through the slow proxy: %d sentinel dials, %d verifications, %d sentinel errors",
		dials.Load(), st.Verifications, st.SentinelErrors)
	if st.Verifications == 0 {
		t.Fatalf("no verification ran while the subscription was being made: the test did not exercise the case")
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("%d sentinel connections dialled, want 1", n)
	}
}
