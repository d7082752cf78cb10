package client

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// pauseProxy forwards TCP connections to a target; pause stops forwarding
// in both directions on every connection (they stay open), resume lets
// the bytes through again.
type pauseProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cond   *sync.Cond
	paused bool
	closed bool
	conns  []net.Conn
	wg     sync.WaitGroup
}

func startPauseProxy(t *testing.T, target string) *pauseProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	p := &pauseProxy{ln: ln, target: target}
	p.cond = sync.NewCond(&p.mu)
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(p.close)
	return p
}

func (p *pauseProxy) addr() string { return p.ln.Addr().String() }

func (p *pauseProxy) serve() {
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
		go p.pipe(u, c)
		go p.pipe(c, u)
	}
}

// pipe copies src to dst, holding every chunk while the proxy is paused.
func (p *pauseProxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		p.mu.Lock()
		for p.paused && !p.closed {
			p.cond.Wait()
		}
		closed := p.closed
		p.mu.Unlock()
		if closed {
			return
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				dst.Close()
			}
			dst.Close()
			return
		}
	}
}

func (p *pauseProxy) pause() {
	p.mu.Lock()
	p.paused = true
	p.mu.Unlock()
}

func (p *pauseProxy) close() {
	p.ln.Close()
	p.mu.Lock()
	p.closed = true
	p.cond.Broadcast()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// switchWatch polls every sentinel (GET-MASTER-ADDR-BY-NAME, every 2 ms)
// and records when the first one named another master than old: the moment
// "the sentinels switched", observed without Pub/Sub.
type switchWatch struct {
	mu    sync.Mutex
	at    time.Time
	addr  string
	stop  chan struct{}
	done  chan struct{}
	found chan struct{}
}

// plannedFailover runs SENTINEL FAILOVER on c's third sentinel (after
// before, when not nil) and returns when and to which address the first
// sentinel switched away from old.
func plannedFailover(t *testing.T, c *testutil.SentinelCluster, old string, before func()) (time.Time, string) {
	t.Helper()
	sw := watchSwitch(t, c.SentinelAddrs(), c.Name, old)
	if before != nil {
		before()
	}
	sc := redis.NewClient(&redis.Options{Addr: c.Sentinels[2].Addr(), MaxRetries: -1, Protocol: 2})
	defer sc.Close()
	if err := sc.Do(context.Background(), "SENTINEL", "FAILOVER", c.Name).Err(); err != nil {
		t.Fatalf("SENTINEL FAILOVER: %v", err)
	}
	select {
	case <-sw.found:
	case <-time.After(30 * time.Second):
		t.Fatal("no sentinel named a new master within 30 s")
	}
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return sw.at, sw.addr
}

func watchSwitch(t *testing.T, sentinels []string, name, old string) *switchWatch {
	t.Helper()
	w := &switchWatch{stop: make(chan struct{}), done: make(chan struct{}), found: make(chan struct{})}
	var clients []*redis.Client
	for _, s := range sentinels {
		clients = append(clients, redis.NewClient(&redis.Options{Addr: s, MaxRetries: -1, Protocol: 2,
			ReadTimeout: 200 * time.Millisecond, PoolSize: 1}))
	}
	go func() {
		defer close(w.done)
		tk := time.NewTicker(2 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-tk.C:
			}
			for _, c := range clients {
				v, err := c.Do(context.Background(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name).StringSlice()
				if err != nil || len(v) != 2 || net.JoinHostPort(v[0], v[1]) == old {
					continue
				}
				w.mu.Lock()
				w.at, w.addr = time.Now(), net.JoinHostPort(v[0], v[1])
				w.mu.Unlock()
				close(w.found)
				return
			}
		}
	}()
	t.Cleanup(func() {
		select {
		case <-w.stop:
		default:
			close(w.stop)
		}
		<-w.done
		for _, c := range clients {
			c.Close()
		}
	})
	return w
}

// verifyBound is the promise of VerifyInterval's default: a master change
// is noticed within 1 s whether or not events arrive.
const verifyBound = time.Second

// TestFollowsWithoutEvents: the client cannot receive sentinel events —
// SUBSCRIBE refused by the sentinels' ACL (NOPERM), or its Pub/Sub
// connection stays open but stops delivering — and a SENTINEL FAILOVER
// runs with the old master alive (and fenced so that Sentinel never
// demotes it nor kills its clients). No write issued more than 1 s after
// the first sentinel named the new master may be acknowledged by the old
// one. Before the periodic verification, the client kept writing to the
// old master until the next reconciliation (10 s).
func TestFollowsWithoutEvents(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// setup returns the client's sentinel list, PubSubSentinels, and a
		// function run just before the failover.
		setup func(t *testing.T, c *testutil.SentinelCluster) ([]string, int, func())
	}{
		{"SUBSCRIBE refused (NOPERM)", func(t *testing.T, c *testutil.SentinelCluster) ([]string, int, func()) {
			for _, s := range c.SentinelAddrs() {
				sc := redis.NewClient(&redis.Options{Addr: s, MaxRetries: -1, Protocol: 2})
				err := sc.Do(context.Background(), "ACL", "SETUSER", "default", "resetchannels").Err()
				sc.Close()
				if err != nil {
					t.Fatalf("ACL SETUSER on %s: %v", s, err)
				}
			}
			return c.SentinelAddrs(), 0, func() {}
		}},
		{"Pub/Sub connection stalled", func(t *testing.T, c *testutil.SentinelCluster) ([]string, int, func()) {
			// One seed, behind a proxy; the client learns the others
			// and subscribes to the first of its list (the proxy).
			p := startPauseProxy(t, c.Sentinels[0].Addr())
			return []string{p.addr()}, 1, p.pause
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := testutil.StartSentinelCluster(t, "mymaster", 1, 3, 2, 1000, 3000)
			oldAddr := c.Top.Master.Addr()
			fenceOldMaster(t, oldAddr)
			sentinels, subs, before := tc.setup(t, c)
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: sentinels, PubSubSentinels: subs})
			w := startAckWriter(t, rdb, "ne:")
			testutil.WaitFor(t, 5*time.Second, "writes before the failover", func() bool { return w.count() > 50 })
			event, newAddr := plannedFailover(t, c, oldAddr, before)
			testutil.WaitFor(t, 10*time.Second, "writes issued 1.5 s after the switch", func() bool {
				return w.ackedAfter(event.Add(verifyBound + 500*time.Millisecond))
			})
			w.halt()
			m := w.measure(t, event, oldAddr, newAddr)
			st, _ := StatsOf(rdb)
			t.Logf("switch → first write acked by the new master %v; writes issued after the switch acked by the old master %d (last %v); on the new master %d; failed %d; verifications %d",
				m.toNew, m.oldAfter, lastOf(m.oldLate), m.newChecked, w.failed, st.Verifications)
			if m.newChecked == 0 {
				t.Fatal("no write acknowledged by the new master after the switch")
			}
			for _, late := range m.oldLate {
				if late > verifyBound {
					t.Fatalf("a write issued %v after the switch was acknowledged by the old master %s", late, oldAddr)
				}
			}
		})
	}
}

// lastOf returns the last duration of a sorted list (0 if empty).
func lastOf(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[len(d)-1]
}
