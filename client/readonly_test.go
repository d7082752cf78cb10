package client

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// promote makes replica the master and demotes the old master under it,
// the way Sentinel does, but without killing client connections: the
// client's pooled connections to the old master then get READONLY.
func promote(t *testing.T, oldMaster, replica *testutil.Process) {
	t.Helper()
	ctx := context.Background()
	r := redis.NewClient(&redis.Options{Addr: replica.Addr(), MaxRetries: -1})
	defer r.Close()
	if err := r.SlaveOf(ctx, "NO", "ONE").Err(); err != nil {
		t.Fatalf("REPLICAOF NO ONE: %v", err)
	}
	m := redis.NewClient(&redis.Options{Addr: oldMaster.Addr(), MaxRetries: -1})
	defer m.Close()
	h, p, _ := net.SplitHostPort(replica.Addr())
	if err := m.SlaveOf(ctx, h, p).Err(); err != nil {
		t.Fatalf("REPLICAOF: %v", err)
	}
}

func TestReadOnlyTriggersOneResolution(t *testing.T) {
	t.Parallel()
	top := testutil.StartTopology(t, 1)
	fs := startFakeSentinel(t, top.Master.Addr(), 1)
	var mu sync.Mutex
	var changes []string
	const workers = 16
	rdb := newTestClient(t, FailoverOptions{
		SentinelAddrs: []string{fs.addr()}, DisablePubSub: true, ReconcileInterval: -1,
		ResolveCacheTTL: time.Hour, PoolSize: workers,
		OnMasterChange: func(old, new string) {
			mu.Lock()
			changes = append(changes, old+">"+new)
			mu.Unlock()
		},
	})
	ctx := context.Background()
	// Warm the pool: every worker holds its own connection to the master.
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = rdb.Do(ctx, "DEBUG", "SLEEP", "0.05").Err()
		}()
	}
	wg.Wait()
	before, _ := StatsOf(rdb)
	if before.Dials < 2 {
		t.Fatalf("pool not warmed: %d dials", before.Dials)
	}

	promote(t, top.Master, top.Replicas[0])
	fs.set(top.Replicas[0].Addr(), 2)

	errs := make(chan error, workers)
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs <- rdb.Set(ctx, fmt.Sprintf("after-%d", i), i, 0).Err()
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Set after failover: %v", err)
		}
	}
	after, _ := StatsOf(rdb)
	if n := after.Resolutions - before.Resolutions; n > 2 {
		t.Errorf("%d resolutions for one master change with %d pooled connections, want at most 2", n, workers)
	}
	if after.Retries == 0 {
		t.Errorf("no retry recorded: the READONLY path was not exercised")
	}
	if after.MasterChanges != 1 || after.CurrentAddr != top.Replicas[0].Addr() {
		t.Errorf("MasterChanges=%d CurrentAddr=%s, want 1 and %s", after.MasterChanges, after.CurrentAddr, top.Replicas[0].Addr())
	}
	// Every write landed on the new master.
	n := redis.NewClient(&redis.Options{Addr: top.Replicas[0].Addr()})
	defer n.Close()
	for i := 0; i < workers; i++ {
		if v, err := n.Get(ctx, fmt.Sprintf("after-%d", i)).Int(); err != nil || v != i {
			t.Fatalf("key after-%d on new master: %v %v", i, v, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{">" + top.Master.Addr(), top.Master.Addr() + ">" + top.Replicas[0].Addr()}
	if fmt.Sprint(changes) != fmt.Sprint(want) {
		t.Errorf("OnMasterChange calls %v, want %v", changes, want)
	}
}

// TestSwitchMasterHint checks that +switch-master wakes the resolver (the
// address still comes from a query) and flushes the pool before any
// command fails.
func TestSwitchMasterHint(t *testing.T) {
	t.Parallel()
	top := testutil.StartTopology(t, 1)
	fs := startFakeSentinel(t, top.Master.Addr(), 1)
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, ReconcileInterval: -1, ResolveCacheTTL: time.Hour})
	ctx := context.Background()
	if err := rdb.Set(ctx, "k", "1", 0).Err(); err != nil {
		t.Fatalf("Set: %v", err)
	}
	testutil.WaitFor(t, 5*time.Second, "subscription", func() bool {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		return len(fs.subs) > 0
	})
	promote(t, top.Master, top.Replicas[0])
	fs.set(top.Replicas[0].Addr(), 2)
	// The payload lies about the new address: only the query counts.
	fs.publish("+switch-master", "mymaster 127.0.0.1 1 127.0.0.1 2")
	testutil.WaitFor(t, 5*time.Second, "switch to the new master", func() bool {
		st, _ := StatsOf(rdb)
		return st.CurrentAddr == top.Replicas[0].Addr()
	})
	st, _ := StatsOf(rdb)
	if st.PubSubHints != 1 || st.PoolFlushes != 1 {
		t.Fatalf("PubSubHints=%d PoolFlushes=%d, want 1 and 1", st.PubSubHints, st.PoolFlushes)
	}
	if err := rdb.Set(ctx, "k", "2", 0).Err(); err != nil {
		t.Fatalf("Set after switch: %v", err)
	}
	st2, _ := StatsOf(rdb)
	if st2.Retries != st.Retries {
		t.Fatalf("a retry was needed after the hint: the stale connection was not flushed before use")
	}
}
