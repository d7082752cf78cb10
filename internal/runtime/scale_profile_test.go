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
// GOSENTINEL_PROFILE_MASTERS (default 500) masters, 10 names per
// redis-server pair (master + replica, hz 1) like bench/cmd/scale, lets it
// settle for 15 s, then writes cpu.out (10 s), heap.out and a summary
// (heap in use, stacks, goroutines) to <dir>:
//
//	GOSENTINEL_PROFILE=/tmp/prof go test -run TestScaleProfile -v -timeout 5m ./internal/runtime
//	go tool pprof -sample_index=inuse_space -top /tmp/prof/heap.out
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var conf strings.Builder
	conf.WriteString("bind 127.0.0.1\nport " + strconv.Itoa(testutil.FreePort(t)) + "\n")
	for p := 0; p < masters/10; p++ {
		m := testutil.StartRedis(t, "hz 1")
		testutil.StartRedis(t, "hz 1", "replicaof 127.0.0.1 "+strconv.Itoa(m.Port))
		for k := range 10 {
			fmt.Fprintf(&conf, "sentinel monitor m%d 127.0.0.1 %d 1\n", p*10+k, m.Port)
		}
	}
	runConfOpts(t, conf.String(), Options{})
	time.Sleep(15 * time.Second) // the settling window itself is the measurement

	cpu, err := os.Create(filepath.Join(dir, "cpu.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	if err := pprof.StartCPUProfile(cpu); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Second)
	pprof.StopCPUProfile()

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
	sum := fmt.Sprintf("masters %d: heap in use %.1f MiB, stacks %.1f MiB, sys %.1f MiB, goroutines %d, GCs %d\n",
		masters, float64(ms.HeapInuse)/(1<<20), float64(ms.StackInuse)/(1<<20), float64(ms.Sys)/(1<<20),
		goruntime.NumGoroutine(), ms.NumGC)
	t.Log(sum)
	if err := os.WriteFile(filepath.Join(dir, "summary.txt"), []byte(sum), 0o644); err != nil {
		t.Fatal(err)
	}
}
