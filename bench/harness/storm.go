package harness

import (
	"fmt"
	"sort"
	"sync"
	"time"
)

// StormResult is the outcome of a reconnect storm.
type StormResult struct {
	TotalMs float64 // from the release of all clients to the last answer
	P50Ms   float64 // per-connection latency: dial + ask + answer
	P99Ms   float64
	MaxMs   float64
	Errors  int // connections that failed or got a wrong answer
	// Overflows is the rise of the kernel's ListenOverflows counter during
	// the storm (-1 when unreadable): SYNs dropped because the sentinel's
	// accept queue was full, each costing the client a 1 s retransmit.
	Overflows int64
}

// Storm opens n fresh TCP connections to addr at once; each asks
// GET-MASTER-ADDR-BY-NAME name once, checks the answer is want and closes.
// It models every client of a deployment reconnecting after a failover.
func Storm(addr, name, want string, n int, timeout time.Duration) StormResult {
	lat := make([]float64, n)
	errs := make([]bool, n)
	release := make(chan struct{})
	var ready, done sync.WaitGroup
	ready.Add(n)
	done.Add(n)
	var t0 time.Time
	for i := 0; i < n; i++ {
		go func(i int) {
			defer done.Done()
			ready.Done()
			<-release
			start := time.Now()
			err := stormOne(addr, name, want, timeout)
			lat[i] = sinceMs(start, time.Now())
			errs[i] = err != nil
		}(i)
	}
	ready.Wait()
	ov0, ovErr := ListenOverflows()
	t0 = time.Now()
	close(release)
	done.Wait()
	total := sinceMs(t0, time.Now())
	r := StormResult{TotalMs: total, Overflows: -1}
	if ov1, err := ListenOverflows(); err == nil && ovErr == nil {
		r.Overflows = ov1 - ov0
	}
	ok := make([]float64, 0, n)
	for i := range lat {
		if errs[i] {
			r.Errors++
			continue
		}
		ok = append(ok, lat[i])
	}
	sort.Float64s(ok)
	r.P50Ms = Percentile(ok, 50)
	r.P99Ms = Percentile(ok, 99)
	r.MaxMs = Percentile(ok, 100)
	return r
}

func stormOne(addr, name, want string, timeout time.Duration) error {
	c, err := Dial(addr, timeout)
	if err != nil {
		return err
	}
	defer c.Close()
	v, err := c.Do(timeout, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name)
	if err != nil {
		return err
	}
	got, err := parseMasterAddr(v)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("storm: got %s, want %s", got, want)
	}
	return nil
}
