package faultlab

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/config"
)

// setToggle is one SENTINEL SET parameter the B10 storm flips between two
// values, one connection per parameter (so its last acknowledged value is
// well defined).
type setToggle struct {
	param  string
	values [2]int64
	get    func(*config.Master) int64
}

var b10Toggles = []setToggle{
	{"down-after-milliseconds", [2]int64{2000, 2200}, func(m *config.Master) int64 { return m.DownAfterMillis }},
	{"quorum", [2]int64{2, 3}, func(m *config.Master) int64 { return int64(m.Quorum) }},
	{"failover-timeout", [2]int64{10000, 11000}, func(m *config.Master) int64 { return m.FailoverTimeoutMillis }},
	{"parallel-syncs", [2]int64{1, 2}, func(m *config.Master) int64 { return int64(m.ParallelSyncs) }},
}

// b10Driver is one connection of the storm: it sends SENTINEL SET param v
// alternately, at most rate per second, and keeps the last acknowledged
// value and the one in flight.
type b10Driver struct {
	t      setToggle
	c      *redis.Client
	rate   int
	mu     sync.Mutex
	acked  int64 // last value answered OK (-1: none)
	flight int64 // value sent, not answered yet (-1: none)
	oks    int
	errs   int
	paused bool
	idle   bool
}

func (d *b10Driver) run(ctx context.Context) {
	tick := time.NewTicker(time.Second / time.Duration(d.rate))
	defer tick.Stop()
	i := 0
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		d.mu.Lock()
		if d.paused {
			d.idle = true
			d.mu.Unlock()
			continue
		}
		v := d.t.values[i%2]
		d.flight = v
		d.idle = false
		d.mu.Unlock()
		err := d.c.Do(ctx, "SENTINEL", "SET", MasterName, d.t.param, strconv.FormatInt(v, 10)).Err()
		d.mu.Lock()
		d.flight = -1
		if err == nil {
			d.acked = v
			d.oks++
			i++
		} else {
			// The answer is lost or an error: the value may or may not be
			// applied; keep it as a candidate until the next try.
			d.flight = v
			d.errs++
		}
		d.mu.Unlock()
	}
}

