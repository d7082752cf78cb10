package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// bin is the gosentinel binary built once for the package's tests.
var bin string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	return testutil.RunWithGosentinel("cmd", func(b, _ string) int {
		bin = b
		// testutil.StartSentinelCluster runs this binary instead of redis-sentinel.
		os.Setenv(testutil.SentinelBinEnv, bin)
		return m.Run()
	})
}

func sentinelClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, Protocol: 2, DialTimeout: time.Second, ReadTimeout: 2 * time.Second})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestFailoverThreeGosentinels runs 3 gosentinels over a real master and
// 2 replicas: discovery, SENTINEL MASTER shape, SIGKILL of the master,
// agreement on the new master, and the old master coming back as replica.
func TestFailoverThreeGosentinels(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	const name = "mym"
	c := testutil.StartSentinelCluster(t, name, 2, 3, 2, 1000, 3000)
	ctx := context.Background()

	// SENTINEL MASTER: field order and positions tools rely on.
	v, err := sentinelClient(t, c.Sentinels[0].Addr()).Do(ctx, "SENTINEL", "MASTER", name).Slice()
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{0: "name", 1: name, 2: "ip", 4: "port", 5: strconv.Itoa(c.Top.Master.Port), 8: "flags", 9: "master", 32: "num-other-sentinels", 33: "2"}
	for i, w := range want {
		if i >= len(v) || v[i] != w {
			t.Errorf("SENTINEL MASTER[%d] = %v, want %q (reply %v)", i, v[min(i, len(v)-1)], w, v)
		}
	}
	replicas, err := sentinelClient(t, c.Sentinels[1].Addr()).Do(ctx, "SENTINEL", "REPLICAS", name).Slice()
	if err != nil || len(replicas) != 2 {
		t.Fatalf("SENTINEL REPLICAS = %v, %v; want 2 replicas", replicas, err)
	}

	oldPort := c.Top.Master.Port
	oldAddr := c.Top.Master.Addr()
	start := time.Now()
	c.Top.Master.Kill()
	var newAddr string
	testutil.WaitFor(t, 30*time.Second, "all sentinels agree on a new master", func() bool {
		var addrs []string
		for _, s := range c.Sentinels {
			a, err := testutil.MasterAddr(s.Addr(), name)
			if err != nil || a == oldAddr {
				return false
			}
			addrs = append(addrs, a)
		}
		for _, a := range addrs[1:] {
			if a != addrs[0] {
				return false
			}
		}
		newAddr = addrs[0]
		return true
	})
	t.Logf("kill -> all 3 gosentinels agree on %s: %v", newAddr, time.Since(start))
	testutil.WaitFor(t, 10*time.Second, "promoted replica reports role master", func() bool {
		r, err := testutil.Role(newAddr)
		return err == nil && r == "master"
	})
	switchMsg := "+switch-master " + name + " 127.0.0.1 " + strconv.Itoa(oldPort) + " " + strings.Replace(newAddr, ":", " ", 1)
	for _, s := range c.Sentinels {
		testutil.WaitFor(t, 20*time.Second, s.Addr()+" logs "+switchMsg, func() bool {
			return strings.Count(s.Log(), "+switch-master ") == 1 && strings.Contains(s.Log(), switchMsg)
		})
	}
	t.Logf("kill -> +switch-master logged by all 3: %v", time.Since(start))

	// The old master comes back and is turned into a replica.
	old := testutil.StartRedisOnPort(t, oldPort)
	testutil.WaitFor(t, 30*time.Second, "old master reconfigured as replica", func() bool {
		r, err := testutil.Role(old.Addr())
		return err == nil && r == "slave"
	})
}
