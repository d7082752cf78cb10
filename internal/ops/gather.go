package ops

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// SentinelView is what one sentinel answered about the masters it monitors.
type SentinelView struct {
	Addr    string       `json:"addr"`              // address we asked
	MyID    string       `json:"myid,omitempty"`    // SENTINEL MYID
	Error   string       `json:"error,omitempty"`   // set when the sentinel could not be asked
	Masters []MasterView `json:"masters,omitempty"` // one per monitored master (or the one asked for)
}

// MasterView is one sentinel's view of one master.
type MasterView struct {
	Name       string              `json:"name"`
	Master     map[string]string   `json:"master"`            // SENTINEL MASTER map
	Replicas   []map[string]string `json:"replicas"`          // SENTINEL REPLICAS maps
	Sentinels  []map[string]string `json:"sentinels"`         // SENTINEL SENTINELS maps (the others)
	CKQuorum   string              `json:"ckquorum"`          // CKQUORUM reply or error text
	CKQuorumOK bool                `json:"ckquorum_ok"`       // CKQUORUM answered +OK
	Error      string              `json:"error,omitempty"`   // set when this master could not be read
	Unknown    bool                `json:"unknown,omitempty"` // the sentinel does not monitor this name
	AddrByName string              `json:"addr_by_name"`      // GET-MASTER-ADDR-BY-NAME as ip:port
}

// Gather asks every sentinel in o for its view of master name (all masters
// when name is empty), concurrently. A sentinel that cannot be reached gets a
// view with Error set; Gather itself only fails when no sentinel is given.
func Gather(ctx context.Context, o *ConnOptions, name string) ([]SentinelView, error) {
	addrs, err := o.sentinels()
	if err != nil {
		return nil, err
	}
	views := make([]SentinelView, len(addrs))
	var wg sync.WaitGroup
	for i, a := range addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			views[i] = gatherOne(ctx, o, a, name)
		}()
	}
	wg.Wait()
	return views, nil
}

func gatherOne(ctx context.Context, o *ConnOptions, addr, name string) SentinelView {
	v := SentinelView{Addr: addr}
	c, err := o.SentinelClient(addr)
	if err != nil {
		v.Error = err.Error()
		return v
	}
	defer c.Close()
	if id, err := c.Do(ctx, "SENTINEL", "MYID").Text(); err == nil {
		v.MyID = id
	} else if isConnErr(err) {
		v.Error = fmt.Sprintf("sentinel %s: %v", addr, err)
		return v
	}
	var names []string
	if name != "" {
		names = []string{name}
	} else {
		raw, err := c.Do(ctx, "SENTINEL", "MASTERS").Result()
		if err != nil {
			v.Error = fmt.Sprintf("sentinel %s: SENTINEL MASTERS: %v", addr, err)
			return v
		}
		ms, err := replyMaps(raw)
		if err != nil {
			v.Error = fmt.Sprintf("sentinel %s: SENTINEL MASTERS: %v", addr, err)
			return v
		}
		for _, m := range ms {
			names = append(names, m["name"])
		}
		sort.Strings(names)
	}
	for _, n := range names {
		v.Masters = append(v.Masters, gatherMaster(ctx, c, n))
	}
	return v
}

func gatherMaster(ctx context.Context, c *redis.Client, name string) MasterView {
	mv := MasterView{Name: name}
	raw, err := c.Do(ctx, "SENTINEL", "MASTER", name).Result()
	if err != nil {
		if strings.Contains(err.Error(), "No such master") {
			mv.Unknown = true
		}
		mv.Error = fmt.Sprintf("SENTINEL MASTER %s: %v", name, err)
		return mv
	}
	if mv.Master, err = replyMap(raw); err != nil {
		mv.Error = fmt.Sprintf("SENTINEL MASTER %s: %v", name, err)
		return mv
	}
	if raw, err = c.Do(ctx, "SENTINEL", "REPLICAS", name).Result(); err == nil {
		mv.Replicas, err = replyMaps(raw)
	}
	if err != nil {
		mv.Error = fmt.Sprintf("SENTINEL REPLICAS %s: %v", name, err)
	}
	if raw, err = c.Do(ctx, "SENTINEL", "SENTINELS", name).Result(); err == nil {
		mv.Sentinels, err = replyMaps(raw)
	}
	if err != nil && mv.Error == "" {
		mv.Error = fmt.Sprintf("SENTINEL SENTINELS %s: %v", name, err)
	}
	if s, err := c.Do(ctx, "SENTINEL", "CKQUORUM", name).Text(); err == nil {
		mv.CKQuorum, mv.CKQuorumOK = s, true
	} else {
		mv.CKQuorum = err.Error()
	}
	if a, err := c.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name).StringSlice(); err == nil && len(a) == 2 {
		mv.AddrByName = net.JoinHostPort(a[0], a[1])
	}
	if mv.Replicas == nil {
		mv.Replicas = []map[string]string{}
	}
	if mv.Sentinels == nil {
		mv.Sentinels = []map[string]string{}
	}
	return mv
}

// isConnErr reports whether err is a transport failure rather than a Redis
// error reply.
func isConnErr(err error) bool {
	if err == nil {
		return false
	}
	var re redis.Error
	if ok := asRedisError(err, &re); ok {
		return false
	}
	return true
}
