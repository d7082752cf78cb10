package client

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// TestAllSentinelsDown is lab scenario H3 (docs/reliability.md, finding
// F5) on loopback: every sentinel is SIGKILLed while the master stays
// healthy. The client must keep writing to the master it verified — through
// pooled connections and through new ones (ConnMaxLifetime makes go-redis
// redial all along) — across several reconciliations and verification
// polls, with 0 failed writes (go-redis: 0). Once the sentinels are back it
// must still follow a failover.
func TestAllSentinelsDown(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 1, 3)
	const reconcile = 500 * time.Millisecond
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: c.sentinelAddrs(),
		ReconcileInterval: reconcile, VerifyInterval: 400 * time.Millisecond,
		PoolSize: 4, ConnMaxLifetime: 150 * time.Millisecond})

	var mu sync.Mutex
	var ok, failed int
	var errs []string
	counting := false
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				err := rdb.Set(ctx, "h3:"+strconv.Itoa(g), i, 0).Err()
				cancel()
				mu.Lock()
				if counting {
					if err == nil {
						ok++
					} else {
						failed++
						if len(errs) < 5 {
							errs = append(errs, err.Error())
						}
					}
				}
				mu.Unlock()
				time.Sleep(2 * time.Millisecond)
			}
		}()
	}
	halt := func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
	}
	t.Cleanup(halt)

	testutil.WaitFor(t, 5*time.Second, "the client on the master", func() bool {
		st, _ := StatsOf(rdb)
		return st.CurrentAddr == c.top.Master.Addr()
	})
	for _, s := range c.sentinels {
		s.Kill()
		<-s.Done()
	}
	before, _ := StatsOf(rdb)
	mu.Lock()
	counting = true
	mu.Unlock()
	// Write across several reconciliations, verification polls and
	// redials (each counted, so the test waits for them rather than for
	// a fixed time).
	testutil.WaitFor(t, 30*time.Second, "3 reconciliations and 20 dials (or 20 failed writes) without sentinels", func() bool {
		st, _ := StatsOf(rdb)
		mu.Lock()
		f := failed
		mu.Unlock()
		return (st.Reconciles >= before.Reconciles+3 && st.Dials >= before.Dials+20) || f >= 20
	})
	mu.Lock()
	counting = false
	gotOK, gotFailed, gotErrs := ok, failed, errs
	mu.Unlock()
	st, _ := StatsOf(rdb)
	t.Logf("sentinels down: %d writes ok, %d failed, dials %d, reconciles %d, resolution errors %d, kept %d",
		gotOK, gotFailed, st.Dials-before.Dials, st.Reconciles-before.Reconciles, st.ResolutionErrors-before.ResolutionErrors,
		st.KeptWithoutSentinels-before.KeptWithoutSentinels)
	if gotFailed != 0 {
		t.Errorf("%d writes failed while every sentinel was down and the master healthy (want 0); first errors: %q", gotFailed, gotErrs)
	}
	if gotOK == 0 {
		t.Fatal("no write acknowledged while the sentinels were down")
	}
	if st.CurrentAddr != c.top.Master.Addr() {
		t.Fatalf("client left the healthy master: on %q", st.CurrentAddr)
	}

	// The sentinels come back (same config files and ports); the client
	// must follow the next failover.
	bin := os.Getenv(testutil.SentinelBinEnv)
	if bin == "" {
		bin = testutil.Binary(t, "redis-sentinel")
	}
	for i, s := range c.sentinels {
		c.sentinels[i] = testutil.StartSentinelConf(t, bin, s.Conf, s.Port, s.LogFile)
	}
	for _, s := range c.sentinels {
		testutil.WaitFor(t, 20*time.Second, "sentinel "+s.Addr()+" back with its peers", func() bool {
			m, err := testutil.SentinelMaster(s.Addr(), c.name)
			return err == nil && m["num-other-sentinels"] == "2" && m["num-slaves"] == "1" && m["flags"] == "master"
		})
	}
	newAddr := c.top.Replicas[0].Addr()
	c.top.Master.Kill()
	testutil.WaitFor(t, 30*time.Second, "the client on the promoted replica", func() bool {
		st, _ := StatsOf(rdb)
		return st.CurrentAddr == newAddr
	})
	m := redis.NewClient(&redis.Options{Addr: newAddr})
	defer m.Close()
	testutil.WaitFor(t, 10*time.Second, "a write acknowledged by the promoted replica", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := rdb.Set(ctx, "h3:after", "x", 0).Err(); err != nil {
			return false
		}
		v, err := m.Get(ctx, "h3:after").Result()
		return err == nil && v == "x"
	})
	halt()
	if role, err := testutil.Role(newAddr); err != nil || role != "master" {
		t.Fatalf("%s reports role %q (%v)", newAddr, role, err)
	}
}

// TestAllSentinelsDownDemotedMaster keeps the safety rule of the fallback:
// with every sentinel down, a master that stops being one (demoted by hand
// with REPLICAOF) is not kept: once it answers READONLY no write is
// acknowledged by it, and new connections refuse it (ROLE slave).
func TestAllSentinelsDownDemotedMaster(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 1, 1)
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: c.sentinelAddrs(), MaxRetries: 1, DialTimeout: time.Second})
	ctx := context.Background()
	if err := rdb.Set(ctx, "k", "before", 0).Err(); err != nil {
		t.Fatalf("first write: %v", err)
	}
	c.sentinels[0].Kill()
	<-c.sentinels[0].Done()
	old := redis.NewClient(&redis.Options{Addr: c.top.Master.Addr()})
	defer old.Close()
	if err := old.SlaveOf(ctx, "127.0.0.1", strconv.Itoa(c.top.Replicas[0].Port)).Err(); err != nil {
		t.Fatalf("REPLICAOF: %v", err)
	}
	// Pooled connection (READONLY), then new connections (ROLE slave).
	for i := 0; i < 5; i++ {
		err := rdb.Set(ctx, "k", "after", 0).Err()
		if err == nil {
			t.Fatalf("write %d acknowledged with the master demoted and no sentinel", i)
		}
		t.Logf("write %d: %v", i, err)
	}
	conn := rdb.Conn()
	defer conn.Close()
	if err := conn.Ping(ctx).Err(); err == nil {
		t.Fatal("a new connection was opened to the demoted master")
	}
	st, _ := StatsOf(rdb)
	if st.KeptWithoutSentinels != 0 {
		t.Errorf("KeptWithoutSentinels = %d, want 0 (the node answers ROLE slave)", st.KeptWithoutSentinels)
	}
}
