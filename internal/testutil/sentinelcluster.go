package testutil

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// SentinelBinEnv names the environment variable holding the sentinel binary
// that StartSentinelCluster runs; unset means the Debian redis-sentinel.
// Point it at gosentinel to run client tests and benchmarks against it.
const SentinelBinEnv = "GOSENTINEL_SENTINEL_BIN"

// SentinelCluster is a master with replicas and n sentinels monitoring it.
type SentinelCluster struct {
	Name      string
	Top       *Topology
	Sentinels []*Process
}

// SentinelAddrs returns the sentinels' addresses.
func (c *SentinelCluster) SentinelAddrs() []string {
	out := make([]string, 0, len(c.Sentinels))
	for _, s := range c.Sentinels {
		out = append(out, s.Addr())
	}
	return out
}

// StartSentinelCluster starts a master named name with `replicas` replicas
// and n sentinels (quorum, down-after-milliseconds and failover-timeout as
// given). The sentinels' hello period is shortened with SENTINEL DEBUG
// (publish-period 200 ms) so that they discover each other quickly; the
// other periods keep their defaults (a shorter ping-period shrinks the
// "replica recently seen" window to 5×ping-period and makes failovers abort
// with -failover-abort-no-good-slave). It waits until every sentinel sees n-1 peers and every
// replica. Everything is killed in t.Cleanup.
func StartSentinelCluster(t TB, name string, replicas, n, quorum, downAfterMs, failoverTimeoutMs int) *SentinelCluster {
	t.Helper()
	bin := os.Getenv(SentinelBinEnv)
	if bin == "" {
		bin = Binary(t, "redis-sentinel")
	}
	c := &SentinelCluster{Name: name, Top: StartTopology(t, replicas)}
	for i := 0; i < n; i++ {
		dir := t.TempDir()
		port := FreePort(t)
		conf := filepath.Join(dir, "sentinel.conf")
		log := filepath.Join(dir, "sentinel.log")
		body := fmt.Sprintf("port %d\nbind 127.0.0.1\nlogfile %s\n%s", port, strconv.Quote(log),
			SentinelConf(name, c.Top.Master.Port, quorum, downAfterMs, failoverTimeoutMs))
		writeFile(t, conf, body)
		c.Sentinels = append(c.Sentinels, StartSentinelConf(t, bin, conf, port, log))
	}
	ctx := context.Background()
	for _, s := range c.Sentinels {
		sc := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, Protocol: 2})
		err := sc.Do(ctx, "SENTINEL", "DEBUG", "publish-period", "200").Err()
		sc.Close()
		if err != nil {
			t.Fatalf("testutil: SENTINEL DEBUG on %s: %v", s.Addr(), err)
		}
	}
	for _, s := range c.Sentinels {
		WaitFor(t, 20*time.Second, "sentinel "+s.Addr()+" sees its peers and replicas", func() bool {
			m, err := SentinelMaster(s.Addr(), name)
			return err == nil && m["num-other-sentinels"] == strconv.Itoa(n-1) && m["num-slaves"] == strconv.Itoa(replicas)
		})
	}
	return c
}

// SentinelMaster returns SENTINEL MASTER <name> from the sentinel at addr
// as a field map.
func SentinelMaster(addr, name string) (map[string]string, error) {
	sc := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second, Protocol: 2})
	defer sc.Close()
	v, err := sc.Do(context.Background(), "SENTINEL", "MASTER", name).Slice()
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(v)/2)
	for i := 0; i+1 < len(v); i += 2 {
		k, _ := v[i].(string)
		s, _ := v[i+1].(string)
		m[k] = s
	}
	return m, nil
}