// pause stops sending and waits until no request is outstanding.
func (d *b10Driver) pause(ctx context.Context) error {
	d.mu.Lock()
	d.paused, d.idle = true, false
	d.mu.Unlock()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		d.mu.Lock()
		idle := d.idle
		d.mu.Unlock()
		if idle {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return fmt.Errorf("SENTINEL SET driver %s did not go idle", d.t.param)
}

func (d *b10Driver) resume() {
	d.mu.Lock()
	d.paused = false
	d.mu.Unlock()
}

// b10Schedule: a failover first (so epochs are 1, not 0), then a storm of
// SENTINEL SET on the sentinel of h3 (4 connections × 250/s = 1 k/s) with
// b10Kills SIGKILLs of that sentinel at seeded random points. After each
// kill the file on disk must load, hold for every parameter the last
// acknowledged value or the one in flight, and not lose the epochs; then
// the sentinel restarts from it and the storm goes on.
const b10Kills = 5

func b10Schedule(ctx context.Context, e *Env) error {
	m1, err := killMaster(ctx, e, "h1")
	if err != nil {
		return err
	}
	_ = m1
	if err := restartAndConverge(ctx, e, "h1"); err != nil {
		return err
	}
	obs := e.Top.Host("obs")
	addr := e.Top.SentinelAddr("h3")
	var drivers []*b10Driver
	sctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		stop()
		wg.Wait()
		for _, d := range drivers {
			d.c.Close()
		}
	}()
	for _, t := range b10Toggles {
		c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, MaxRetries: -1, PoolSize: 1,
			DialTimeout: 300 * time.Millisecond, ReadTimeout: time.Second, WriteTimeout: time.Second,
			Dialer: func(ctx context.Context, network, a string) (net.Conn, error) {
				return obs.DialContext(ctx, network, a)
			}})
		d := &b10Driver{t: t, c: c, rate: 250, acked: -1, flight: -1}
		drivers = append(drivers, d)
		wg.Add(1)
		go func() { defer wg.Done(); d.run(sctx) }()
	}
	start := time.Now()
	unloadable, lost, regressed := 0, 0, 0
	for k := 0; k < b10Kills; k++ {
		if err := e.Sleep(ctx, 300*time.Millisecond+time.Duration(e.Rand.Int64N(int64(1700*time.Millisecond)))); err != nil {
			return err
		}
		before, err := e.Top.SentinelMaster(ctx, "h3")
		if err != nil {
			return fmt.Errorf("before kill %d: %w", k, err)
		}
		epochBefore, _ := strconv.ParseInt(before["config-epoch"], 10, 64)
		if err := e.Top.Kill("sentinel-h3"); err != nil {
			return err
		}
		for _, d := range drivers {
			if err := d.pause(ctx); err != nil {
				return err
			}
		}
		data, rerr := os.ReadFile(e.Top.SentinelConfPath("h3"))
		cfg, perr := config.Parse(bytes.NewReader(data), "sentinel-h3")
		switch {
		case rerr != nil || perr != nil:
			unloadable++
			e.Note("kill %d: config does not load: %v %v", k, rerr, perr)
		case len(cfg.Sentinel.Masters) != 1:
			unloadable++
			e.Note("kill %d: config has %d masters", k, len(cfg.Sentinel.Masters))
		default:
			m := cfg.Sentinel.Masters[0]
			if int64(m.ConfigEpoch) < epochBefore {
				regressed++
				e.Note("kill %d: config-epoch %d on disk, %d before the kill", k, m.ConfigEpoch, epochBefore)
			}
			for _, d := range drivers {
				d.mu.Lock()
				got, acked, flight := d.t.get(m), d.acked, d.flight
				d.mu.Unlock()
				if acked >= 0 && got != acked && got != flight {
					lost++
					e.Note("kill %d: %s is %d on disk; last acknowledged %d, in flight %d", k, d.t.param, got, acked, flight)
				}
			}
		}
		if err := e.Top.StartSentinel("h3"); err != nil {
			return err
		}
		// Up again (it loaded the file) before the storm goes on and the
		// next kill: a kill before it listens would test nothing.
		if err := b10WaitUp(ctx, e); err != nil {
			return err
		}
		for _, d := range drivers {
			d.resume()
		}
	}
	dur := time.Since(start).Seconds()
	oks, errs := 0, 0
	for _, d := range drivers {
		d.mu.Lock()
		oks += d.oks
		errs += d.errs
		d.mu.Unlock()
	}
	e.Set("sets_per_s", float64(int(float64(oks)/dur)))
	e.Set("set_errors", float64(errs))
	e.Set("unloadable_after_kill", float64(unloadable))
	e.Set("acked_set_lost", float64(lost))
	e.Set("config_epoch_regressed", float64(regressed))
	e.Heal()
	return nil
}

func init() {
	register(&Scenario{
		ID: "B10", Title: "crash during a SENTINEL SET storm", ExpectFailover: true, Settle: 40 * time.Second,
		Fault:    "one failover, then 1 k/s SENTINEL SET on the sentinel of h3 (4 connections toggling down-after-milliseconds, quorum, failover-timeout, parallel-syncs) and 5 SIGKILLs of it at seeded random points, each followed by a restart",
		Expected: "the config file always loads and holds every acknowledged SET; epochs never go back",
		Schedule: b10Schedule,
		Criteria: []Criterion{extraEquals("unloadable_after_kill", 0, "config loads after every kill"),
			extraEquals("acked_set_lost", 0, "no acknowledged SET lost"),
			extraEquals("config_epoch_regressed", 0, "config-epoch kept across restarts")},
	})
}

// b10WaitUp waits until the sentinel of h3 answers SENTINEL MASTER.
func b10WaitUp(ctx context.Context, e *Env) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, err := e.Top.SentinelMaster(ctx, "h3")
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sentinel of h3 not up 15 s after its restart: %w", err)
		}
		if err := e.Sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}
