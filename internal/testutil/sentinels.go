package testutil

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Deployment is a topology plus real redis-sentinels monitoring it as "mym".
type Deployment struct {
	*Topology
	Sentinels []*Process
	Password  string // password of AuthUser on the data nodes ("" for none)
}

// AuthUser is the ACL user StartAuthTopology creates on every node.
const AuthUser = "ops"

// StartAuthTopology is StartTopology with ACLs: user AuthUser with password
// pass has every right (and is used for replication), while the default
// user, without password, may only PING. This isolates a test's data nodes
// from other sentinels on the machine: one that still monitors a dead master
// whose port the kernel hands to this test would otherwise demote the
// test's node with REPLICAOF (and wipe its data). PING stays open so that
// readiness probes work unchanged.
func StartAuthTopology(t TB, pass string, n int, replicaExtra ...[]string) *Topology {
	t.Helper()
	auth := []string{
		"user default on nopass -@all +ping",
		"user " + AuthUser + " on >" + pass + " ~* &* +@all",
		"masteruser " + AuthUser,
		"masterauth " + pass,
	}
	m := StartRedis(t, auth...)
	top := &Topology{Master: m}
	for i := 0; i < n; i++ {
		extra := append([]string{fmt.Sprintf("replicaof 127.0.0.1 %d", m.Port)}, auth...)
		if i < len(replicaExtra) {
			extra = append(extra, replicaExtra[i]...)
		}
		top.Replicas = append(top.Replicas, StartRedis(t, extra...))
	}
	for _, r := range top.Replicas {
		WaitFor(t, 10*time.Second, "replica "+r.Addr()+" linked", func() bool {
			c := redis.NewClient(&redis.Options{Addr: r.Addr(), Username: AuthUser, Password: pass, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second, PoolSize: 1})
			defer c.Close()
			info, err := c.Info(context.Background(), "replication").Result()
			return err == nil && strings.Contains(info, "master_link_status:up")
		})
	}
	return top
}

// SentinelAddrs returns the sentinels' addresses.
func (d *Deployment) SentinelAddrs() []string {
	var out []string
	for _, s := range d.Sentinels {
		out = append(out, s.Addr())
	}
	return out
}

// StartDeployment starts top's sentinels: n real redis-sentinels monitoring
// top.Master as "mym" with the given quorum and timers (and, when pass is
// not empty, auth-user AuthUser / auth-pass pass), their hello and INFO
// periods shortened with SENTINEL DEBUG (publish-period 200, info-period
// 300), and waits until every sentinel knows the n-1 others and all of
// top's replicas with their link up.
func StartDeployment(t TB, top *Topology, pass string, n, quorum, downAfterMs, failoverTimeoutMs int) *Deployment {
	t.Helper()
	d := &Deployment{Topology: top, Password: pass}
	conf := SentinelConf("mym", top.Master.Port, quorum, downAfterMs, failoverTimeoutMs)
	if pass != "" {
		conf += "sentinel auth-user mym " + AuthUser + "\nsentinel auth-pass mym " + pass + "\n"
	}
	ctx := context.Background()
	for i := 0; i < n; i++ {
		s := StartSentinel(t, conf)
		c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second, PoolSize: 1, Protocol: 2})
		err := c.Do(ctx, "SENTINEL", "DEBUG", "info-period", "300", "publish-period", "200").Err()
		c.Close()
		if err != nil {
			t.Fatalf("testutil: SENTINEL DEBUG on %s: %v", s.Addr(), err)
		}
		d.Sentinels = append(d.Sentinels, s)
	}
	WaitFor(t, 20*time.Second, "sentinels converged", func() bool { return d.converged(ctx) == nil })
	return d
}

func (d *Deployment) converged(ctx context.Context) error {
	for _, s := range d.Sentinels {
		c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second, PoolSize: 1, Protocol: 2})
		m, err := c.Do(ctx, "SENTINEL", "MASTER", "mym").Slice()
		reps, rerr := c.Do(ctx, "SENTINEL", "REPLICAS", "mym").Slice()
		c.Close()
		if err != nil || rerr != nil {
			return fmt.Errorf("%s: %v %v", s.Addr(), err, rerr)
		}
		if got := field(m, "num-other-sentinels"); got != fmt.Sprint(len(d.Sentinels)-1) {
			return fmt.Errorf("%s knows %s other sentinels", s.Addr(), got)
		}
		if len(reps) != len(d.Replicas) {
			return fmt.Errorf("%s knows %d replicas", s.Addr(), len(reps))
		}
		for _, r := range reps {
			rm, _ := r.([]any)
			if field(rm, "master-link-status") != "ok" {
				return fmt.Errorf("%s: replica link not ok yet", s.Addr())
			}
		}
	}
	return nil
}

// field reads a value from a flat RESP2 instance map.
func field(m []any, name string) string {
	for i := 0; i+1 < len(m); i += 2 {
		if k, _ := m[i].(string); k == name {
			v, _ := m[i+1].(string)
			return v
		}
	}
	return ""
}
