package harness

import (
	"errors"
	"os"
	"testing"
)

func TestEnvRun(t *testing.T) {
	sentinel := errors.New("fn error")
	tests := []struct {
		name    string
		fn      func(e *Env) error
		wantErr error
	}{
		{"ok", func(e *Env) error { return nil }, nil},
		{"error returned", func(e *Env) error { return sentinel }, sentinel},
		{"Fatalf aborts", func(e *Env) error {
			e.Fatalf("boom %d", 1)
			return errors.New("not reached")
		}, ErrAborted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewEnv(t.Logf)
			var order []int
			var dir string
			err := e.Run(func() error {
				dir = e.TempDir()
				e.Cleanup(func() { order = append(order, 1) })
				e.Cleanup(func() { order = append(order, 2) })
				return tt.fn(e)
			})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("Run = %v, want %v", err, tt.wantErr)
			}
			if len(order) != 2 || order[0] != 2 || order[1] != 1 {
				t.Errorf("cleanups ran as %v, want [2 1]", order)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("temp dir %s still exists: %v", dir, err)
			}
		})
	}
}

func TestEnvRunRepanics(t *testing.T) {
	e := NewEnv(nil)
	cleaned := false
	defer func() {
		if r := recover(); r != "other" {
			t.Errorf("recovered %v, want the original panic", r)
		}
		if !cleaned {
			t.Errorf("cleanup did not run before the panic propagated")
		}
	}()
	_ = e.Run(func() error {
		e.Cleanup(func() { cleaned = true })
		panic("other")
	})
}
