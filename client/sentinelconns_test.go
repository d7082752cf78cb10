package client

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// sentinelConnCounter is a Dialer that counts the connections one client
// opens to the sentinels and how many of them are open at a time. Counting
// on the client side sees only that client's connections (the sentinels'
// total_connections_received also counts their peers' links and every
// other client), and it sees a connection opened and closed between two
// CLIENT LIST samples. Connections to other addresses (data nodes, when
// the Dialer is shared as in go-redis) are dialled and not counted.
type sentinelConnCounter struct {
	sentinels map[string]bool

	mu    sync.Mutex
	dials map[string]int // connections opened, per sentinel
	open  map[string]int // open now
	peak  map[string]int // most open at a time since resetPeak
}

func newSentinelConnCounter(sentinels []string) *sentinelConnCounter {
	c := &sentinelConnCounter{sentinels: map[string]bool{}, dials: map[string]int{},
		open: map[string]int{}, peak: map[string]int{}}
	for _, s := range sentinels {
		c.sentinels[s] = true
	}
	return c
}

func (c *sentinelConnCounter) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, addr)
	if err != nil || !c.sentinels[addr] {
		return nc, err
	}
	c.mu.Lock()
	c.dials[addr]++
	c.open[addr]++
	c.peak[addr] = max(c.peak[addr], c.open[addr])
	c.mu.Unlock()
	return &countedConn{Conn: nc, c: c, addr: addr}, nil
}

// snapshot returns the dials and the open connections per sentinel.
func (c *sentinelConnCounter) snapshot() (dials, open map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	dials, open = map[string]int{}, map[string]int{}
	for s := range c.sentinels {
		dials[s], open[s] = c.dials[s], c.open[s]
	}
	return dials, open
}

// resetPeak starts a new peak measurement from the connections open now.
func (c *sentinelConnCounter) resetPeak() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for s := range c.sentinels {
		c.peak[s] = c.open[s]
	}
}

func (c *sentinelConnCounter) peaks() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for s := range c.sentinels {
		out[s] = c.peak[s]
	}
	return out
}

// countedConn decrements the open count once, on its first Close.
type countedConn struct {
	net.Conn
	c    *sentinelConnCounter
	addr string
	once sync.Once
}

func (cc *countedConn) Close() error {
	cc.once.Do(func() {
		cc.c.mu.Lock()
		cc.c.open[cc.addr]--
		cc.c.mu.Unlock()
	})
	return cc.Conn.Close()
}

// diff returns b[s]-a[s] per sentinel and the total.
func diff(a, b map[string]int) (map[string]int, int) {
	out, total := map[string]int{}, 0
	for s := range b {
		out[s] = b[s] - a[s]
		total += out[s]
	}
	return out, total
}

// perSentinel formats m in the order of sentinels.
func perSentinel(sentinels []string, m map[string]int) string {
	parts := make([]string, 0, len(sentinels))
	for _, s := range sentinels {
		parts = append(parts, fmt.Sprintf("%s:%d", s, m[s]))
	}
	return strings.Join(parts, " ")
}

// namedSentinelConns waits until every sentinel lists at most want[s]
// connections named name (CLIENT LIST; a connection the client has just
// closed may still be listed until the sentinel has processed the close),
// bounded by 5 s, and returns the counts of the last look.
func namedSentinelConns(t *testing.T, sentinels []string, name string, want map[string]int) map[string]int {
	t.Helper()
	got := map[string]int{}
	deadline := time.Now().Add(5 * time.Second)
	for {
		ok := true
		for i, cs := range sentinelClients(t, sentinels, name) {
			got[sentinels[i]] = len(cs)
			if len(cs) > want[sentinels[i]] {
				ok = false
			}
		}
		if ok || time.Now().After(deadline) {
			return got
		}
		time.Sleep(50 * time.Millisecond) // polling the sentinels' view
	}
}

// waitOneEach waits until the client holds at most one connection to
// each sentinel (exactly one each when all is set): a query connection
// that was in use when the subscription to its sentinel came up is closed
// when its exchange ends, not at once.
func (c *sentinelConnCounter) waitOneEach(t *testing.T, all bool) {
	t.Helper()
	testutil.WaitFor(t, 5*time.Second, "one connection per sentinel", func() bool {
		_, open := c.snapshot()
		for _, n := range open {
			if n > 1 || (all && n != 1) {
				return false
			}
		}
		return true
	})
}

