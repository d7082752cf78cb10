package workload

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ProbeKey is the key of the sampler's probe write on nodes reporting
// master. It is not a log:* list, so the probe cannot create phantom ids.
const ProbeKey = "lab:probe"

// sampleRedis pipelines ROLE and the probe SET (a replica refuses the SET
// with READONLY; the pair is one round trip and one consistent view).
func (s *Sampler) sampleRedis(ctx context.Context, c *redis.Client, _ Target, smp *Sample) {
	var role *redis.Cmd
	var probe *redis.StatusCmd
	_, _ = c.Pipelined(ctx, func(p redis.Pipeliner) error {
		role = p.Do(ctx, "ROLE")
		probe = p.Set(ctx, ProbeKey, smp.At.UnixNano(), 0)
		return nil
	})
	v, err := role.Slice()
	if err != nil {
		smp.Role, smp.Err = "?", err.Error()
		return
	}
	parseRole(v, smp)
	smp.AcceptsWrite = smp.Role == "master" && probe.Err() == nil
}

// parseRole reads a ROLE reply: ["master", offset, [...]] or
// ["slave", ip, port, state, offset].
func parseRole(v []any, smp *Sample) {
	if len(v) == 0 {
		smp.Role, smp.Err = "?", "empty ROLE reply"
		return
	}
	smp.Role, _ = v[0].(string)
	switch smp.Role {
	case "master":
		if len(v) > 1 {
			smp.Offset = toInt64(v[1])
		}
	case "slave":
		if len(v) >= 3 {
			ip, _ := v[1].(string)
			smp.MasterOf = net.JoinHostPort(ip, strconv.FormatInt(toInt64(v[2]), 10))
		}
		if len(v) >= 5 {
			smp.Offset = toInt64(v[4])
		}
	default:
		smp.Err = fmt.Sprintf("unexpected ROLE %q", smp.Role)
	}
}

func toInt64(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

// sampleSentinel pipelines GET-MASTER-ADDR-BY-NAME, SENTINEL MASTER and
// INFO sentinel (plus SENTINEL MYID until it is known, to name the senders
// of hellos).
func (s *Sampler) sampleSentinel(ctx context.Context, c *redis.Client, t Target, smp *Sample) {
	name := s.cfg.MasterName
	var before, addr, master, info, myid *redis.Cmd
	needID := !s.knowsRunID(t.Name)
	_, _ = c.Pipelined(ctx, func(p redis.Pipeliner) error {
		// SENTINEL MASTER brackets GET-MASTER-ADDR-BY-NAME: a sentinel may
		// process an event between two pipelined commands (gosentinel
		// does), and the (address, config-epoch) pair must be one view.
		before = p.Do(ctx, "SENTINEL", "MASTER", name)
		addr = p.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name)
		master = p.Do(ctx, "SENTINEL", "MASTER", name)
		info = p.Do(ctx, "INFO", "sentinel")
		if needID {
			myid = p.Do(ctx, "SENTINEL", "MYID")
		}
		return nil
	})
	smp.CurrentEpoch = s.latestEpoch(t.Name)
	if a, err := addr.StringSlice(); err != nil {
		smp.Err = "GET-MASTER-ADDR-BY-NAME: " + err.Error()
	} else if len(a) == 2 {
		smp.MasterAddr = net.JoinHostPort(a[0], a[1])
	}
	if m, err := master.Slice(); err == nil {
		f := flatMap(m)
		smp.ConfigEpoch = parseEpoch(f["config-epoch"])
		smp.LeaderEpoch = parseEpoch(f["leader-epoch"])
		smp.Flags = f["flags"]
		if b, err := before.Slice(); err != nil || parseEpoch(flatMap(b)["config-epoch"]) != smp.ConfigEpoch {
			smp.ConfigEpoch = -1
		}
	} else if smp.Err == "" {
		smp.Err = "SENTINEL MASTER: " + err.Error()
	}
	if text, err := info.Text(); err == nil {
		smp.TILT = strings.Contains(text, "sentinel_tilt:1")
	} else if smp.Err == "" {
		smp.Err = "INFO sentinel: " + err.Error()
	}
	if myid != nil {
		if id, err := myid.Text(); err == nil && id != "" {
			s.mu.Lock()
			s.runids[id] = t.Name
			s.mu.Unlock()
		}
	}
}

func (s *Sampler) knowsRunID(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range s.runids {
		if n == name {
			return true
		}
	}
	return false
}

func parseEpoch(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// flatMap turns a RESP2 flat [k1 v1 k2 v2 ...] reply into a map.
func flatMap(v []any) map[string]string {
	m := make(map[string]string, len(v)/2)
	for i := 0; i+1 < len(v); i += 2 {
		k, _ := v[i].(string)
		switch x := v[i+1].(type) {
		case string:
			m[k] = x
		case int64:
			m[k] = strconv.FormatInt(x, 10)
		}
	}
	return m
}
