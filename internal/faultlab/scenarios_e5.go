package faultlab

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
)

// E5: two sentinel groups monitor two different deployments under the
// same master name, and hello messages leak from one into the other
// (RedisShake#255: a replication tool copying Pub/Sub traffic; the same
// happens when a node's address is reused by another deployment,
// helm/charts#19895). Group A is the lab's own T3 (mym on h1..h3:6379,
// sentinels on :26379). Group B is a second T3 on port 7000 of the same
// hosts (master h1:7000), with its own three sentinels on port 26380,
// same implementation, same name mym. A bridge on the observer host
// subscribes to __sentinel__:hello on A's three nodes and PUBLISHes every
// message on B's master, as the copying tool does. Then A's master is
// killed: A fails over and its hellos announce the new master with
// config epoch 1, above B's 0. Reference: known-bugs-and-reliability.md
// §4 E5 and bug class 28 ("Hello messages are matched by master name only
// and are unauthenticated... report the conflict; do not switch master").

// e5 ports of group B.
const (
	e5RedisPort    = 7000
	e5SentinelPort = 26380
)

func init() {
	register(&Scenario{
		ID: "E5", Title: "two groups, same master name, hellos copied between them", ExpectFailover: true,
		Setup: Setup{NoWriters: true},
		Fault: "a second T3 (port 7000, own sentinels on 26380, same name mym); A's hellos copied onto B's master " +
			"(RedisShake#255); then SIGKILL A's master",
		Expected: "A fails over; B's sentinels never learn A's sentinels and keep B's master (0 cross-group +switch-master)",
		Schedule: e5Schedule,
		Criteria: []Criterion{
			rtoSwitchWithin(7),
			extraEquals("e5_b_started", 1, "group B up (3 sentinels know each other and both replicas)"),
			extraEquals("e5_hellos_copied_ok", 1, "hellos of A were copied onto B's master"),
			extraEquals("e5_foreign_sentinels", 0, "B's sentinels know no sentinel of A (no merge)"),
			extraEquals("e5_a_foreign_sentinels", 0, "A's sentinels know no sentinel of B"),
			extraEquals("e5_cross_switch", 0, "no B sentinel names a node of A as mym's master"),
		},
	})
}

// e5SentinelAddr is the address of group B's sentinel on host h.
func e5SentinelAddr(t *Topology, h string) string {
	return net.JoinHostPort(t.origIP[h], strconv.Itoa(e5SentinelPort))
}

// e5StartSentinel writes and starts group B's sentinel on host h.
func e5StartSentinel(t *Topology, h string) error {
	dir := t.hostDir(h, "sentinelB")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("group B sentinel dir: %w", err)
	}
	s := t.Setup
	conf := filepath.Join(dir, "sentinel.conf")
	var b strings.Builder
	fmt.Fprintf(&b, "port %d\nbind * -::*\nprotected-mode no\ndaemonize no\nlogfile \"\"\ndir %q\n", e5SentinelPort, dir)
	fmt.Fprintf(&b, "sentinel monitor %s %s %d %d\n", MasterName, t.origIP[t.RedisHosts[0]], e5RedisPort, s.Quorum)
	fmt.Fprintf(&b, "sentinel down-after-milliseconds %s %d\n", MasterName, s.DownAfterMs)
	fmt.Fprintf(&b, "sentinel failover-timeout %s %d\n", MasterName, s.FailoverTimeoutMs)
	if err := os.WriteFile(conf, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("group B sentinel config: %w", err)
	}
	bin := t.SentinelBin(h)
	return t.start(h, "sentinelB-"+h, []string{bin, conf}, dir, netlab.ProcSpec{})
}

// e5View is what group B's sentinel on one host says about mym.
type e5View struct {
	master         string // GET-MASTER-ADDR-BY-NAME, ip:port
	otherSentinels int
	replicas       int
}

func e5ViewOf(ctx context.Context, t *Topology, h string) (e5View, error) {
	c := t.obs.get(e5SentinelAddr(t, h))
	v, err := c.Do(ctx, "SENTINEL", "MASTER", MasterName).Result()
	if err != nil {
		return e5View{}, err
	}
	m := flat(v)
	n, _ := strconv.Atoi(m["num-other-sentinels"])
	r, _ := strconv.Atoi(m["num-slaves"])
	return e5View{master: net.JoinHostPort(m["ip"], m["port"]), otherSentinels: n, replicas: r}, nil
}

