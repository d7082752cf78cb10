package workload

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"
)

// ResourceSample is one reading of a process's resources (R1).
type ResourceSample struct {
	At      time.Time
	Process string // the scenario's name for it
	PID     int
	RSSKB   int64 // VmRSS
	FDs     int   // open descriptors
	Threads int   // OS threads (a Go process's goroutines are not visible from outside)
}

// ReadResources reads /proc/<pid>/status (VmRSS, Threads) and counts
// /proc/<pid>/fd. Processes in other network namespaces share the PID
// namespace, so this works for every lab process.
func ReadResources(pid int) (ResourceSample, error) {
	s := ResourceSample{PID: pid, At: time.Now()}
	st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return s, fmt.Errorf("read resources of %d: %w", pid, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(st))
	for sc.Scan() {
		k, v, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		f := bytes.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(string(f[0]), 10, 64)
		switch string(k) {
		case "VmRSS":
			s.RSSKB = n
		case "Threads":
			s.Threads = int(n)
		}
	}
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		return s, fmt.Errorf("read descriptors of %d: %w", pid, err)
	}
	s.FDs = len(fds)
	return s, nil
}

// ResourceSampler reads the resources of a changing set of processes
// periodically.
type ResourceSampler struct {
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	out    []ResourceSample
}

// StartResourceSampler reads, every period (default 1 s), the resources of
// every process procs returns (name → PID; called each time, so restarts
// are followed). Processes that cannot be read (exited) are skipped.
func StartResourceSampler(ctx context.Context, period time.Duration, procs func() map[string]int) *ResourceSampler {
	if period <= 0 {
		period = time.Second
	}
	rctx, cancel := context.WithCancel(ctx)
	r := &ResourceSampler{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			for name, pid := range procs() {
				if s, err := ReadResources(pid); err == nil {
					s.Process = name
					r.mu.Lock()
					r.out = append(r.out, s)
					r.mu.Unlock()
				}
			}
			select {
			case <-rctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return r
}

// Stop ends sampling and returns the readings by time.
func (r *ResourceSampler) Stop() []ResourceSample {
	r.cancel()
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]ResourceSample(nil), r.out...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out
}
