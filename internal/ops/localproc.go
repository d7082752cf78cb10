package ops

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrProcessExited is returned when a started process exits while it was
// expected to come up.
var ErrProcessExited = errors.New("process exited")

// localProc is a child process started by the demo, in its own process
// group so that it (and anything it forks) is killed as a whole.
type localProc struct {
	name string
	port int
	dir  string
	log  string // stdout+stderr file
	cmd  *exec.Cmd
	done chan struct{}
}

func (p *localProc) addr() string { return fmt.Sprintf("127.0.0.1:%d", p.port) }

// startProc starts bin with args in dir; stdout and stderr go to a file.
// The child gets SIGKILL if this process dies (Pdeathsig).
func startProc(name, bin string, args []string, dir string, port int) (*localProc, error) {
	log := filepath.Join(dir, name+".out")
	f, err := os.Create(log)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	defer f.Close()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s (%s): %w", name, bin, err)
	}
	p := &localProc{name: name, port: port, dir: dir, log: log, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	return p, nil
}

func (p *localProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill sends SIGKILL to the process group and waits for the process.
func (p *localProc) kill() {
	if !p.exited() {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		_ = p.cmd.Process.Kill()
	}
	<-p.done
}

// output returns the tail of the process's stdout/stderr, for messages.
func (p *localProc) output() string {
	b, _ := os.ReadFile(p.log)
	s := strings.TrimSpace(string(b))
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return s
}

// procSet tracks every process the demo started.
type procSet struct {
	mu    sync.Mutex
	procs []*localProc
}

func (s *procSet) add(p *localProc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.procs = append(s.procs, p)
}

// killAll kills every process, newest first.
func (s *procSet) killAll() {
	s.mu.Lock()
	procs := s.procs
	s.procs = nil
	s.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].kill()
	}
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// pollUntil calls cond every 20 ms until it returns nil, the process p (if
// not nil) exits, or the deadline passes. It is used where another process's
// state must be awaited and no event exists.
func pollUntil(ctx context.Context, timeout time.Duration, p *localProc, what string, cond func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return nil
		}
		if p != nil && p.exited() {
			return fmt.Errorf("%s: %s %w; its output:\n%s", what, p.name, ErrProcessExited, p.output())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not within %v: %w", what, timeout, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
