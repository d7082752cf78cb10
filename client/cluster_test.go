package client

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// sentinelBinEnv names the sentinel binary the tests start; unset means the
// Debian redis-sentinel. Point it at gosentinel to run the same tests
// against our server.
const sentinelBinEnv = "GOSENTINEL_SENTINEL_BIN"

// cluster is a real master, its replicas and n real sentinels monitoring it.
type cluster struct {
	name      string
	top       *testutil.Topology
	sentinels []*testutil.Process
}

// startCluster starts replicas+1 redis-server and n sentinels (quorum 2,
// down-after 1000 ms) with shortened periods, and waits until the sentinels
// know each other and the replicas.
func startCluster(t testing.TB, replicas, n int) *cluster {
	t.Helper()
	bin := os.Getenv(sentinelBinEnv)
	if bin == "" {
		bin = testutil.Binary(t, "redis-sentinel")
	}
	c := &cluster{name: "mymaster", top: testutil.StartTopology(t, replicas)}
	for i := 0; i < n; i++ {
		dir := t.TempDir()
		port := testutil.FreePort(t)
		conf := filepath.Join(dir, "sentinel.conf")
		log := filepath.Join(dir, "sentinel.log")
		body := fmt.Sprintf("port %d\nbind 127.0.0.1\nlogfile %s\n%s", port, strconv.Quote(log),
			testutil.SentinelConf(c.name, c.top.Master.Port, 2, 1000, 3000))
		if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
			t.Fatalf("write sentinel.conf: %v", err)
		}
		c.sentinels = append(c.sentinels, testutil.StartSentinelConf(t, bin, conf, port, log))
	}
	ctx := context.Background()
	for _, s := range c.sentinels {
		sc := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
		// Faster hello/ping/ask periods; failover timing stays realistic.
		err := sc.Do(ctx, "SENTINEL", "DEBUG", "ping-period", "100", "ask-period", "100",
			"publish-period", "200", "info-period", "500").Err()
		sc.Close()
		if err != nil {
			t.Fatalf("SENTINEL DEBUG on %s: %v", s.Addr(), err)
		}
	}
	for _, s := range c.sentinels {
		testutil.WaitFor(t, 20*time.Second, "sentinel "+s.Addr()+" sees peers and replicas", func() bool {
			m, err := sentinelMaster(s.Addr(), c.name)
			return err == nil && m["num-other-sentinels"] == strconv.Itoa(n-1) && m["num-slaves"] == strconv.Itoa(replicas)
		})
	}
	return c
}

func (c *cluster) sentinelAddrs() []string {
	var out []string
	for _, s := range c.sentinels {
		out = append(out, s.Addr())
	}
	return out
}

// sentinelMaster returns SENTINEL MASTER <name> as a map.
func sentinelMaster(addr, name string) (map[string]string, error) {
	sc := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second, Protocol: 2})
	defer sc.Close()
	v, err := sc.Do(context.Background(), "SENTINEL", "MASTER", name).Slice()
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for i := 0; i+1 < len(v); i += 2 {
		k, _ := v[i].(string)
		s, _ := v[i+1].(string)
		m[k] = s
	}
	return m, nil
}

// replicaByAddr returns the replica process listening on addr.
func (c *cluster) process(addr string) *testutil.Process {
	for _, p := range append([]*testutil.Process{c.top.Master}, c.top.Replicas...) {
		if p.Addr() == addr {
			return p
		}
	}
	return nil
}
