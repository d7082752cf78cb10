package faultlab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// obsClients are go-redis clients dialling from inside the observer host,
// one per address, for the runner's own checks (healthy, converged).
type obsClients struct {
	dial workload.Dialer // from the observer host (TLS with Setup.TLS)
	// redisPass and sentinelPass authenticate to redis and sentinel ports.
	redisPass, sentinelPass string
	mu                      sync.Mutex
	c                       map[string]*redis.Client
}

func newObsClients(dial workload.Dialer, redisPass, sentinelPass string) *obsClients {
	return &obsClients{dial: dial, redisPass: redisPass, sentinelPass: sentinelPass, c: map[string]*redis.Client{}}
}

func (o *obsClients) get(addr string) *redis.Client { return o.getTimeout(addr, 500*time.Millisecond) }

// configTimeout is the read timeout of commands that save the sentinel's
// config before they answer (SENTINEL SET, MONITOR…): redis-sentinel
// fsyncs inside the command and gosentinel holds the +OK until its save
// is on disk, and fsync on the loaded lab machine measured p90 632 ms,
// max 19.6 s. With the 500 ms of the checks, lab F6's control `SENTINEL
// SET … down-after-milliseconds` most likely timed out on one gosentinel
// in one run of the 13:39 make lab (control_set_ok = 2; not kept).
const configTimeout = 10 * time.Second

// getTimeout is get with another read timeout (a client of its own).
func (o *obsClients) getTimeout(addr string, timeout time.Duration) *redis.Client {
	key := addr
	if timeout != 500*time.Millisecond {
		key = timeout.String() + "|" + addr
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if c := o.c[key]; c != nil {
		return c
	}
	pass := o.redisPass
	if strings.HasSuffix(addr, fmt.Sprintf(":%d", SentinelPort)) {
		pass = o.sentinelPass
	}
	c := redis.NewClient(&redis.Options{Addr: addr, Password: pass, Protocol: 2, MaxRetries: -1, PoolSize: 1,
		DialTimeout: 500 * time.Millisecond, ReadTimeout: timeout, WriteTimeout: 500 * time.Millisecond,
		Dialer: func(ctx context.Context, network, a string) (net.Conn, error) {
			return o.dial(ctx, network, a)
		}})
	o.c[key] = c
	return c
}

func (o *obsClients) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range o.c {
		c.Close()
	}
	o.c = map[string]*redis.Client{}
}

func flat(v any) map[string]string {
	m := map[string]string{}
	switch x := v.(type) {
	case []any:
		for i := 0; i+1 < len(x); i += 2 {
			k, _ := x[i].(string)
			m[k] = fmt.Sprint(x[i+1])
		}
	case map[any]any:
		for k, val := range x {
			m[fmt.Sprint(k)] = fmt.Sprint(val)
		}
	}
	return m
}

// SentinelMaster is SENTINEL MASTER mym on the sentinel of host h.
func (t *Topology) SentinelMaster(ctx context.Context, h string) (map[string]string, error) {
	v, err := t.obs.get(t.SentinelAddr(h)).Do(ctx, "SENTINEL", "MASTER", MasterName).Result()
	if err != nil {
		return nil, err
	}
	return flat(v), nil
}

// SentinelReplicas is SENTINEL REPLICAS mym on the sentinel of host h.
func (t *Topology) SentinelReplicas(ctx context.Context, h string) ([]map[string]string, error) {
	v, err := t.obs.get(t.SentinelAddr(h)).Do(ctx, "SENTINEL", "REPLICAS", MasterName).Slice()
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for _, r := range v {
		out = append(out, flat(r))
	}
	return out, nil
}

// SentinelDo runs a command on the sentinel of host h.
// A command that saves the config waits up to configTimeout for its reply.
func (t *Topology) SentinelDo(ctx context.Context, h string, args ...any) (any, error) {
	c := t.obs.get(t.SentinelAddr(h))
	if savesConfig(args) {
		c = t.obs.getTimeout(t.SentinelAddr(h), configTimeout)
	}
	return c.Do(ctx, args...).Result()
}

// savesConfig reports a sentinel command that saves the config before it
// answers: SENTINEL SET/MONITOR/REMOVE/RESET/FLUSHCONFIG/CONFIG SET.
func savesConfig(args []any) bool {
	if len(args) < 2 {
		return false
	}
	cmd, _ := args[0].(string)
	sub, _ := args[1].(string)
	if !strings.EqualFold(cmd, "SENTINEL") {
		return false
	}
	switch strings.ToUpper(sub) {
	case "SET", "MONITOR", "REMOVE", "RESET", "FLUSHCONFIG", "CONFIG":
		return true
	}
	return false
}

// RedisDo runs a command on the redis of host h.
func (t *Topology) RedisDo(ctx context.Context, h string, args ...any) (any, error) {
	return t.obs.get(t.currentRedisAddr(h)).Do(ctx, args...).Result()
}

// MasterHostBy is the host the sentinel of h names as master.
func (t *Topology) MasterHostBy(ctx context.Context, h string) (string, error) {
	v, err := t.obs.get(t.SentinelAddr(h)).Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MasterName).StringSlice()
	if err != nil {
		return "", err
	}
	if len(v) != 2 {
		return "", fmt.Errorf("GET-MASTER-ADDR-BY-NAME: %v", v)
	}
	return t.HostOf(net.JoinHostPort(v[0], v[1])), nil
}

