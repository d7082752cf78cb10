package main

import (
	"fmt"
	"os"
	"sync"
)

// logFile writes each log line by opening the file in append mode,
// writing and closing it, like redis-server's serverLog: an external log
// rotation (mv + new file) needs no signal, the next line creates the new
// file.
//
// Within one step of the runtime's loop (runtime.Options.StepLog: Hold
// before the step, Release after it) the lines are kept in a buffer and
// written by Flush, which the runtime calls before anything the step does
// that a client can see (its Publish of the step's events, a reply, a
// script, an exit) and at the end of the step: a SENTINEL RESET * of
// hundreds of masters, which logs hundreds of lines in one step, opens
// the file once and writes it once instead of once a line
// (docs/security.md, "Latency under these loads"). A subscriber still
// never sees an event before its log line is in the file (the runtime
// publishes the step's events after Flush); a line logged by another
// goroutine during a step is written with the step's lines; a rotation
// during a step takes effect at the next step.
type logFile struct {
	mu     sync.Mutex
	path   string
	held   bool     // between Hold and Release
	buf    []byte   // lines held since the last Flush
	f      *os.File // open while held, after the first Flush
	opens  int      // open(2) calls for lines (tests)
	writes int      // write(2) calls for lines (tests)
}

// maxHeldLog bounds the held buffer: a step that logs more is written in
// pieces of about this size.
const maxHeldLog = 256 << 10

// openLogFile checks that path can be opened for appending and returns a
// writer for it.
func openLogFile(path string) (*logFile, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("close %s: %w", path, err)
	}
	return &logFile{path: path}, nil
}

// Write appends p to the file as one write(2), or to the held buffer
// between Hold and Release.
func (l *logFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held {
		l.buf = append(l.buf, p...)
		if len(l.buf) >= maxHeldLog {
			if err := l.flushLocked(); err != nil {
				return 0, err
			}
		}
		return len(p), nil
	}
	return l.writeLocked(p)
}

// writeLocked writes p in one write(2), opening the file unless it is
// held open; l.mu is held.
func (l *logFile) writeLocked(p []byte) (int, error) {
	f := l.f
	if f == nil {
		var err error
		f, err = os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return 0, fmt.Errorf("open %s: %w", l.path, err)
		}
		l.opens++
		if l.held {
			l.f = f // closed by Release
		}
	}
	l.writes++
	n, werr := f.Write(p)
	var cerr error
	if l.f == nil {
		cerr = f.Close()
	}
	if werr != nil {
		return n, fmt.Errorf("write %s: %w", l.path, werr)
	}
	if cerr != nil {
		return n, fmt.Errorf("close %s: %w", l.path, cerr)
	}
	return n, nil
}

// flushLocked writes the held buffer; l.mu is held.
func (l *logFile) flushLocked() error {
	if len(l.buf) == 0 {
		return nil
	}
	_, err := l.writeLocked(l.buf)
	l.buf = l.buf[:0]
	if cap(l.buf) > maxHeldLog {
		l.buf = nil // a burst of long lines leaves no large buffer behind
	}
	return err
}

// Hold keeps the lines from now on until Flush or Release
// (runtime.StepLog).
func (l *logFile) Hold() {
	l.mu.Lock()
	l.held = true
	l.mu.Unlock()
}

// Flush writes the lines held since Hold or the last Flush in one
// write(2) (runtime.StepLog).
func (l *logFile) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.flushLocked() // as a line's write error: the logger ignores it
}

// Release writes the held lines and closes the file opened since Hold
// (runtime.StepLog).
func (l *logFile) Release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.flushLocked()
	l.held = false
	if l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}
