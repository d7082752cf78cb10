package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogFileHoldOpensOncePerStep: between Hold and Release (one step of
// the runtime's loop) the log file is opened once, however many lines the
// step logs, and each line is in the file as soon as Write returns; after
// Release a rotation (mv) takes effect at the next line, as in Redis.
func TestLogFileHoldOpensOncePerStep(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.log")
	l, err := openLogFile(path)
	if err != nil {
		t.Fatal(err)
	}
	l.Hold()
	for i := range 200 {
		if _, err := l.Write([]byte("+reset-master line\n")); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(string(b), "\n"); got != i+1 {
			t.Fatalf("after line %d the file has %d lines: a line must be written before Write returns", i+1, got)
		}
	}
	l.Release()
	if l.opens != 1 {
		t.Fatalf("200 lines in one step opened the log file %d times, want 1", l.opens)
	}
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Write([]byte("after rotation\n")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no new log file after rotation: %v", err)
	}
	if string(b) != "after rotation\n" {
		t.Fatalf("new log file holds %q", b)
	}
	if l.opens != 2 {
		t.Fatalf("opens = %d after a line outside a step, want 2", l.opens)
	}
}