// Role is ROLE on the redis of host h: the role, and for a replica the
// host of its master and whether its link is connected.
func (t *Topology) Role(ctx context.Context, h string) (role, master string, connected bool, err error) {
	v, err := t.obs.get(t.currentRedisAddr(h)).Do(ctx, "ROLE").Slice()
	if err != nil {
		return "", "", false, err
	}
	if len(v) == 0 {
		return "", "", false, errors.New("empty ROLE reply")
	}
	role, _ = v[0].(string)
	if role == "slave" && len(v) >= 4 {
		mh, _ := v[1].(string)
		st, _ := v[3].(string)
		return role, t.HostOf(net.JoinHostPort(mh, fmt.Sprint(v[2]))), st == "connected", nil
	}
	return role, "", false, nil
}

// WaitHealthy waits until every live sentinel knows all the others and
// every replica (with its link up), names h1 as master without s_down, and
// every replica is connected to h1.
func (t *Topology) WaitHealthy(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var why error
	for {
		if why = t.healthy(ctx); why == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w after %v: %v", ErrNotHealthy, timeout, why)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitReplicasUp waits until every replica reports a connected link to
// the first redis host (the first half of healthy), polling every 50 ms.
func (t *Topology) waitReplicasUp(ctx context.Context, deadline time.Time) error {
	for {
		why := t.replicasUp(ctx)
		if why == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %v", ErrNotHealthy, why)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (t *Topology) replicasUp(ctx context.Context) error {
	master := t.RedisHosts[0]
	for _, h := range t.RedisHosts[1:] {
		role, m, up, err := t.Role(ctx, h)
		if err != nil || role != "slave" || m != master || !up {
			return fmt.Errorf("replica %s: %s of %s up=%v %v", h, role, m, up, err)
		}
	}
	return nil
}

func (t *Topology) healthy(ctx context.Context) error {
	if err := t.replicasUp(ctx); err != nil {
		return err
	}
	started := 0
	for _, h := range t.SentinelHosts {
		if t.Proc("sentinel-"+h) != nil {
			started++
		}
	}
	for _, h := range t.SentinelHosts {
		if t.Proc("sentinel-"+h) == nil {
			continue // a late sentinel (Setup.LateSentinels), not started yet
		}
		m, err := t.SentinelMaster(ctx, h)
		if err != nil {
			return fmt.Errorf("sentinel %s: %w", h, err)
		}
		if m["flags"] != "master" {
			return fmt.Errorf("sentinel %s: flags %s", h, m["flags"])
		}
		if m["num-other-sentinels"] != fmt.Sprint(started-1) {
			return fmt.Errorf("sentinel %s knows %s other sentinels", h, m["num-other-sentinels"])
		}
		reps, err := t.SentinelReplicas(ctx, h)
		if err != nil {
			return fmt.Errorf("sentinel %s: %w", h, err)
		}
		if len(reps) != len(t.RedisHosts)-1 {
			return fmt.Errorf("sentinel %s knows %d replicas", h, len(reps))
		}
		for _, r := range reps {
			if r["master-link-status"] != "ok" || r["flags"] != "slave" {
				return fmt.Errorf("sentinel %s: replica %s:%s flags %s link %s", h, r["ip"], r["port"], r["flags"], r["master-link-status"])
			}
		}
	}
	return nil
}

// Converged checks L1 now: every live sentinel names the same master, that
// redis reports role:master, and every other live redis is a connected
// replica of it. It returns the master's host, or why not.
func (t *Topology) Converged(ctx context.Context) (string, error) {
	master := ""
	for _, h := range t.SentinelHosts {
		if !t.live("sentinel-" + h) {
			continue
		}
		m, err := t.MasterHostBy(ctx, h)
		if err != nil {
			return "", fmt.Errorf("sentinel %s: %w", h, err)
		}
		if master == "" {
			master = m
		} else if m != master {
			return "", fmt.Errorf("sentinels disagree: %s vs %s", master, m)
		}
	}
	if master == "" {
		return "", errors.New("no live sentinel")
	}
	if !t.live("redis-" + master) {
		return "", fmt.Errorf("master %s is not running", master)
	}
	role, _, _, err := t.Role(ctx, master)
	if err != nil || role != "master" {
		return "", fmt.Errorf("master %s: role %s %v", master, role, err)
	}
	for _, h := range t.RedisHosts {
		if h == master || !t.live("redis-"+h) {
			continue
		}
		role, m, up, err := t.Role(ctx, h)
		if err != nil || role != "slave" || m != master || !up {
			return "", fmt.Errorf("redis %s: %s of %s up=%v %v", h, role, m, up, err)
		}
	}
	return master, nil
}

// WaitConverged polls Converged every 100 ms until it holds or timeout
// passes; it returns the master and when L1 first held.
func (t *Topology) WaitConverged(ctx context.Context, timeout time.Duration) (string, time.Time, error) {
	deadline := time.Now().Add(timeout)
	for {
		m, err := t.Converged(ctx)
		if err == nil {
			return m, time.Now(), nil
		}
		if time.Now().After(deadline) {
			return "", time.Time{}, fmt.Errorf("not converged after %v: %w", timeout, err)
		}
		select {
		case <-ctx.Done():
			return "", time.Time{}, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
