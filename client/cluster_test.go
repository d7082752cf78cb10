package client

import (
	"testing"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// cluster is a real master, its replicas and real sentinels (or the binary
// named by $GOSENTINEL_SENTINEL_BIN) monitoring it.
type cluster struct {
	name      string
	top       *testutil.Topology
	sentinels []*testutil.Process
}

// startCluster starts replicas+1 redis-server and n sentinels (quorum 2,
// down-after 1000 ms, failover-timeout 3000 ms).
func startCluster(t testing.TB, replicas, n int) *cluster {
	t.Helper()
	c := testutil.StartSentinelCluster(t, "mymaster", replicas, n, 2, 1000, 3000)
	return &cluster{name: c.Name, top: c.Top, sentinels: c.Sentinels}
}

func (c *cluster) sentinelAddrs() []string {
	var out []string
	for _, s := range c.sentinels {
		out = append(out, s.Addr())
	}
	return out
}