// waitSubscribed waits until the client has a subscription on every
// sentinel (its steady state: one connection per sentinel that carries
// both the events and, in RESP3, the queries).
func waitSubscribed(t *testing.T, rdb *redis.Client, n int) {
	t.Helper()
	testutil.WaitFor(t, 10*time.Second, "a subscription on every sentinel", func() bool {
		r := resolverOf(rdb)
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.subBy) == n
	})
}

// loopWrites writes to rdb until stop is closed, each write bounded by
// per, and returns the number of acknowledged and failed writes.
func loopWrites(rdb *redis.Client, per time.Duration, stop <-chan struct{}) (acked, failed int) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return acked, failed
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), per)
		err := rdb.Set(ctx, "k", i, 0).Err()
		cancel()
		if err == nil {
			acked++
		} else {
			failed++
		}
		time.Sleep(10 * time.Millisecond) // the application's write period
	}
}

// TestOutageSentinelConns is issue 11's sentinel-storm goal: during a 3 s
// master outage (the master SIGKILLed, the sentinels still naming it:
// down-after 60 s) one client writing all the time opens at most one
// sentinel connection per sentinel and never holds two to the same
// sentinel at once, while it keeps asking the sentinels (it must, to
// notice a new master). Before the pooled sentinel connections each query
// dialled: about 150 connections in such an outage (go-redis: about 30).
// Two cases: the default (the queries go over the RESP3 subscriptions)
// and without pub/sub (DisablePubSub, the path of a sentinel that refuses
// SUBSCRIBE: the queries go over the query pool, polled every
// MinRoleBackoff). The connections are counted by a counting
// SentinelDialer (only this client's, including one opened and closed
// between two samples), and cross-checked by name with CLIENT LIST on
// each sentinel. go-redis's FailoverClient runs beside it through the
// same outage with a counting Dialer; its figure is logged, not asserted.
func TestOutageSentinelConns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		pubsub bool
	}{{"default", true}, {"no pub/sub", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			outageSentinelConns(t, tc.pubsub)
		})
	}
}

func outageSentinelConns(t *testing.T, pubsub bool) {
	c, sentinels, ours, theirs, rdb, grdb := countedPair(t, 60000, 180000, "outage",
		FailoverOptions{DisablePubSub: !pubsub})
	if pubsub {
		waitSubscribed(t, rdb, len(sentinels))
	}
	ours.waitOneEach(t, pubsub)
	c.Top.Master.Kill()
	<-c.Top.Master.Done()
	d0, _ := ours.snapshot()
	g0, _ := theirs.snapshot()
	st0 := statsOf(t, rdb)
	ours.resetPeak()
	theirs.resetPeak()
	const outage = 3 * time.Second
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var oursAcked, oursFailed, theirsAcked, theirsFailed int
	wg.Add(2)
	go func() { defer wg.Done(); oursAcked, oursFailed = loopWrites(rdb, time.Second, stop) }()
	go func() { defer wg.Done(); theirsAcked, theirsFailed = loopWrites(grdb, time.Second, stop) }()
	time.Sleep(outage) // the outage under test
	close(stop)
	wg.Wait()
	d1, open := ours.snapshot()
	g1, gopen := theirs.snapshot()
	st1 := statsOf(t, rdb)
	dials, total := diff(d0, d1)
	gdials, gtotal := diff(g0, g1)
	peak, gpeak := ours.peaks(), theirs.peaks()

	if oursAcked != 0 || theirsAcked != 0 {
		t.Fatalf("writes acknowledged with the master dead: ours %d, go-redis %d", oursAcked, theirsAcked)
	}
	// The window must have made the client ask the sentinels (10–18
	// commands in 3 s in the runs made with pub/sub). With a connection
	// per query, one query is already a second connection beside the
	// subscription to that sentinel (the peak below); without pub/sub
	// every query is a new connection (the dials below).
	if st1.SentinelCommands == st0.SentinelCommands {
		t.Fatalf("no sentinel command in the %v outage: the test would not see a connection per query", outage)
	}
	for _, s := range sentinels {
		if dials[s] > 1 {
			t.Errorf("sentinel %s: %d connections opened in the %v outage, want ≤ 1", s, dials[s], outage)
		}
		if peak[s] > 1 {
			t.Errorf("sentinel %s: %d connections of the client open at once during the outage, want ≤ 1", s, peak[s])
		}
	}
	named := namedSentinelConns(t, sentinels, "outage-ours", open)
	for _, s := range sentinels {
		if named[s] > 1 {
			t.Errorf("sentinel %s lists %d connections named outage-ours after the outage, want ≤ 1", s, named[s])
		}
	}
	t.Logf("ours: %d sentinel connections opened in the %v outage (%s), at most %s open at once, %d sentinel commands, %d failed writes",
		total, outage, perSentinel(sentinels, dials), perSentinel(sentinels, peak), st1.SentinelCommands-st0.SentinelCommands, oursFailed)
	t.Logf("go-redis FailoverClient, same outage: %d sentinel connections opened (%s), at most %s open at once, %s open at the end, %d failed writes",
		gtotal, perSentinel(sentinels, gdials), perSentinel(sentinels, gpeak), perSentinel(sentinels, gopen), theirsFailed)
}

