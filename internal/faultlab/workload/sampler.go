package workload

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// SamplerConfig configures StartSampler.
type SamplerConfig struct {
	MasterName       string
	Redis, Sentinels []Target
	Dialer           Dialer        // nil: plain TCP
	Period           time.Duration // default 50 ms
	Password         string        // redis nodes
	SentinelPassword string        // sentinels ("" for none)
	// Timeout bounds dialling and each reply of one sample (default 200 ms),
	// so a hung node only delays its own samples: every target is sampled
	// by its own goroutine.
	Timeout time.Duration
}

// Sampler samples every target each Period and records every sentinel
// event, until Stop.
type Sampler struct {
	cfg    SamplerConfig
	start  time.Time
	cancel context.CancelFunc
	wg     sync.WaitGroup
	byAddr map[string]string // sentinel "ip:port" → target name

	mu      sync.Mutex
	samples []Sample
	events  []Event
	epoch   map[string]int64  // sentinel name → latest current epoch heard
	runids  map[string]string // sentinel runid → target name
	counts  map[string]int    // target → samples taken
	changed chan struct{}     // closed (and replaced) after every sample
	once    sync.Once
	out     struct {
		samples []Sample
		events  []Event
	}
}

// StartSampler starts one sampling goroutine per target, one event
// subscriber (PSUBSCRIBE *) per sentinel and one hello subscriber
// (__sentinel__:hello, for the sentinels' current epochs) per redis.
func StartSampler(ctx context.Context, cfg SamplerConfig) (*Sampler, error) {
	c := cfg
	c.Redis = append([]Target(nil), cfg.Redis...)
	c.Sentinels = append([]Target(nil), cfg.Sentinels...)
	if c.MasterName == "" || len(c.Redis)+len(c.Sentinels) == 0 {
		return nil, fmt.Errorf("%w: sampler needs MasterName and targets", ErrBadConfig)
	}
	if c.Period <= 0 {
		c.Period = 50 * time.Millisecond
	}
	if c.Timeout <= 0 {
		c.Timeout = 200 * time.Millisecond
	}
	c.Dialer = c.Dialer.orDefault()
	s := &Sampler{cfg: c, start: time.Now(), byAddr: map[string]string{}, counts: map[string]int{}, changed: make(chan struct{}), epoch: map[string]int64{}, runids: map[string]string{}}
	seen := map[string]bool{}
	for _, t := range append(append([]Target(nil), c.Redis...), c.Sentinels...) {
		if t.Name == "" || t.Addr == "" || seen[t.Name] {
			return nil, fmt.Errorf("%w: target %+v: empty or duplicate name/address", ErrBadConfig, t)
		}
		seen[t.Name] = true
	}
	for _, t := range c.Sentinels {
		s.byAddr[t.Addr] = t.Name
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	context.AfterFunc(ctx, cancel)
	for i := range c.Redis {
		c.Redis[i].Kind = KindRedis
	}
	for i := range c.Sentinels {
		c.Sentinels[i].Kind = KindSentinel
	}
	for _, t := range c.Redis {
		t := t
		s.wg.Add(2)
		go s.loop(sctx, t, s.sampleRedis)
		go s.subscribe(sctx, t, c.Password, []string{HelloChannel}, false)
	}
	for _, t := range c.Sentinels {
		t := t
		s.wg.Add(2)
		go s.loop(sctx, t, s.sampleSentinel)
		go s.subscribe(sctx, t, c.SentinelPassword, []string{"*"}, true)
	}
	return s, nil
}

// Stop ends sampling and returns the samples and events, each sorted by
// time. Calling it again returns the same data.
func (s *Sampler) Stop() ([]Sample, []Event) {
	s.once.Do(func() {
		s.cancel()
		s.wg.Wait()
		s.mu.Lock()
		defer s.mu.Unlock()
		s.out.samples = append([]Sample(nil), s.samples...)
		s.out.events = append([]Event(nil), s.events...)
		sort.SliceStable(s.out.samples, func(i, j int) bool { return s.out.samples[i].At.Before(s.out.samples[j].At) })
		sort.SliceStable(s.out.events, func(i, j int) bool { return s.out.events[i].At.Before(s.out.events[j].At) })
	})
	return s.out.samples, s.out.events
}

// WaitRounds blocks until every target has been sampled n more times
// (successfully or not) since the call, or ctx ends. A scenario uses it to
// record the cluster for a while after it converged.
func (s *Sampler) WaitRounds(ctx context.Context, n int) error {
	s.mu.Lock()
	start := make(map[string]int, len(s.counts))
	for k, v := range s.counts {
		start[k] = v
	}
	s.mu.Unlock()
	for {
		s.mu.Lock()
		done := true
		for _, t := range append(append([]Target(nil), s.cfg.Redis...), s.cfg.Sentinels...) {
			if s.counts[t.Name]-start[t.Name] < n {
				done = false
				break
			}
		}
		ch := s.changed
		s.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("workload: wait for %d sample rounds: %w", n, ctx.Err())
		case <-ch:
		}
	}
}

// client returns a single-connection go-redis client for one target with
// short timeouts and no retries.
func (s *Sampler) client(t Target, password string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr: t.Addr, Dialer: s.cfg.Dialer, Password: password, Protocol: 2,
		MaxRetries: -1, DialTimeout: s.cfg.Timeout, ReadTimeout: s.cfg.Timeout, WriteTimeout: s.cfg.Timeout,
		PoolSize: 1, MaxIdleConns: 1, ContextTimeoutEnabled: true, DisableIdentity: true,
	})
}

// loop samples target t once per Period tick (ticks are dropped while a
// sample is slow, so a hung node delays only its own samples).
func (s *Sampler) loop(ctx context.Context, t Target, sample func(context.Context, *redis.Client, Target, *Sample)) {
	defer s.wg.Done()
	pass := s.cfg.Password
	if t.Kind == KindSentinel {
		pass = s.cfg.SentinelPassword
	}
	c := s.client(t, pass)
	defer c.Close()
	tick := time.NewTicker(s.cfg.Period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case at := <-tick.C:
			smp := Sample{At: time.Now(), Round: int(at.Sub(s.start) / s.cfg.Period), Target: t.Name,
				Kind: t.Kind, Addr: t.Addr, ConfigEpoch: -1, LeaderEpoch: -1, CurrentEpoch: -1}
			sctx, cancel := context.WithTimeout(ctx, 2*s.cfg.Timeout)
			sample(sctx, c, t, &smp)
			smp.Done = time.Now()
			cancel()
			if ctx.Err() != nil {
				return // a sample cut by Stop says nothing about the node
			}
			s.mu.Lock()
			s.samples = append(s.samples, smp)
			s.counts[t.Name]++
			close(s.changed)
			s.changed = make(chan struct{})
			s.mu.Unlock()
		}
	}
}

// latestEpoch returns the latest current epoch heard from a sentinel (-1).
func (s *Sampler) latestEpoch(name string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.epoch[name]; ok {
		return e
	}
	return -1
}
