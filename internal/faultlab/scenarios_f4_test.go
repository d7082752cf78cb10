package faultlab

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSoakGrowth(t *testing.T) {
	start := time.Unix(1000, 0)
	mk := func(f func(i int) float64) []procSample {
		var s []procSample
		for i := 0; i <= 150; i++ { // 5 min at 2 s
			s = append(s, procSample{at: start.Add(time.Duration(i) * 2 * time.Second), rssKiB: f(i), fds: 20 + i/50})
		}
		return s
	}
	// A leak of 1 KiB a sample (30 KiB/min) from a 10 MiB start.
	g, slope, fds, ok := soakGrowth(mk(func(i int) float64 { return 10240 + float64(i) }), start, 30*time.Second)
	if !ok {
		t.Fatal("not ok")
	}
	if g < 100 || g > 140 {
		t.Errorf("growth of a steady leak = %g KiB, want ≈ 120", g)
	}
	if math.Abs(slope-30) > 0.5 {
		t.Errorf("slope = %g KiB/min, want 30", slope)
	}
	if fds != 2 { // median of samples 15–29: 20; of 136–150: 22
		t.Errorf("fd growth = %d, want 2", fds)
	}
	// A garbage collector's sawtooth (±1 MiB every 20 samples) is flat.
	g, slope, _, _ = soakGrowth(mk(func(i int) float64 { return 10240 + float64(i%20)*50 }), start, 30*time.Second)
	if g > 600 || slope > 20 {
		t.Errorf("sawtooth: growth %g KiB, slope %g KiB/min: want flat", g, slope)
	}
	// The warm-up is left out: a jump in the first 30 s does not count.
	g, _, _, _ = soakGrowth(mk(func(i int) float64 {
		if i < 10 {
			return 5000
		}
		return 10240
	}), start, 30*time.Second)
	if g != 0 {
		t.Errorf("growth with a warm-up jump = %g, want 0", g)
	}
	if _, _, _, ok := soakGrowth(mk(func(int) float64 { return 1 })[:10], start, 30*time.Second); ok {
		t.Error("10 samples inside the warm-up: want not ok")
	}
}

func TestAbsBinary(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("gs", []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("plain", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := absBinary("gs")
	if err != nil || got != filepath.Join(dir, "gs") {
		t.Errorf("absBinary(gs) = %q, %v; want %q", got, err, filepath.Join(dir, "gs"))
	}
	for _, bad := range []string{"missing", "plain", "."} {
		if _, err := absBinary(bad); err == nil {
			t.Errorf("absBinary(%q): want an error", bad)
		}
	}
	if got, err := absBinary(""); got != "" || err != nil {
		t.Errorf("absBinary(\"\") = %q, %v", got, err)
	}
}
