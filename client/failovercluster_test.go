package client

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

var getCallsRe = regexp.MustCompile(`cmdstat_get:calls=(\d+)`)

// getCalls returns how many GET commands the node at addr executed since
// its last CONFIG RESETSTAT.
func getCalls(t *testing.T, addr string) int {
	t.Helper()
	info, err := testutil.Info(addr, "commandstats")
	if err != nil {
		t.Fatalf("INFO commandstats %s: %v", addr, err)
	}
	m := getCallsRe.FindStringSubmatch(info)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// resetStats runs CONFIG RESETSTAT on every address.
func resetStats(t *testing.T, addrs ...string) {
	t.Helper()
	for _, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a})
		err := c.ConfigResetStat(context.Background()).Err()
		c.Close()
		if err != nil {
			t.Fatalf("CONFIG RESETSTAT %s: %v", a, err)
		}
	}
}

// usableReplicas returns the replicas that the sentinel at s lists for
// name without s_down, o_down or disconnected.
func usableReplicas(s, name string) []string {
	sc := redis.NewSentinelClient(&redis.Options{Addr: s})
	defer sc.Close()
	reps, err := sc.Replicas(context.Background(), name).Result()
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range reps {
		ri := replicaInfo{addr: r["ip"] + ":" + r["port"], flags: r["flags"], linkOK: r["master-link-status"] == "ok"}
		if usableReplica(ri, false) && ri.linkOK {
			out = append(out, ri.addr)
		}
	}
	slices.Sort(out)
	return out
}

// slotReplicas returns the replica addresses in the cluster client's
// current slot map.
func slotReplicas(ctx context.Context, cc *redis.ClusterClient) []string {
	var mu sync.Mutex
	var out []string
	_ = cc.ForEachSlave(ctx, func(_ context.Context, c *redis.Client) error {
		mu.Lock()
		out = append(out, c.Options().Addr)
		mu.Unlock()
		return nil
	})
	slices.Sort(out)
	return out
}

// TestFailoverClusterClientRouting checks where each routing option of
// NewFailoverClusterClient sends reads and writes, with real sentinels
// and data nodes.
func TestFailoverClusterClientRouting(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 2, 3)
	ctx := context.Background()
	m, r0, r1 := c.top.Master.Addr(), c.top.Replicas[0].Addr(), c.top.Replicas[1].Addr()
	want := []string{r0, r1}
	slices.Sort(want)
	testutil.WaitFor(t, 15*time.Second, "sentinels list both replicas with link ok", func() bool {
		return slices.Equal(usableReplicas(c.sentinels[0].Addr(), c.name), want)
	})
	const reads = 300
	for _, tc := range []struct {
		name string
		opt  FailoverOptions
		// where reads may land, and where each must land at least once
		allowed, required []string
	}{
		{"no routing option", FailoverOptions{}, []string{m}, []string{m}},
		{"ReplicaOnly", FailoverOptions{ReplicaOnly: true}, []string{r0, r1}, []string{r0, r1}},
		{"RouteRandomly", FailoverOptions{RouteRandomly: true}, []string{m, r0, r1}, []string{m, r0, r1}},
		{"RouteByLatency", FailoverOptions{RouteByLatency: true}, []string{m, r0, r1}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opt
			o.MasterName, o.SentinelAddrs = c.name, c.sentinelAddrs()
			cc := NewFailoverClusterClient(&o)
			defer cc.Close()
			key := "k:" + tc.name
			if err := cc.Set(ctx, key, "v", 0).Err(); err != nil {
				t.Fatalf("SET: %v", err)
			}
			if v, err := redis.NewClient(&redis.Options{Addr: m}).Get(ctx, key).Result(); err != nil || v != "v" {
				t.Fatalf("the write is not on the master: %q %v", v, err)
			}
			// Reads may hit a replica before it received the SET.
			testutil.WaitFor(t, 5*time.Second, "replication", func() bool {
				for _, a := range []string{r0, r1} {
					rc := redis.NewClient(&redis.Options{Addr: a})
					v, _ := rc.Get(ctx, key).Result()
					rc.Close()
					if v != "v" {
						return false
					}
				}
				return true
			})
			resetStats(t, m, r0, r1)
			for i := 0; i < reads; i++ {
				if v, err := cc.Get(ctx, key).Result(); err != nil || v != "v" {
					t.Fatalf("GET %d: %q %v", i, v, err)
				}
			}
			total := 0
			for _, a := range []string{m, r0, r1} {
				n := getCalls(t, a)
				total += n
				if n > 0 && !slices.Contains(tc.allowed, a) {
					t.Errorf("%d reads on %s, allowed only on %v", n, a, tc.allowed)
				}
				if n == 0 && slices.Contains(tc.required, a) {
					t.Errorf("no read on %s, want reads on each of %v", a, tc.required)
				}
			}
			if total != reads {
				t.Errorf("%d GETs executed, want %d", total, reads)
			}
		})
	}
}

