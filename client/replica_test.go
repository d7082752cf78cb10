package client

import (
	"context"
	"errors"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

func replicaEntry(addr, flags, link string) map[string]string {
	h, p, _ := net.SplitHostPort(addr)
	return map[string]string{"name": addr, "ip": h, "port": p, "flags": flags, "master-link-status": link}
}

func TestReplicaClientWithFakeSentinel(t *testing.T) {
	t.Parallel()
	top := testutil.StartTopology(t, 2)
	down := closedAddr(t)
	tests := []struct {
		name     string
		replicas []map[string]string
		want     error  // nil: reads must work
		wantAddr string // the replica the client must use ("" = any slave)
	}{
		{"healthy replicas", []map[string]string{
			replicaEntry(top.Replicas[0].Addr(), "slave", "ok"),
			replicaEntry(top.Replicas[1].Addr(), "slave", "ok")}, nil, ""},
		{"skips s_down and disconnected", []map[string]string{
			replicaEntry(down, "slave,s_down", "err"),
			replicaEntry(top.Replicas[0].Addr(), "slave,disconnected", "ok"),
			replicaEntry(top.Replicas[1].Addr(), "slave", "ok")}, nil, top.Replicas[1].Addr()},
		{"prefers link ok", []map[string]string{
			replicaEntry(top.Replicas[0].Addr(), "slave", "err"),
			replicaEntry(top.Replicas[1].Addr(), "slave", "ok")}, nil, top.Replicas[1].Addr()},
		{"only o_down", []map[string]string{replicaEntry(down, "slave,o_down", "err")}, ErrNoReplicaAvailable, ""},
		{"master listed as replica", []map[string]string{replicaEntry(top.Master.Addr(), "slave", "ok")}, ErrRoleMismatch, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := startFakeSentinel(t, top.Master.Addr(), 1)
			fs.mu.Lock()
			fs.replicas = tc.replicas
			fs.mu.Unlock()
			rdb := NewReplicaClient(&FailoverOptions{MasterName: "mymaster", SentinelAddrs: []string{fs.addr()},
				DialTimeout: time.Second, MaxRetries: -1})
			t.Cleanup(func() { rdb.Close() })
			ctx := context.Background()
			for i := 0; i < 5; i++ {
				v, err := rdb.Do(ctx, "ROLE").Slice()
				if tc.want != nil {
					if !errors.Is(err, tc.want) {
						t.Fatalf("ROLE error = %v, want %v", err, tc.want)
					}
					return
				}
				if err != nil {
					t.Fatalf("ROLE: %v", err)
				}
				if v[0] != "slave" {
					t.Fatalf("replica client reached a %v", v[0])
				}
			}
			if tc.wantAddr != "" {
				ci, err := rdb.ClientInfo(ctx).Result()
				if err != nil {
					t.Fatalf("CLIENT INFO: %v", err)
				}
				if ci.LAddr != tc.wantAddr {
					t.Fatalf("connected to %s, want %s", ci.LAddr, tc.wantAddr)
				}
			}
		})
	}
}

// TestRealSentinel checks discovery against a real sentinel: master,
// replica and unknown-name errors.
func TestRealSentinel(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 1, 3)
	ctx := context.Background()
	t.Run("sentinel list refresh", func(t *testing.T) {
		rdb := newTestClient(t, FailoverOptions{SentinelAddrs: c.sentinelAddrs()[:1]})
		if err := rdb.Ping(ctx).Err(); err != nil {
			t.Fatalf("Ping: %v", err)
		}
		st, _ := StatsOf(rdb)
		// The order is the order of answers (queries run side by side,
		// background resolutions may have reordered it): check the set.
		got := append([]string(nil), st.Sentinels...)
		want := c.sentinelAddrs()
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) || st.SentinelsDiscovered != 2 {
			t.Fatalf("sentinel list %v (discovered %d), want the seed and its 2 peers", st.Sentinels, st.SentinelsDiscovered)
		}
	})
	t.Run("master", func(t *testing.T) {
		rdb := newTestClient(t, FailoverOptions{SentinelAddrs: c.sentinelAddrs()})
		if v, err := rdb.Do(ctx, "ROLE").Slice(); err != nil || v[0] != "master" {
			t.Fatalf("ROLE = %v, %v; want master", v, err)
		}
	})
	t.Run("replica", func(t *testing.T) {
		rdb := NewReplicaClient(&FailoverOptions{MasterName: c.name, SentinelAddrs: c.sentinelAddrs()})
		defer rdb.Close()
		testutil.WaitFor(t, 10*time.Second, "sentinel sees the replica link up", func() bool {
			v, err := rdb.Do(ctx, "ROLE").Slice()
			return err == nil && v[0] == "slave"
		})
	})
	t.Run("unknown master", func(t *testing.T) {
		rdb := newTestClient(t, FailoverOptions{MasterName: "nosuchmaster", SentinelAddrs: c.sentinelAddrs()})
		err := rdb.Ping(ctx).Err()
		if !errors.Is(err, ErrMasterNotFound) || errors.Is(err, ErrNoSentinelReachable) {
			t.Fatalf("Ping error = %v, want ErrMasterNotFound only", err)
		}
	})
	t.Run("replica of unknown master", func(t *testing.T) {
		rdb := NewReplicaClient(&FailoverOptions{MasterName: "nosuchmaster", SentinelAddrs: c.sentinelAddrs()})
		defer rdb.Close()
		if err := rdb.Ping(ctx).Err(); !errors.Is(err, ErrMasterNotFound) {
			t.Fatalf("Ping error = %v, want ErrMasterNotFound", err)
		}
	})
}

// TestReplicaClientDropsPromotedReplica: after a +switch-master hint the
// replica list is refreshed and connections to a node that left it (here:
// promoted) stop taking commands.
func TestReplicaClientDropsPromotedReplica(t *testing.T) {
	t.Parallel()
	top := testutil.StartTopology(t, 2)
	r0, r1 := top.Replicas[0].Addr(), top.Replicas[1].Addr()
	fs := startFakeSentinel(t, top.Master.Addr(), 1)
	fs.mu.Lock()
	fs.replicas = []map[string]string{replicaEntry(r0, "slave", "ok")}
	fs.mu.Unlock()
	rdb := NewReplicaClient(&FailoverOptions{MasterName: "mymaster", SentinelAddrs: []string{fs.addr()},
		ReconcileInterval: -1, ResolveCacheTTL: time.Hour})
	t.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	if ci, err := rdb.ClientInfo(ctx).Result(); err != nil || ci.LAddr != r0 {
		t.Fatalf("first connection: %v %v, want %s", ci, err, r0)
	}
	testutil.WaitFor(t, 5*time.Second, "subscription", func() bool {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		return len(fs.subs) > 0
	})
	// r0 gets promoted: the sentinels now list r1 only.
	fs.mu.Lock()
	fs.replicas = []map[string]string{replicaEntry(r1, "slave", "ok")}
	fs.mu.Unlock()
	fs.publish("+switch-master", "mymaster 127.0.0.1 1 127.0.0.1 2")
	testutil.WaitFor(t, 5*time.Second, "replica list refreshed", func() bool {
		st, _ := StatsOf(rdb)
		return st.PoolFlushes == 1
	})
	for i := 0; i < 5; i++ {
		if ci, err := rdb.ClientInfo(ctx).Result(); err != nil || ci.LAddr != r1 {
			t.Fatalf("after the refresh: %v %v, want %s", ci, err, r1)
		}
	}
}
