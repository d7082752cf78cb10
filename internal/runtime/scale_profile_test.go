package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestScaleProfile is a measuring aid, not a check: with
// GOSENTINEL_PROFILE=<dir> it runs one runtime monitoring
// GOSENTINEL_PROFILE_MASTERS (default 500) masters,
// GOSENTINEL_PROFILE_NAMES (default 10; 1 is one process per instance, as
// a real fleet) names per redis-server pair (master + replica, hz 1) like
// bench/cmd/scale, lets it settle for 15 s, then writes cpu.out
// (GOSENTINEL_PROFILE_WINDOW, default 10s), heap.out and a summary (heap
// in use, stacks, goroutines) to <dir>:
//
//	GOSENTINEL_PROFILE=/tmp/prof go test -run TestScaleProfile -v -timeout 5m ./internal/runtime
//	go tool pprof -sample_index=inuse_space -top /tmp/prof/heap.out
//	go tool pprof -sample_index=alloc_space -base /tmp/prof/heap-start.out -top /tmp/prof/heap.out
func TestScaleProfile(t *testing.T) {
	dir := os.Getenv("GOSENTINEL_PROFILE")
	if dir == "" {
		t.Skip("set GOSENTINEL_PROFILE=<dir> to profile a runtime at scale")
	}
	masters := 500
	if s := os.Getenv("GOSENTINEL_PROFILE_MASTERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 10 {
			t.Fatalf("GOSENTINEL_PROFILE_MASTERS=%q: want a number ≥ 10", s)
		}
		masters = n
	}
	names := 10 // master names per redis-server pair; 1: one process per instance
	if s := os.Getenv("GOSENTINEL_PROFILE_NAMES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || masters%n != 0 {
			t.Fatalf("GOSENTINEL_PROFILE_NAMES=%q: want a divisor of %d", s, masters)
		}
		names = n
	}
	window := 10 * time.Second
	if s := os.Getenv("GOSENTINEL_PROFILE_WINDOW"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			t.Fatalf("GOSENTINEL_PROFILE_WINDOW=%q: want a duration", s)
		}
		window = d
	}
	if s := os.Getenv("GOSENTINEL_PROFILE_RATE"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("GOSENTINEL_PROFILE_RATE=%q: want bytes per heap sample ≥ 1", s)
		}
		old := goruntime.MemProfileRate
		goruntime.MemProfileRate = n
		t.Cleanup(func() { goruntime.MemProfileRate = old })
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var conf strings.Builder
	conf.WriteString("bind 127.0.0.1\nport " + strconv.Itoa(testutil.FreePort(t)) + "\n")
	for p := 0; p < masters/names; p++ {
		m := testutil.StartRedis(t, "hz 1")
		testutil.StartRedis(t, "hz 1", "replicaof 127.0.0.1 "+strconv.Itoa(m.Port))
		for k := range names {
			fmt.Fprintf(&conf, "sentinel monitor m%d 127.0.0.1 %d 1\n", p*names+k, m.Port)
		}
	}
	runConfOpts(t, conf.String(), Options{})
	time.Sleep(15 * time.Second) // the settling window itself is the measurement
	var before goruntime.MemStats
	goruntime.ReadMemStats(&before)
	rssBefore := procRSS()
	// The heap profile's allocation counts are since the start: this one
	// is the base that leaves the window's (pprof -base heap-start.out).
	start, err := os.Create(filepath.Join(dir, "heap-start.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer start.Close()
	if err := pprof.WriteHeapProfile(start); err != nil {
		t.Fatal(err)
	}

	cpu, err := os.Create(filepath.Join(dir, "cpu.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	if err := pprof.StartCPUProfile(cpu); err != nil {
		t.Fatal(err)
	}
	time.Sleep(window)
	pprof.StopCPUProfile()

	var steady goruntime.MemStats
	goruntime.ReadMemStats(&steady)
	rssSteady := procRSS()
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	heap, err := os.Create(filepath.Join(dir, "heap.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer heap.Close()
	if err := pprof.WriteHeapProfile(heap); err != nil {
		t.Fatal(err)
	}
	gor, err := os.Create(filepath.Join(dir, "goroutines.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer gor.Close()
	if err := pprof.Lookup("goroutine").WriteTo(gor, 1); err != nil {
		t.Fatal(err)
	}
	mib := func(b uint64) float64 { return float64(b) / (1 << 20) }
	sum := fmt.Sprintf("masters %d: heap in use %.1f MiB, stacks %.1f MiB, sys %.1f MiB, goroutines %d, GCs %d\n",
		masters, mib(ms.HeapInuse), mib(ms.StackInuse), mib(ms.Sys),
		goruntime.NumGoroutine(), ms.NumGC)
	for _, r := range []struct {
		name string
		m    *goruntime.MemStats
		rss  uint64
	}{{"settled", &before, rssBefore}, {"after window", &steady, rssSteady}, {"after GC", &ms, procRSS()}} {
		sum += fmt.Sprintf("%s: RSS %.1f, HeapAlloc %.1f, HeapInuse %.1f, HeapIdle %.1f, HeapReleased %.1f, StackInuse %.1f, "+
			"MSpan+MCache %.1f, GCSys %.1f, OtherSys %.1f, Sys %.1f, NextGC %.1f MiB, GC CPU %.2f %%\n",
			r.name, mib(r.rss), mib(r.m.HeapAlloc), mib(r.m.HeapInuse), mib(r.m.HeapIdle), mib(r.m.HeapReleased),
			mib(r.m.StackInuse), mib(r.m.MSpanInuse+r.m.MCacheInuse), mib(r.m.GCSys), mib(r.m.OtherSys), mib(r.m.Sys),
			mib(r.m.NextGC), 100*r.m.GCCPUFraction)
	}
	// Each collection halves the stacks that use less than a quarter of
	// theirs: what is left after a few back to back is what the parked
	// goroutines need; the rest is grown by their work between two.
	sum += "stacks after more collections:"
	for range 3 {
		goruntime.GC()
		var m goruntime.MemStats
		goruntime.ReadMemStats(&m)
		sum += fmt.Sprintf(" %.1f", mib(m.StackInuse))
	}
	sum += " MiB\n"
	sum += fmt.Sprintf("window: allocated %.1f MiB in %v, %d GCs\n",
		mib(steady.TotalAlloc-before.TotalAlloc), window, steady.NumGC-before.NumGC)
	t.Log(sum)
	if err := os.WriteFile(filepath.Join(dir, "summary.txt"), []byte(sum), 0o644); err != nil {
		t.Fatal(err)
	}
}

// procRSS reads this process' resident set size from /proc (0 where there
// is no /proc).
func procRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