// TestFailoverClusterClientFailover: a ReplicaOnly cluster client reads
// and writes through a SIGKILL failover. Reads never fail, writes reach
// the new master, the promoted replica leaves the read rotation, and a
// replica that goes down leaves the slot map once the sentinels flag it.
func TestFailoverClusterClientFailover(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 2, 3)
	ctx := context.Background()
	r0, r1 := c.top.Replicas[0].Addr(), c.top.Replicas[1].Addr()
	want := []string{r0, r1}
	slices.Sort(want)
	testutil.WaitFor(t, 15*time.Second, "sentinels list both replicas with link ok", func() bool {
		return slices.Equal(usableReplicas(c.sentinels[0].Addr(), c.name), want)
	})
	// FailingTimeoutSeconds: go-redis's cluster client avoids a node for
	// that long after two failed attempts on it (the replica that the
	// sentinels reconfigure has its connections killed, see below).
	cc := NewFailoverClusterClient(&FailoverOptions{MasterName: c.name, SentinelAddrs: c.sentinelAddrs(),
		ReplicaOnly: true, FailingTimeoutSeconds: 1})
	defer cc.Close()
	if err := cc.Set(ctx, "k", "0", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	testutil.WaitFor(t, 5*time.Second, "slot map with both replicas", func() bool {
		return slices.Equal(slotReplicas(ctx, cc), want)
	})

	// A reader and a writer run through the failover.
	var readErrs, reads, writes atomic.Int64
	var firstReadErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := cc.Get(ctx, "k").Err(); err != nil && !errors.Is(err, redis.Nil) {
				readErrs.Add(1)
				firstReadErr.CompareAndSwap(nil, err)
			}
			reads.Add(1)
			time.Sleep(time.Millisecond)
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if cc.Set(ctx, "k", strconv.Itoa(i), 0).Err() == nil {
				writes.Add(1)
			}
			time.Sleep(time.Millisecond)
		}
	}()
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	}()

	c.top.Master.Kill()
	var promoted, other string
	testutil.WaitFor(t, 30*time.Second, "failover", func() bool {
		mm, err := testutil.SentinelMaster(c.sentinels[0].Addr(), c.name)
		if err != nil {
			return false
		}
		addr := mm["ip"] + ":" + mm["port"]
		switch addr {
		case r0:
			promoted, other = r0, r1
		case r1:
			promoted, other = r1, r0
		default:
			return false
		}
		return true
	})
	testutil.WaitFor(t, 15*time.Second, "the other replica follows the new master", func() bool {
		return slices.Equal(usableReplicas(c.sentinels[0].Addr(), c.name), []string{other})
	})
	// The writer reaches the new master.
	n := writes.Load()
	testutil.WaitFor(t, 10*time.Second, "writes after the failover", func() bool { return writes.Load() > n+10 })
	testutil.WaitFor(t, 10*time.Second, "slot map without the promoted replica and the dead master", func() bool {
		return slices.Equal(slotReplicas(ctx, cc), []string{other})
	})
	close(stop)
	wg.Wait()
	if e := readErrs.Load(); e > 0 {
		t.Errorf("%d of %d reads failed through the failover (first: %v)", e, reads.Load(), firstReadErr.Load())
	}

	// Reads now go to the remaining replica only. The sentinels killed
	// the client connections of the replica they reconfigured (CLIENT
	// KILL TYPE normal), so go-redis's cluster client may have marked it
	// failing and sent reads to the master meanwhile (go-redis's
	// ReplicaOnly fallback); once that expires, every read is on it.
	testutil.WaitFor(t, 10*time.Second, "every read on the remaining replica", func() bool {
		resetStats(t, promoted, other)
		for i := 0; i < 100; i++ {
			if err := cc.Get(ctx, "k").Err(); err != nil {
				t.Fatalf("GET after the failover: %v", err)
			}
		}
		return getCalls(t, promoted) == 0 && getCalls(t, other) == 100
	})

	// The last replica dies: reads fall back to the master (as go-redis)
	// and, once the sentinels flag it, it leaves the slot map.
	for _, p := range c.top.Replicas {
		if p.Addr() == other {
			p.Kill()
		}
	}
	for i := 0; i < 20; i++ {
		if err := cc.Get(ctx, "k").Err(); err != nil {
			t.Fatalf("GET with the replica down: %v", err)
		}
	}
	testutil.WaitFor(t, 15*time.Second, "sentinels flag the replica", func() bool {
		return len(usableReplicas(c.sentinels[0].Addr(), c.name)) == 0
	})
	testutil.WaitFor(t, 15*time.Second, "slot map without the dead replica", func() bool {
		_ = cc.Get(ctx, "k").Err() // the state reloads lazily, while used
		return len(slotReplicas(ctx, cc)) == 0
	})
}

// TestRoutingOptionsRejected: NewFailoverClient and NewReplicaClient
// cannot route reads; they refuse the routing options with a clear error
// instead of ignoring them (go-redis's NewFailoverClient panics).
func TestRoutingOptionsRejected(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, o := range []FailoverOptions{{RouteByLatency: true}, {RouteRandomly: true}} {
		for _, mk := range []func(*FailoverOptions) *redis.Client{NewFailoverClient, NewReplicaClient} {
			o := o
			o.MasterName, o.SentinelAddrs = "mymaster", []string{closedAddr(t)}
			rdb := mk(&o)
			err := rdb.Ping(ctx).Err()
			rdb.Close()
			if !errors.Is(err, ErrInvalidOptions) {
				t.Errorf("%+v: Ping error %v, want ErrInvalidOptions", o, err)
			}
			if err != nil && !regexp.MustCompile(`NewFailoverClusterClient`).MatchString(err.Error()) {
				t.Errorf("error %q does not name NewFailoverClusterClient", err)
			}
		}
	}
}
