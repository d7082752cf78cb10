package sim

import (
	"runtime"
	"sync"
)

// RunMany simulates seeds start … start+n-1 on workers goroutines (one
// seed per goroutine at a time, each seed single-threaded and
// deterministic) and returns the results in seed order. workers ≤ 0 means
// one per CPU. cfg.Trace should be false (traces are large).
func RunMany(start uint64, n, workers int, cfg Config) []Result {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	out := make([]Result, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				out[k] = RunOptions(NewOptions(start+uint64(k)), cfg)
			}
		}()
	}
	for k := 0; k < n; k++ {
		next <- k
	}
	close(next)
	wg.Wait()
	return out
}

// FirstViolation runs seeds start … start+n-1 (workers in parallel) and
// returns the violating result with the lowest seed, if any. It stops
// handing out seeds once a violation is found.
func FirstViolation(start uint64, n, workers int, cfg Config) (Result, bool) {
	return FirstViolationFunc(start, n, workers, cfg, func(Result) bool { return true })
}

// FirstViolationFunc is FirstViolation counting only the violating
// results accept returns true for (e.g. not already seen on a baseline).
func FirstViolationFunc(start uint64, n, workers int, cfg Config, accept func(Result) bool) (Result, bool) {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	var (
		mu    sync.Mutex
		best  Result
		found bool
		wg    sync.WaitGroup
	)
	next := make(chan int)
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				r := RunOptions(NewOptions(start+uint64(k)), cfg)
				if len(r.Violations) == 0 || !accept(r) {
					continue
				}
				mu.Lock()
				if !found || r.Seed < best.Seed {
					best, found = r, true
				}
				mu.Unlock()
			}
		}()
	}
	for k := 0; k < n; k++ {
		mu.Lock()
		stop := found
		mu.Unlock()
		if stop {
			break
		}
		next <- k
	}
	close(next)
	wg.Wait()
	return best, found
}
