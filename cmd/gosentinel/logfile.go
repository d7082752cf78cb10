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
type logFile struct {
	mu   sync.Mutex
	path string
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
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return 0, fmt.Errorf("open %s: %w", l.path, err)
	}
	n, werr := f.Write(p)
	cerr := f.Close()
	if werr != nil {
		return n, fmt.Errorf("write %s: %w", l.path, werr)
	}
	if cerr != nil {
		return n, fmt.Errorf("close %s: %w", l.path, cerr)
	}
	return n, nil
}
