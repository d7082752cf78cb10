//go:build cpuprof

package main

// CPU and scheduler profiling for the fault lab's mass failover (B9L,
// docs/core.md "Config rewrite of many masters"), only in builds with -tags cpuprof:
//
//	go build -tags cpuprof -o /tmp/gsprof ./cmd/gosentinel
//	GOSENTINEL_CPUPROF=/tmp/prof sentinelctl lab --scenario B9L --gosentinel-bin /tmp/gsprof ...
//
// Every 5 s window gets a CPU profile and an execution trace,
// $GOSENTINEL_CPUPROF/<pid>-<unix seconds>.cpu and .trace, so the window
// around a fault can be read with `go tool pprof` and `go tool trace`
// (the lab ends the sentinels with a signal; only the last window is lost).

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"time"
)

func init() {
	dir := os.Getenv("GOSENTINEL_CPUPROF")
	if dir == "" {
		return
	}
	go profileWindows(dir)
}

// profileWindows writes one CPU profile and one execution trace per 5 s.
func profileWindows(dir string) {
	for {
		base := filepath.Join(dir, fmt.Sprintf("%d-%d", os.Getpid(), time.Now().Unix()))
		cf, err1 := os.Create(base + ".cpu")
		tf, err2 := os.Create(base + ".trace")
		if err1 != nil || err2 != nil {
			return
		}
		_ = pprof.StartCPUProfile(cf)
		_ = trace.Start(tf)
		time.Sleep(5 * time.Second)
		trace.Stop()
		pprof.StopCPUProfile()
		cf.Close()
		tf.Close()
	}
}