// TestSentinelConnsAfterFailover is issue 11's goal that a failover does
// not leave the client with more sentinel connections: through a SIGKILL
// failover (3 real sentinels) and two reconciliations after the client
// moved to the new master, the client never holds two connections to the
// same sentinel and ends with at most one per sentinel (its subscription,
// which carries the queries too), counted by a counting SentinelDialer and
// cross-checked by name with CLIENT LIST. go-redis's FailoverClient runs
// beside it with a counting Dialer; its figures are logged.
func TestSentinelConnsAfterFailover(t *testing.T) {
	t.Parallel()
	c, sentinels, ours, theirs, rdb, grdb := countedPair(t, 1000, 3000, "failover",
		FailoverOptions{ReconcileInterval: time.Second})
	ctx := context.Background()
	waitSubscribed(t, rdb, len(sentinels))
	ours.waitOneEach(t, true)
	oldAddr, newAddr := c.Top.Master.Addr(), c.Top.Replicas[0].Addr()
	d0, _ := ours.snapshot()
	g0, _ := theirs.snapshot()
	ours.resetPeak()
	theirs.resetPeak()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); loopWrites(rdb, time.Second, stop) }()
	go func() { defer wg.Done(); loopWrites(grdb, time.Second, stop) }()
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	}()
	c.Top.Master.Kill()
	<-c.Top.Master.Done()
	testutil.WaitFor(t, 30*time.Second, "our client on the promoted replica", func() bool {
		return statsOf(t, rdb).CurrentAddr == newAddr
	})
	// Two reconciliations after the switch: whatever the switch left
	// behind (a query connection beside a subscription, a subscription
	// made again) is in place by then.
	r0 := statsOf(t, rdb).Reconciles
	testutil.WaitFor(t, 10*time.Second, "two reconciliations after the switch", func() bool {
		return statsOf(t, rdb).Reconciles >= r0+2
	})
	if err := rdb.Set(ctx, "after", 1, 0).Err(); err != nil {
		t.Fatalf("write after the failover (ours): %v", err)
	}
	gerr := grdb.Set(ctx, "after", 1, 0).Err() // logged only
	close(stop)
	wg.Wait()
	d1, open := ours.snapshot()
	g1, gopen := theirs.snapshot()
	dials, total := diff(d0, d1)
	gdials, gtotal := diff(g0, g1)
	peak, gpeak := ours.peaks(), theirs.peaks()
	for _, s := range sentinels {
		if open[s] > 1 {
			t.Errorf("after the failover: sentinel %s has %d connections of the client open, want ≤ 1", s, open[s])
		}
		if peak[s] > 1 {
			t.Errorf("during the failover: sentinel %s had %d connections of the client open at once, want ≤ 1", s, peak[s])
		}
	}
	named := namedSentinelConns(t, sentinels, "failover-ours", open)
	for _, s := range sentinels {
		if named[s] > 1 {
			t.Errorf("after the failover: sentinel %s lists %d connections named failover-ours, want ≤ 1", s, named[s])
		}
	}
	gnamed := namedSentinelConns(t, sentinels, "failover-goredis", gopen)
	t.Logf("ours (%s → %s): %d sentinel connections opened through the failover (%s), at most %s open at once, %s open after",
		oldAddr, newAddr, total, perSentinel(sentinels, dials), perSentinel(sentinels, peak), perSentinel(sentinels, open))
	t.Logf("go-redis FailoverClient, same failover (write after: %v): %d sentinel connections opened (%s), at most %s open at once, %s open after (CLIENT LIST by name: %s)",
		gerr, gtotal, perSentinel(sentinels, gdials), perSentinel(sentinels, gpeak), perSentinel(sentinels, gopen), perSentinel(sentinels, gnamed))
}