func e5Schedule(ctx context.Context, e *Env) error {
	t := e.Top
	masterHost := t.RedisHosts[0]
	// 1. Group B: redis-servers on port 7000 (startMassRedis's group 0),
	// then its sentinels.
	for _, h := range t.RedisHosts {
		if err := startMassRedis(t, h, e5RedisPort-massBasePort, masterHost); err != nil {
			return err
		}
	}
	for _, h := range t.SentinelHosts {
		if err := e5StartSentinel(t, h); err != nil {
			return err
		}
	}
	bMaster := net.JoinHostPort(t.origIP[masterHost], strconv.Itoa(e5RedisPort))
	err := massWait(ctx, 60*time.Second, func() error {
		for _, h := range t.SentinelHosts {
			v, err := e5ViewOf(ctx, t, h)
			if err != nil {
				return fmt.Errorf("group B sentinel %s: %w", h, err)
			}
			if v.master != bMaster || v.otherSentinels != len(t.SentinelHosts)-1 || v.replicas != len(t.RedisHosts)-1 {
				return fmt.Errorf("group B sentinel %s: %+v", h, v)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("group B did not come up: %w", err)
	}
	e.Set("e5_b_started", 1)
	// 2. The bridge: every hello seen on A's nodes is published on B's
	// master.
	bctx, stop := context.WithCancel(ctx)
	var copied, copyErrs int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, h := range t.RedisHosts {
		sub := t.obs.get(t.RedisAddr(h)).Subscribe(bctx, "__sentinel__:hello")
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer sub.Close()
			ch := sub.Channel()
			for {
				select {
				case <-bctx.Done():
					return
				case msg, ok := <-ch:
					if !ok {
						return
					}
					err := t.obs.get(bMaster).Publish(bctx, "__sentinel__:hello", msg.Payload).Err()
					mu.Lock()
					if err == nil {
						copied++
					} else {
						copyErrs++
					}
					mu.Unlock()
				}
			}
		}()
	}
	defer func() {
		stop()
		wg.Wait()
		mu.Lock()
		e.Set("e5_hellos_copied", float64(copied))
		e.Set("e5_hello_copy_errors", float64(copyErrs))
		e.Set("e5_hellos_copied_ok", boolf(copied > 0))
		mu.Unlock()
	}()
	// 3. Let hellos flow (several hello periods), kill A's master, and
	// watch B's sentinels until A has converged and a while after.
	foreign, cross := 0, 0
	aNodes := map[string]bool{}
	for _, h := range t.RedisHosts {
		aNodes[t.RedisAddr(h)] = true
	}
	watch := func(d time.Duration) error {
		deadline := time.Now().Add(d)
		for time.Now().Before(deadline) {
			for _, h := range t.SentinelHosts {
				v, err := e5ViewOf(ctx, t, h)
				if err != nil {
					continue
				}
				if n := v.otherSentinels - (len(t.SentinelHosts) - 1); n > foreign {
					foreign = n
					e.Note("group B sentinel %s knows %d other sentinels (%d of group A)", h, v.otherSentinels, n)
				}
				if aNodes[v.master] && cross == 0 {
					e.Note("group B sentinel %s names %s (a node of group A) as mym's master", h, v.master)
				}
				if aNodes[v.master] {
					cross = max(cross, 1)
				}
			}
			if err := e.Sleep(ctx, 250*time.Millisecond); err != nil {
				return err
			}
		}
		return nil
	}
	// The merge spreads back: sentinels send hellos to their peers too,
	// so A's sentinels learn B's once B's know A's.
	aForeign := func() {
		for _, h := range t.SentinelHosts {
			m, err := t.SentinelMaster(ctx, h)
			if err != nil {
				continue
			}
			n, _ := strconv.Atoi(m["num-other-sentinels"])
			if k := float64(n - (len(t.SentinelHosts) - 1)); k > 0 {
				if v, _ := e.Get("e5_a_foreign_sentinels"); k > v {
					e.Set("e5_a_foreign_sentinels", k)
				}
			}
		}
	}
	e.Set("e5_a_foreign_sentinels", 0)
	if err := watch(8 * time.Second); err != nil {
		return err
	}
	aForeign()
	e.Set("e5_foreign_sentinels", float64(foreign))
	// A merged group may not fail over at all (twice the voters): the
	// figures of B are taken whatever happens to A.
	_, killErr := killMaster(ctx, e, masterHost)
	e.Heal()
	if err := watch(10 * time.Second); err != nil {
		return err
	}
	aForeign()
	crossN := 0
	for _, h := range t.SentinelHosts {
		if v, err := e5ViewOf(ctx, t, h); err == nil && aNodes[v.master] {
			crossN++
		}
	}
	e.Set("e5_foreign_sentinels", float64(foreign))
	e.Set("e5_cross_switch", float64(max(cross, crossN)))
	e.Set("e5_cross_switch_at_end", float64(crossN))
	return killErr
}
