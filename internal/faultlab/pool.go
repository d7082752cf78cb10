package faultlab

import (
	"context"
	"sync"
)

// runPool calls do(i) for each job i in order, at most parallel at once,
// and stops handing out jobs once ctx is done. A job with solo[i] runs
// alone: it waits for the jobs in progress, and no other starts until it
// ends (it holds the lock for writing, the others for reading; a waiting
// writer blocks new readers).
func runPool(ctx context.Context, parallel int, solo []bool, do func(i int)) {
	if parallel < 1 {
		parallel = 1
	}
	ch := make(chan int)
	var wg sync.WaitGroup
	var lock sync.RWMutex
	for w := 0; w < parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ch {
				if solo[i] {
					lock.Lock()
					do(i)
					lock.Unlock()
				} else {
					lock.RLock()
					do(i)
					lock.RUnlock()
				}
			}
		}()
	}
	for i := range solo {
		if ctx.Err() != nil {
			break
		}
		ch <- i
	}
	close(ch)
	wg.Wait()
}
