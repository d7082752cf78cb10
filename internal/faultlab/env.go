package faultlab

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
	"github.com/gosentinel/gosentinel/internal/faultlab/workload"
)

// Env is what a scenario's schedule works with: the topology, the lab's
// fault injection, a seeded random source and the run's marks and figures.
type Env struct {
	Top  *Topology
	Lab  *netlab.Lab
	Rand *rand.Rand
	Kind Kind
	// Soak is Options.Soak: how long a soak scenario keeps its fault in
	// place (0: the scenario's default).
	Soak time.Duration

	mu          sync.Mutex
	faultAt     time.Time
	healAt      time.Time
	extra       map[string]float64
	notes       []string
	epochResets []string
	observed    []workload.Event
	heals       []func() error
}

// Fault marks the fault instant (the first call counts).
func (e *Env) Fault() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.faultAt.IsZero() {
		e.faultAt = time.Now()
	}
}

// Heal marks the instant the last fault was healed (the last call counts).
func (e *Env) Heal() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.healAt = time.Now()
}

// FaultAt returns the fault instant (zero before Fault).
func (e *Env) FaultAt() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.faultAt
}

// Set records a scenario-specific figure.
func (e *Env) Set(name string, v float64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.extra[name] = v
}

// Get returns a figure recorded with Set.
func (e *Env) Get(name string) (float64, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	v, ok := e.extra[name]
	return v, ok
}

// Note records a line of evidence for the run's report.
func (e *Env) Note(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.notes = append(e.notes, fmt.Sprintf(format, args...))
}

// EpochReset tells the checker that the sentinel on h was restarted on
// purpose from an old copy of its config (S3 allows one step back).
func (e *Env) EpochReset(h string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.epochResets = append(e.epochResets, "sentinel-"+h)
}

// Observed hands the checker events a schedule's own subscription received
// from a sentinel it then killed (see workload.Input.Observed): a
// SIGKILLed sentinel's last publish reaches its subscribers one connection
// at a time, so the recorder's copy can lack what the schedule acted on.
func (e *Env) Observed(evs ...workload.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.observed = append(e.observed, evs...)
}

func (e *Env) observedEvents() []workload.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]workload.Event(nil), e.observed...)
}

// Track keeps a heal function so the runner can undo the fault if the
// schedule returns early; it returns heal.
func (e *Env) Track(heal func() error) func() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.heals = append(e.heals, heal)
	return heal
}

// Sleep waits d (a step of the fault schedule) or until ctx ends.
func (e *Env) Sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// Jitter waits a seeded random time in [0, max): fault instants vary from
// run to run, reproducibly for a seed.
func (e *Env) Jitter(ctx context.Context, max time.Duration) error {
	return e.Sleep(ctx, time.Duration(e.Rand.Int64N(int64(max))))
}

// Master returns the host a majority of live sentinels names as master now
// ("" when none has a majority).
func (e *Env) Master(ctx context.Context) string {
	count := map[string]int{}
	n := 0
	for _, h := range e.Top.SentinelHosts {
		if !e.Top.live("sentinel-" + h) {
			continue
		}
		n++
		if m, err := e.Top.MasterHostBy(ctx, h); err == nil && m != "" {
			count[m]++
		}
	}
	for m, c := range count {
		if c*2 > n {
			return m
		}
	}
	return ""
}

// WaitSwitch waits until some live sentinel (any, when among is empty; else
// one of among) names another master than from; it returns that host.
func (e *Env) WaitSwitch(ctx context.Context, from string, timeout time.Duration, among ...string) (string, error) {
	if len(among) == 0 {
		among = e.Top.SentinelHosts
	}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for _, h := range among {
			if !e.Top.live("sentinel-" + h) {
				continue
			}
			if m, err := e.Top.MasterHostBy(ctx, h); err == nil && m != "" && m != from {
				return m, nil
			}
		}
		if err := e.Sleep(ctx, 20*time.Millisecond); err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("no sentinel switched away from %s within %v", from, timeout)
}

// WaitConverged waits for L1 (see Topology.WaitConverged).
func (e *Env) WaitConverged(ctx context.Context, timeout time.Duration) (string, error) {
	m, _, err := e.Top.WaitConverged(ctx, timeout)
	return m, err
}

// CopyFile copies a file (a sentinel config backup).
func CopyFile(dst, src string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		return fmt.Errorf("copy to %s: %w", dst, err)
	}
	return nil
}

func (e *Env) healAll() {
	e.mu.Lock()
	heals := e.heals
	e.heals = nil
	e.mu.Unlock()
	for _, h := range heals {
		_ = h()
	}
}
