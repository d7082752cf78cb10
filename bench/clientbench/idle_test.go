package clientbench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/client"
	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// idleContender builds one idle client named name (nil: the baseline).
type idleContender struct {
	label string
	make  func(c *testutil.SentinelCluster, name string) *redis.Client
}

var idleContenders = []idleContender{
	{"no client (sentinels' own traffic)", nil},
	{"gosentinel client (default)", func(c *testutil.SentinelCluster, name string) *redis.Client {
		return client.NewFailoverClient(&client.FailoverOptions{MasterName: c.Name, SentinelAddrs: c.SentinelAddrs(), ClientName: name})
	}},
	{"gosentinel client, VerifyInterval -1", func(c *testutil.SentinelCluster, name string) *redis.Client {
		return client.NewFailoverClient(&client.FailoverOptions{MasterName: c.Name, SentinelAddrs: c.SentinelAddrs(), ClientName: name,
			VerifyInterval: -1})
	}},
	{"go-redis NewFailoverClient", func(c *testutil.SentinelCluster, name string) *redis.Client {
		return redis.NewFailoverClient(&redis.FailoverOptions{MasterName: c.Name, SentinelAddrs: c.SentinelAddrs(), ClientName: name})
	}},
}

// namedConns counts, per sentinel, the connections whose CLIENT SETNAME
// is name.
func namedConns(t *testing.T, sentinels []string, name string) []int {
	t.Helper()
	out := make([]int, len(sentinels))
	for i, s := range sentinels {
		sc := redis.NewClient(&redis.Options{Addr: s, Protocol: 2, DisableIdentity: true})
		list, err := sc.ClientList(context.Background()).Result()
		sc.Close()
		if err != nil {
			t.Fatalf("CLIENT LIST on %s: %v", s, err)
		}
		for _, l := range strings.Split(list, "\n") {
			if strings.Contains(l, " name="+name+" ") {
				out[i]++
			}
		}
	}
	return out
}

// TestIdleSentinelTraffic measures what idle clients cost the sentinels:
// GOSENTINEL_BENCH_IDLE_CLIENTS clients (default 20) of each contender
// write once, then stay idle for GOSENTINEL_BENCH_IDLE_WINDOW (default
// 30 s, three reconciliations of ours); the sentinels' INFO stats give
// the commands they processed (minus the sentinels' own traffic, measured
// first over the same window), CLIENT LIST the connections each client
// holds (every client sets ClientName, which both clients also send to
// the sentinels). Same cluster for every contender (3 redis-sentinel,
// master + 1 replica), one after the other. Only with GOSENTINEL_BENCH=1.
func TestIdleSentinelTraffic(t *testing.T) {
	if os.Getenv("GOSENTINEL_BENCH") != "1" {
		t.Skip("set GOSENTINEL_BENCH=1 to run the idle sentinel traffic benchmark")
	}
	n := envPositiveInt("GOSENTINEL_BENCH_IDLE_CLIENTS", 20)
	window := 30 * time.Second
	if v, err := time.ParseDuration(os.Getenv("GOSENTINEL_BENCH_IDLE_WINDOW")); err == nil && v > 0 {
		window = v
	}
	c := testutil.StartSentinelCluster(t, "mymaster", 1, 3, 2, 1000, 3000)
	sentinels := c.SentinelAddrs()
	ctx := context.Background()
	var base float64 // the sentinels' own commands per second
	var b strings.Builder
	b.WriteString("| contender | sentinel commands/s per idle client | connections per client (per sentinel) |\n|---|---|---|\n")
	for k, ic := range idleContenders {
		name := fmt.Sprintf("idlebench%d", k)
		var rdbs []*redis.Client
		if ic.make != nil {
			for i := 0; i < n; i++ {
				r := ic.make(c, name)
				rdbs = append(rdbs, r)
				if err := r.Set(ctx, "idle:"+strconv.Itoa(i), i, 0).Err(); err != nil {
					t.Fatalf("%s: first write: %v", ic.label, err)
				}
			}
			// Subscriptions and the catch-up after subscribing.
			testutil.WaitFor(t, 10*time.Second, "subscriptions", func() bool {
				sum := 0
				for _, v := range namedConns(t, sentinels, name) {
					sum += v
				}
				return sum >= n
			})
			settle := time.NewTimer(2 * time.Second)
			<-settle.C
		}
		s0 := snap(t, sentinels)
		w := time.NewTimer(window)
		<-w.C
		_, cmds := snap(t, sentinels).since(s0)
		rate := float64(cmds) / window.Seconds()
		if ic.make == nil {
			base = rate
			fmt.Fprintf(&b, "| %s | %.1f/s in all |  |\n", ic.label, rate)
			continue
		}
		per := namedConns(t, sentinels, name)
		total := 0
		for _, v := range per {
			total += v
		}
		perSentinel := make([]string, len(per))
		for i, v := range per {
			perSentinel[i] = fmt.Sprintf("%.2f", float64(v)/float64(n))
		}
		fmt.Fprintf(&b, "| %s | %.2f | %.2f (%s) |\n", ic.label, (rate-base)/float64(n), float64(total)/float64(n), strings.Join(perSentinel, " / "))
		for _, r := range rdbs {
			r.Close()
		}
		testutil.WaitFor(t, 10*time.Second, "clients gone", func() bool {
			for _, v := range namedConns(t, sentinels, name) {
				if v > 0 {
					return false
				}
			}
			return true
		})
	}
	t.Logf("idle clients (%d per contender, %v window):\n%s", n, window, b.String())
}
