package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestForceExitAfterStuckRun: a signal cancels the run and, when the run
// does not return (a core stuck in one step), exit is called after the
// grace period; a run that returns in time is not cut short.
func TestForceExitAfterStuckRun(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	runDone := make(chan struct{}) // never closed: the run is stuck
	cancelled, exited := make(chan struct{}), make(chan struct{})
	go forceExitAfter(sigs, runDone, func() { close(cancelled) }, 10*time.Millisecond, func() { close(exited) })
	sigs <- syscall.SIGTERM
	<-cancelled
	<-exited // the test binary's timeout fails a watchdog that never fires

	sigs2 := make(chan os.Signal, 1)
	runDone2 := make(chan struct{})
	var exit2 bool
	var mu sync.Mutex
	returned := make(chan struct{})
	go func() {
		forceExitAfter(sigs2, runDone2, func() { close(runDone2) }, time.Hour, func() { mu.Lock(); exit2 = true; mu.Unlock() })
		close(returned)
	}()
	sigs2 <- syscall.SIGTERM
	<-returned
	mu.Lock()
	defer mu.Unlock()
	if exit2 {
		t.Error("exit called although the run returned after cancel")
	}
}

// TestSIGTERMUnderLoad: SIGTERM stops the process within a second while 32
// clients keep the core busy (SENTINEL RESET, INFO, CONFIG GET *), for
// redis-sentinel and gosentinel alike; the log says why it stopped.
func TestSIGTERMUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	master := testutil.StartRedis(t)
	for _, b := range []string{testutil.Binary(t, "redis-sentinel"), bin} {
		t.Run(filepath.Base(b), func(t *testing.T) {
			s := startMonitoring(t, b, "mym", master)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range 32 {
				c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, Protocol: 2})
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer c.Close()
					for ctx.Err() == nil {
						if c.Do(ctx, "SENTINEL", "RESET", "*x*y*z*w*").Err() != nil ||
							c.Info(ctx).Err() != nil ||
							c.Do(ctx, "SENTINEL", "CONFIG", "GET", "*").Err() != nil {
							return
						}
					}
				}()
			}
			t.Cleanup(func() { cancel(); wg.Wait() })
			if err := testutil.Ping(s.Addr()); err != nil {
				t.Fatal(err)
			}
			termWithinSecond(t, s)
		})
	}
}

// TestSIGTERMStuckRun: the real binary whose run never returns after the
// stop (built with main.stuckRunForTest set, as if the core were stuck in
// one step) still exits within a second of SIGTERM, with status 0 and the
// forced-exit log line. Without the forced exit wired in main it would
// never exit; without the signal handler it would die of the signal
// without the log line.
func TestSIGTERMStuckRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts a binary")
	}
	stuck := filepath.Join(t.TempDir(), "gosentinel-stuck")
	build := exec.Command("go", "build", "-ldflags", "-X main.stuckRunForTest=1", "-o", stuck, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	master := testutil.StartRedis(t)
	s := startMonitoring(t, stuck, "mym", master)
	termWithinSecond(t, s)
	if code := s.ExitCode(); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	if log := s.Log(); !strings.Contains(log, "Orderly shutdown did not finish within") {
		t.Errorf("log has no forced-exit line:\n%s", log)
	}
}

// termWithinSecond sends SIGTERM to s and fails unless it exits within a
// second.
func termWithinSecond(t *testing.T, s *testutil.Process) {
	t.Helper()
	start := time.Now()
	if err := syscall.Kill(s.PID(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
		t.Logf("exited %v after SIGTERM", time.Since(start))
	case <-time.After(time.Second):
		t.Fatalf("still running 1 s after SIGTERM")
	}
}