// TestSentinelTLSHandshakeOnce is issue 11's "TLS handshake once": a real
// redis-sentinel listening only on TLS, and a client that asks it for every
// new data connection (ResolveCacheTTL -1) opening 20 of them, with and
// without pub/sub. Every handshake is counted by the client's
// VerifyConnection callback (the TLS layer calls it once per handshake):
// none for the 20 connections, since the queries reuse the TLS connection
// opened at start-up (the subscription, in RESP3, when there is one). Before the pooled sentinel
// connections every query made a TCP connection and a TLS handshake.
func TestSentinelTLSHandshakeOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		pubsub bool
	}{{"default", true}, {"no pub/sub", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			top := testutil.StartTopology(t, 0)
			files := testutil.GenerateTLS(t)
			s := testutil.StartTLSSentinel(t, files, testutil.SentinelConf("mymaster", top.Master.Port, 1, 60000, 180000))
			pool, cert := testutil.ClientTLS(t, files)
			var mu sync.Mutex
			handshakes := 0
			cfg := &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert},
				VerifyConnection: func(tls.ConnectionState) error {
					mu.Lock()
					handshakes++
					mu.Unlock()
					return nil
				}}
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{s.Addr()}, SentinelTLSConfig: cfg,
				ResolveCacheTTL: -1, DisablePubSub: !tc.pubsub, SentinelQuorum: 1})
			ctx := context.Background()
			if err := rdb.Set(ctx, "tls", 0, 0).Err(); err != nil {
				t.Fatalf("first write: %v", err)
			}
			if tc.pubsub {
				waitSubscribed(t, rdb, 1)
			}
			st0 := statsOf(t, rdb)
			mu.Lock()
			h0 := handshakes
			mu.Unlock()
			const conns = 20
			for i := 1; i <= conns; i++ {
				cn := rdb.EphemeralConn() // a new connection each time: a sentinel query each
				err := cn.Set(ctx, "tls", i, 0).Err()
				cn.Close()
				if err != nil {
					t.Fatalf("write %d on a new connection: %v", i, err)
				}
			}
			st1 := statsOf(t, rdb)
			mu.Lock()
			n := handshakes
			mu.Unlock()
			if q := st1.SentinelCommands - st0.SentinelCommands; q < conns {
				t.Fatalf("%d sentinel commands for %d new connections: the test would not see a handshake per query", q, conns)
			}
			if n != h0 {
				t.Errorf("%d TLS handshakes with the sentinel for %d new data connections (%d sentinel commands), want 0",
					n-h0, conns, st1.SentinelCommands-st0.SentinelCommands)
			}
			t.Logf("%d TLS handshake(s) for %d new data connections (%d sentinel commands), %d before them (start-up)",
				n-h0, conns, st1.SentinelCommands-st0.SentinelCommands, h0)
		})
	}
}

// countedPair starts 3 real sentinels over a master and a replica (the
// given down-after and failover-timeout), our client (opts plus the
// sentinels, ClientName name+"-ours" and a counting SentinelDialer) and
// go-redis's FailoverClient (name+"-goredis", a counting Dialer), and
// writes through both 3 times.
func countedPair(t *testing.T, downAfter, failoverTimeout int, name string, opts FailoverOptions) (
	c *testutil.SentinelCluster, sentinels []string, ours, theirs *sentinelConnCounter, rdb *redis.Client, grdb *redis.Client) {
	t.Helper()
	c = testutil.StartSentinelCluster(t, "mymaster", 1, 3, 2, downAfter, failoverTimeout)
	sentinels = c.SentinelAddrs()
	ours = newSentinelConnCounter(sentinels)
	opts.SentinelAddrs, opts.ClientName, opts.SentinelDialer = sentinels, name+"-ours", ours.dial
	rdb = newTestClient(t, opts)
	theirs = newSentinelConnCounter(sentinels)
	grdb = redis.NewFailoverClient(&redis.FailoverOptions{MasterName: "mymaster", SentinelAddrs: sentinels,
		ClientName: name + "-goredis", Dialer: theirs.dial})
	t.Cleanup(func() { grdb.Close() })
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := rdb.Set(ctx, "k", i, 0).Err(); err != nil {
			t.Fatalf("write before the kill (ours): %v", err)
		}
		if err := grdb.Set(ctx, "k", i, 0).Err(); err != nil {
			t.Fatalf("write before the kill (go-redis): %v", err)
		}
	}
	return c, sentinels, ours, theirs, rdb, grdb
}
