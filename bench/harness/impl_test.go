package harness

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSmoke checks that only a binary behaving like a sentinel passes.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real redis-server processes")
	}
	for _, b := range []string{"redis-server", "redis-sentinel"} {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s not installed", b)
		}
	}
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	real, _ := exec.LookPath("redis-sentinel")
	tests := []struct {
		name string
		bin  string
		ok   bool
	}{
		{"real redis-sentinel", real, true},
		{"missing binary", filepath.Join(dir, "nope"), false},
		{"exits at once", script("exits", "exit 0"), false},
		// Answers PING (it is a redis-server) but not SENTINEL MASTER.
		{"plain redis-server", script("plain", `port=$(awk '/^port/{print $2}' "$1"); exec redis-server --port "$port" --bind 127.0.0.1 --save ''`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Smoke(tt.bin)
			if tt.ok && err != nil {
				t.Fatalf("Smoke(%s) = %v, want nil", tt.bin, err)
			}
			if !tt.ok && !errors.Is(err, ErrNotAvailable) {
				t.Fatalf("Smoke(%s) = %v, want ErrNotAvailable", tt.bin, err)
			}
		})
	}
}

func TestRealSentinelMissing(t *testing.T) {
	im := RealSentinel(filepath.Join(t.TempDir(), "no-such-sentinel"))
	if im.Available() || im.Unavailable == "" {
		t.Errorf("RealSentinel of a missing binary = %+v, want unavailable with a reason", im)
	}
}

// TestBuildOursOutsideModule checks that a failed build is reported as
// ErrNotAvailable with the go tool's first line, not as a crash.
func TestBuildOursOutsideModule(t *testing.T) {
	_, err := BuildOurs(t.Context(), t.TempDir(), t.TempDir())
	if !errors.Is(err, ErrNotAvailable) || !strings.Contains(err.Error(), "go build ./cmd/gosentinel failed: ") {
		t.Fatalf("err = %v, want ErrNotAvailable with the build's first line", err)
	}
}
