package harness

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// Env implements testutil.TB for code that runs outside `go test`: Fatalf
// aborts the current Run with an error instead of failing a test, and the
// cleanups registered during a Run are executed when it returns.
type Env struct {
	mu       sync.Mutex
	cleanups []func()
	dir      string
	logf     func(format string, args ...any)
}

var _ testutil.TB = (*Env)(nil)

// ErrAborted wraps every error produced by Env.Fatalf, so that callers can
// tell a failed measurement from other errors with errors.Is.
var ErrAborted = errors.New("measurement aborted")

// fatal is the panic value Env.Fatalf unwinds with; Run recovers only it.
type fatal struct{ msg string }

// NewEnv returns an Env whose temporary files live under a fresh directory
// and whose Logf writes through logf (nil discards the log).
func NewEnv(logf func(format string, args ...any)) *Env {
	return &Env{logf: logf}
}

// Run calls fn, then runs every cleanup fn registered (last first). A Fatalf
// inside fn stops fn and is returned as an error wrapping ErrAborted.
func (e *Env) Run(fn func() error) (err error) {
	defer func() {
		e.runCleanups()
		if r := recover(); r != nil {
			f, ok := r.(fatal)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("%w: %s", ErrAborted, f.msg)
		}
	}()
	return fn()
}

func (e *Env) runCleanups() {
	e.mu.Lock()
	cs := e.cleanups
	e.cleanups = nil
	dir := e.dir
	e.dir = ""
	e.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i]()
	}
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
}

// Helper is a no-op (there is no test call stack to trim).
func (e *Env) Helper() {}

// Fatalf aborts the current Run. It must be called from the goroutine that
// called Run, like testing.T.Fatalf.
func (e *Env) Fatalf(format string, args ...any) {
	panic(fatal{msg: fmt.Sprintf(format, args...)})
}

// Logf logs through the function given to NewEnv.
func (e *Env) Logf(format string, args ...any) {
	if e.logf != nil {
		e.logf(format, args...)
	}
}

// Cleanup registers fn to run when the current Run returns.
func (e *Env) Cleanup(fn func()) {
	e.mu.Lock()
	e.cleanups = append(e.cleanups, fn)
	e.mu.Unlock()
}

// TempDir returns a directory removed when the current Run returns.
// Callers create unique subdirectories in it (as testutil does).
func (e *Env) TempDir() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dir == "" {
		d, err := os.MkdirTemp("", "gosentinel-bench-")
		if err != nil {
			panic(fatal{msg: fmt.Sprintf("harness: temp dir: %v", err)})
		}
		e.dir = d
	}
	return e.dir
}
