// Package faultlab_test runs the fault lab's smoke set (A1, A3, C1, C3, D1,
// E2; docs/faultlab.md) once each against redis-sentinel and gosentinel,
// on hosts that are Linux network namespaces. It needs root: without it
// the test fails with netlab.ErrNotRoot's message (it never skips
// silently); `go test -short` skips it.
package faultlab_test

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/faultlab"
	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
)

func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("the fault lab starts real processes in network namespaces; not in -short")
	}
	redis.SetLogger(quietLogger{}) // the writers' failed dials during partitions are recorded anyway
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := os.Getenv("FAULTLAB_OUT") // keep the JSON results when set
	if out == "" {
		out = t.TempDir()
	}
	// KeepAll: every run's directory survives the run (checked below,
	// then removed), so `sentinelctl lab --keep-all` is exercised too.
	sum, err := faultlab.Run(ctx, faultlab.Options{Smoke: true, Kinds: []faultlab.Kind{faultlab.KindRedis, faultlab.KindGosentinel},
		Out: out, Progress: testWriter{t}, KeepAll: true})
	if errors.Is(err, netlab.ErrNotRoot) {
		t.Fatalf("%v: run the fault lab as root (make test does in CI)", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * len(faultlab.SmokeIDs()); sum.Runs != want {
		t.Fatalf("%d runs, want %d", sum.Runs, want)
	}
	for _, r := range sum.Results {
		if r.LabDir == "" {
			t.Errorf("%s/%s run %d: no lab directory kept with KeepAll", r.Scenario, r.Kind, r.Run)
			continue
		}
		t.Cleanup(func() { os.RemoveAll(filepath.Dir(r.LabDir)) })
		if _, err := os.Stat(filepath.Join(r.LabDir, "checker-input.json")); err != nil && r.Error == "" {
			t.Errorf("%s/%s run %d: kept directory lacks the checker input: %v", r.Scenario, r.Kind, r.Run, err)
		}
	}
	for _, r := range faultlab.Regressions(sum.Results) {
		t.Error(r)
	}
}

// testWriter sends the runner's progress lines to t.Log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

// quietLogger drops go-redis's internal log lines.
type quietLogger struct{}

// Printf discards the line.
func (quietLogger) Printf(context.Context, string, ...any) {}
