package faultlab

import (
	"context"
	"sync"
	"testing"
)

// TestRunPoolSolo: up to parallel jobs run at once, and a solo job never
// overlaps another. Jobs 0 and 1 wait for each other, so the overlap that
// must happen does (no sleeps). (A job handed out after a solo one may
// start before it: the solo job then waits for it.)
func TestRunPoolSolo(t *testing.T) {
	solo := []bool{false, false, true, false, false, true, false}
	var mu sync.Mutex
	running, maxRunning := map[int]bool{}, 0
	var overlaps [][2]int
	// Jobs 0 and 1 must meet (2 workers).
	meet := map[int]chan struct{}{0: make(chan struct{})}
	partner := map[int]int{0: 1, 1: 0}
	runPool(context.Background(), 2, solo, func(i int) {
		mu.Lock()
		for j := range running {
			overlaps = append(overlaps, [2]int{i, j})
		}
		running[i] = true
		if len(running) > maxRunning {
			maxRunning = len(running)
		}
		mu.Unlock()
		if p, ok := partner[i]; ok {
			first := i
			if p < i {
				first = p
			}
			if i == first {
				<-meet[first] // the partner has started
			} else {
				close(meet[first])
			}
		}
		mu.Lock()
		delete(running, i)
		mu.Unlock()
	})
	if maxRunning != 2 {
		t.Errorf("at most %d jobs at once, want 2", maxRunning)
	}
	for _, o := range overlaps {
		if solo[o[0]] || solo[o[1]] {
			t.Errorf("solo job overlapped: %v", o)
		}
	}
}

// TestRunPoolCancel: no job starts after the context is done.
func TestRunPoolCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var n int
	runPool(ctx, 1, make([]bool, 5), func(i int) {
		n++
		if i == 1 {
			cancel()
		}
	})
	if n > 3 {
		t.Errorf("%d jobs ran, want at most 3 (one may be handed out as the context ends)", n)
	}
}
