package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogFileHoldWritesOncePerFlush: between Hold and Release (one step of
// the runtime's loop) the lines are held and written by Flush in one
// write(2), the file opened once for the step however many lines it logs;
// after Release a rotation (mv) takes effect at the next line, as in
// Redis, and a line outside a step is written at once.
func TestLogFileHoldWritesOncePerFlush(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.log")
	l, err := openLogFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := func() int {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(b), "\n")
	}
	l.Hold()
	for range 200 {
		if _, err := l.Write([]byte("+reset-master line\n")); err != nil {
			t.Fatal(err)
		}
	}
	if got := lines(); got != 0 {
		t.Fatalf("%d held lines in the file before Flush", got)
	}
	l.Flush()
	if got := lines(); got != 200 {
		t.Fatalf("after Flush the file has %d lines, want 200", got)
	}
	if _, err := l.Write([]byte("+reset-master line\n")); err != nil {
		t.Fatal(err)
	}
	l.Release()
	if got := lines(); got != 201 {
		t.Fatalf("after Release the file has %d lines, want 201", got)
	}
	if l.opens != 1 || l.writes != 2 {
		t.Fatalf("201 lines in one step with one Flush: %d opens and %d writes, want 1 and 2", l.opens, l.writes)
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
