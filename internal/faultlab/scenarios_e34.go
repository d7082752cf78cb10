package faultlab

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// e3Delay is E3's resolver delay per lookup.
const e3Delay = 2 * time.Second

// noTILT: no sentinel entered TILT during the run.
func noTILT() Criterion {
	return Criterion{Name: "0 TILT entries", Check: func(r *RunResult) (bool, string) {
		return r.Figures.TILTs == 0, fmt.Sprintf("TILT entries %d", r.Figures.TILTs)
	}}
}

// E4's NAT: host "nat" maps port 7000+k to redis on h<k> and 27000+k to
// its sentinel; every node announces its mapped address.
const (
	natHost          = "nat"
	natRedisBase     = 7000
	natSentinelBase  = 27000
	natCountedSource = "obs" // the sampler and the runner's checks dial real addresses
)

// e4Labs keeps each E4 lab's SYN counters and port maps, for the Post hook.
var e4Labs sync.Map // *netlab.Lab → *e4State

type e4State struct {
	counters map[string]*netlab.SYNCounter // by host
	maps     []*netlab.PortMap
}

func e4Prepare(ctx context.Context, t *Topology) error {
	if err := t.AddHost(natHost); err != nil {
		return err
	}
	nat := t.Host(natHost)
	st := &e4State{counters: map[string]*netlab.SYNCounter{}}
	hosts := append([]string{}, t.RedisHosts...)
	for _, h := range t.SentinelHosts {
		if !contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	for k, h := range hosts {
		for _, m := range []struct{ real, mapped int }{{RedisPort, natRedisBase + k + 1}, {SentinelPort, natSentinelBase + k + 1}} {
			pm, err := t.Lab.PortMap(nat, m.mapped, t.Host(h), m.real)
			if err != nil {
				return err
			}
			st.maps = append(st.maps, pm)
			t.Announce(h, m.real, nat.IP(), m.mapped)
		}
		c, err := t.Lab.CountSYN(t.Host(h), []int{RedisPort, SentinelPort}, []string{nat.IP(), t.Host(natCountedSource).IP()})
		if err != nil {
			return err
		}
		st.counters[h] = c
	}
	e4Labs.Store(t.Lab, st)
	return nil
}

func init() {
	register(&Scenario{
		ID: "E3", Title: "resolver delay 2 s per lookup", ExpectFailover: true,
		Setup: Setup{Hostnames: true, SeparateSentinels: true, Prepare: func(ctx context.Context, t *Topology) error {
			_, err := t.Lab.StartDNS(t.Host("obs"))
			return err
		}},
		Fault:    "resolve-hostnames/announce-hostnames yes, sentinels on s1..s3, names served by the lab's DNS server (no hosts-file entries); from steady state on, every answer to a sentinel host delayed 2 s; after 12 s (one INFO period and hellos) SIGKILL the master; the delay stays until L1",
		Expected: "detector unaffected: 0 TILT entries; RTO_switch within the A1 bound (7 s) + 2 s",
		Schedule: func(ctx context.Context, e *Env) error {
			d := e.Lab.DNS()
			if d == nil {
				return fmt.Errorf("no DNS server in the lab")
			}
			q0 := d.Delayed()
			// The sentinels' lookups only: redis-server resolves in its main
			// thread too, so delaying the redis hosts' lookups stalls the
			// replicas themselves (they reconnect to the dead master once a
			// second), which is not what E3 measures.
			d.SetDelay(e3Delay, e.Top.Hosts(e.Top.SentinelHosts...)...)
			e.Track(func() error { d.SetDelay(0); return nil })
			if err := e.Sleep(ctx, 12*time.Second); err != nil {
				return err
			}
			_, err := killMaster(ctx, e, "h1")
			if err == nil {
				_, err = e.WaitConverged(ctx, 30*time.Second)
			}
			e.Set("dns_queries_delayed", float64(d.Delayed()-q0))
			d.SetDelay(0)
			e.Heal()
			return err
		},
		Criteria: []Criterion{noTILT(), rtoSwitchWithin(9)},
	}, &Scenario{
		ID: "E4", Title: "all nodes behind NAT-like port-mapping proxies", ExpectFailover: true,
		Setup: Setup{Prepare: e4Prepare,
			RedisExtra: func(t *Topology, h string) string {
				ip, port, _ := strings.Cut(t.announcedAddr(h, RedisPort), ":")
				return fmt.Sprintf("replica-announce-ip %s\nreplica-announce-port %s\n", ip, port)
			},
			SentinelExtra: func(t *Topology, h string) string {
				ip, port, _ := strings.Cut(t.announcedAddr(h, SentinelPort), ":")
				return fmt.Sprintf("sentinel announce-ip %s\nsentinel announce-port %s\n", ip, port)
			}},
		Fault:    "host nat maps 7000+k → h<k>:6379 and 27000+k → h<k>:26379; redis replica-announce-ip/port, sentinel announce-ip/port and monitor/replicaof name the mapped addresses; clients get the mapped sentinel addresses; SIGKILL the master",
		Expected: "discovery via announced addresses only: no connection attempt to a real (non-announced) address, counted by an nftables SYN counter on every node from any source but nat and obs",
		Schedule: func(ctx context.Context, e *Env) error {
			_, err := killMaster(ctx, e, "h1")
			e.Heal()
			return err
		},
		Post: func(r *RunResult, in *workload.Input, top *Topology) {
			v, ok := e4Labs.LoadAndDelete(top.Lab)
			if !ok {
				r.Notes = append(r.Notes, "E4: no NAT state")
				return
			}
			st := v.(*e4State)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			total := int64(0)
			var hosts []string
			for h := range st.counters {
				hosts = append(hosts, h)
			}
			sort.Strings(hosts)
			for _, h := range hosts {
				c := st.counters[h]
				n, err := c.Packets(ctx)
				if err != nil {
					r.Notes = append(r.Notes, fmt.Sprintf("SYN counter on %s: %v", h, err))
					total = -1 << 20
					continue
				}
				total += n
				if n > 0 {
					srcs, _ := c.Sources(ctx)
					r.Notes = append(r.Notes, fmt.Sprintf("%d connection attempts to %s's real address, from (ip . port) %s", n, h, strings.Join(srcs, ", ")))
				}
			}
			conns := int64(0)
			for _, pm := range st.maps {
				conns += pm.Conns()
			}
			r.Extra["direct_connects"] = float64(total)
			r.Extra["nat_conns"] = float64(conns)
		},
		Criteria: []Criterion{extraEquals("direct_connects", 0, "no connection attempt to a non-announced address")},
	})
}
