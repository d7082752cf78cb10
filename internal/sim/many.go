package sim

import (
	"runtime"
	"sync"
)

// RunMany simulates seeds start … start+n-1 on workers goroutines (one
// seed per goroutine at a time, each seed single-threaded and
// deterministic) and returns the results in seed order. workers ≤ 0 means
// one per CPU.
func RunMany(start uint64, n, workers int) []Result {
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
				out[k] = Run(start+uint64(k), false)
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
