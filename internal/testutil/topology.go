package testutil

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Topology is a master with replicas, all real redis-server processes.
type Topology struct {
	Master   *Process
	Replicas []*Process
}

// StartTopology starts a master and n replicas replicating from it and waits
// until every replica reports master_link_status:up. replicaExtra[i], when
// given, adds config lines to replica i (e.g. "replica-priority 0").
func StartTopology(t TB, n int, replicaExtra ...[]string) *Topology {
	t.Helper()
	m := StartRedis(t)
	top := &Topology{Master: m}
	for i := 0; i < n; i++ {
		extra := []string{fmt.Sprintf("replicaof 127.0.0.1 %d", m.Port)}
		if i < len(replicaExtra) {
			extra = append(extra, replicaExtra[i]...)
		}
		top.Replicas = append(top.Replicas, StartRedis(t, extra...))
	}
	for _, r := range top.Replicas {
		WaitFor(t, 10*time.Second, "replica "+r.Addr()+" linked", func() bool {
			info, err := Info(r.Addr(), "replication")
			return err == nil && strings.Contains(info, "master_link_status:up")
		})
	}
	return top
}

// Info returns INFO <section> of a Redis at addr.
func Info(addr, section string) (string, error) {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second, PoolSize: 1})
	defer c.Close()
	return c.Info(context.Background(), section).Result()
}

// Role returns the first element of ROLE ("master", "slave", "sentinel").
func Role(addr string) (string, error) {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second, PoolSize: 1})
	defer c.Close()
	v, err := c.Do(context.Background(), "ROLE").Slice()
	if err != nil {
		return "", err
	}
	if len(v) == 0 {
		return "", fmt.Errorf("empty ROLE reply")
	}
	s, _ := v[0].(string)
	return s, nil
}

// MasterAddr asks a sentinel at addr for SENTINEL GET-MASTER-ADDR-BY-NAME.
func MasterAddr(addr, name string) (string, error) {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second, PoolSize: 1})
	defer c.Close()
	v, err := c.Do(context.Background(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name).StringSlice()
	if err != nil {
		return "", err
	}
	if len(v) != 2 {
		return "", fmt.Errorf("unexpected reply %q", v)
	}
	return v[0] + ":" + v[1], nil
}

// SentinelConf returns the body of a sentinel.conf monitoring master name at
// the given port with fast timers (down-after and failover-timeout in ms).
func SentinelConf(name string, masterPort, quorum, downAfterMs, failoverTimeoutMs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "sentinel monitor %s 127.0.0.1 %d %d\n", name, masterPort, quorum)
	fmt.Fprintf(&b, "sentinel down-after-milliseconds %s %d\n", name, downAfterMs)
	fmt.Fprintf(&b, "sentinel failover-timeout %s %d\n", name, failoverTimeoutMs)
	return b.String()
}

// WaitFor polls cond every 10 ms until it is true or timeout passes, then
// fails the test naming what it waited for. Use it only where no event can
// be awaited (another process's state).
func WaitFor(t TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("testutil: timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Itoa is strconv.Itoa, for building config lines tersely.
func Itoa(i int) string { return strconv.Itoa(i) }
