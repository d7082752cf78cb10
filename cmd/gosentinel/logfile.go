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
// before the step, Release after it) the file is opened at the first line
// and closed at Release, so a SENTINEL RESET * of hundreds of masters,
// which logs hundreds of lines in one step, opens the file once instead
// of once a line (docs/security.md, "Latency under these loads"). Each
// line is still one write(2), in the file before the runtime goes on (a
// subscriber never sees an event before its log line); a rotation during
// a step takes effect at the next step.
type logFile struct {
	mu    sync.Mutex
	path  string
	held  bool     // between Hold and Release
	f     *os.File // open while held, after the first line
	opens int      // open(2) calls for lines (tests)
}

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

// Write appends p to the file as one write(2).
func (l *logFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
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

// Hold keeps the file open from its next line until Release
// (runtime.StepLog).
func (l *logFile) Hold() {
	l.mu.Lock()
	l.held = true
	l.mu.Unlock()
}

// Release closes the file opened since Hold (runtime.StepLog).
func (l *logFile) Release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held = false
	if l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}
