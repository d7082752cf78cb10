//go:build memprof

package main

// Memory sampling for docs/security.md ("Where the large load's memory
// goes"), only in builds with -tags memprof:
//
//	go build -tags memprof -o /tmp/gsprof ./cmd/gosentinel
//	GOSENTINEL_MEMPROF=/tmp/large scripts/client-rss.py /tmp/gsprof large
//
// Every 50 ms it appends a line to $GOSENTINEL_MEMPROF.ts: RSS, anonymous
// memory, the Go runtime's resident memory (runtime/metrics total minus
// released), the rest of the anonymous memory (output blocks mapped
// outside the heap, thread stacks), and the heap's classes. At each new
// RSS peak it writes the metrics and smaps_rollup to .peak and a heap
// profile to .heap.

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"time"
)

func init() {
	out := os.Getenv("GOSENTINEL_MEMPROF")
	if out == "" {
		return
	}
	runtime.MemProfileRate = 64 << 10
	go sampleMemory(out)
}

// sampleMemory runs the sampling loop described above.
func sampleMemory(out string) {
	var names []string
	for _, d := range metrics.All() {
		if strings.HasPrefix(d.Name, "/memory/classes/") || d.Name == "/gc/heap/goal:bytes" || d.Name == "/gc/cycles/total:gc-cycles" || d.Name == "/gc/heap/live:bytes" {
			names = append(names, d.Name)
		}
	}
	s := make([]metrics.Sample, len(names))
	idx := map[string]int{}
	for i, n := range names {
		s[i].Name = n
		idx[n] = i
	}
	g := func(n string) uint64 { return s[idx[n]].Value.Uint64() >> 10 }
	ts, err := os.Create(out + ".ts")
	if err != nil {
		return
	}
	t0 := time.Now()
	maxRSS := 0
	for {
		time.Sleep(50 * time.Millisecond)
		metrics.Read(s)
		sm, _ := os.ReadFile("/proc/self/smaps_rollup")
		var anon, rss int
		for _, l := range strings.Split(string(sm), "\n") {
			if v, ok := strings.CutPrefix(l, "Anonymous:"); ok {
				fmt.Sscanf(v, "%d", &anon)
			}
			if v, ok := strings.CutPrefix(l, "Rss:"); ok {
				fmt.Sscanf(v, "%d", &rss)
			}
		}
		goRes := g("/memory/classes/total:bytes") - g("/memory/classes/heap/released:bytes")
		fmt.Fprintf(ts, "%6d rss=%d anon=%d goRes=%d offheap~%d obj=%d unused=%d free=%d rel=%d stk=%d goal=%d live=%d gc=%d g=%d\n",
			time.Since(t0).Milliseconds(), rss, anon, goRes, anon-int(goRes), g("/memory/classes/heap/objects:bytes"),
			g("/memory/classes/heap/unused:bytes"), g("/memory/classes/heap/free:bytes"), g("/memory/classes/heap/released:bytes"),
			g("/memory/classes/heap/stacks:bytes"), g("/gc/heap/goal:bytes"), g("/gc/heap/live:bytes"), s[idx["/gc/cycles/total:gc-cycles"]].Value.Uint64(), runtime.NumGoroutine())
		if rss <= maxRSS {
			continue
		}
		maxRSS = rss
		var b strings.Builder
		for i := range s {
			fmt.Fprintf(&b, "%s=%d KiB\n", names[i], s[i].Value.Uint64()>>10)
		}
		_ = os.WriteFile(out+".peak", []byte(b.String()+string(sm)), 0o644)
		if f, err := os.Create(out + ".heap"); err == nil {
			_ = pprof.Lookup("heap").WriteTo(f, 0)
			_ = f.Close()
		}
	}
}
