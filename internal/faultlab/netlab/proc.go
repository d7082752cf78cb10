package netlab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ProcSpec describes a process to start on a host.
type ProcSpec struct {
	// Name labels the process in logs and names its default output files.
	Name string
	// Argv is the program and its arguments (looked up in PATH).
	Argv []string
	// Dir is the working directory; "" = <lab dir>/<host>/<Name>, created.
	Dir string
	// Env is added to the test process's environment.
	Env []string
	// Stdout, Stderr are file paths; "" = Dir/<Name>.out and Dir/<Name>.err.
	Stdout, Stderr string
	// TmpfsDirs are mounted as a small tmpfs (TmpfsSize) in the process's
	// private mount namespace before exec; FillDisk works on them.
	TmpfsDirs []string
	// TmpfsSize is the tmpfs size ("1m" when empty).
	TmpfsSize string
	// BindSelf are bind-mounted onto themselves in the process's mount
	// namespace, so SetReadOnly can remount them read-only.
	BindSelf []string
	// BindFiles are files bind-mounted onto themselves in the process's
	// mount namespace (created empty if missing): writing them in place
	// works, replacing them by rename fails with EBUSY, as with a config
	// file mounted into a container (docker-library/redis#287).
	BindFiles []string
}

// Proc is a process running on a lab host. PID is the real program's
// (signals reach it directly); it leads its own process group.
type Proc struct {
	PID  int
	Name string
	Host *Host
	Spec ProcSpec

	cmd  *exec.Cmd
	done chan struct{}

	mu       sync.Mutex
	exitCode int
	waitErr  error
}

// ErrExited is returned by operations on a process that has exited.
var ErrExited = errors.New("netlab: process has exited")

// spawner forks every child of a lab from one OS thread that stays locked
// until Close: Pdeathsig fires when the *thread* that forked a child exits,
// and the lab discards threads after setns (see inNetns), so forking from an
// arbitrary thread could kill a child at a random moment. When Close ends
// the spawner, its thread exits, and any child still alive gets SIGKILL.
type spawner struct {
	mu     sync.RWMutex
	closed bool
	req    chan func()
	done   chan struct{}
}

func newSpawner() *spawner {
	sp := &spawner{req: make(chan func()), done: make(chan struct{})}
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the lab
		defer close(sp.done)
		for f := range sp.req {
			f()
		}
	}()
	return sp
}

// run executes fn on the spawner thread; false once the spawner is stopped.
func (sp *spawner) run(fn func()) bool {
	sp.mu.RLock()
	defer sp.mu.RUnlock()
	if sp.closed {
		return false
	}
	done := make(chan struct{})
	sp.req <- func() { fn(); close(done) }
	<-done
	return true
}

func (sp *spawner) stop() {
	sp.mu.Lock()
	if !sp.closed {
		sp.closed = true
		close(sp.req)
	}
	sp.mu.Unlock()
	<-sp.done
}

// shq quotes s for sh.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// wrapperScript prepares the private mount namespace, then execs the program
// (so the PID stays the program's).
func wrapperScript(spec ProcSpec, dir string) string {
	var b strings.Builder
	b.WriteString("set -e\n")
	size := spec.TmpfsSize
	if size == "" {
		size = "1m"
	}
	for _, d := range spec.TmpfsDirs {
		fmt.Fprintf(&b, "mkdir -p %s\nmount -t tmpfs -o size=%s,mode=0755 netlab %s\n", shq(d), shq(size), shq(d))
	}
	for _, d := range spec.BindSelf {
		fmt.Fprintf(&b, "mkdir -p %s\nmount --bind %s %s\n", shq(d), shq(d), shq(d))
	}
	for _, f := range spec.BindFiles {
		fmt.Fprintf(&b, "mkdir -p \"$(dirname %s)\"\n[ -e %s ] || : > %s\nmount --bind %s %s\n", shq(f), shq(f), shq(f), shq(f), shq(f))
	}
	// Closing fd 3 tells Start that the mount namespace is ready.
	fmt.Fprintf(&b, "cd %s\nprintf ok >&3\nexec 3>&-\nexec \"$@\"\n", shq(dir))
	return b.String()
}

// Start starts a process on the host: `ip netns exec <ns> unshare --mount
// --propagation private sh -c <mounts; exec argv>`. ip, unshare and sh all
// exec, so PID is the program's. The process gets SIGKILL if the test
// process dies (Pdeathsig), and Close kills it otherwise.
func (h *Host) Start(spec ProcSpec) (*Proc, error) {
	if len(spec.Argv) == 0 {
		return nil, fmt.Errorf("netlab: start on %s: empty Argv", h.Name)
	}
	if spec.Name == "" {
		spec.Name = filepath.Base(spec.Argv[0])
	}
	l := h.lab
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	dir := spec.Dir
	if dir == "" {
		dir = filepath.Join(l.dir, h.Name, spec.Name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("netlab: start %s on %s: %w", spec.Name, h.Name, err)
	}
	outPath, errPath := spec.Stdout, spec.Stderr
	if outPath == "" {
		outPath = filepath.Join(dir, spec.Name+".out")
	}
	if errPath == "" {
		errPath = filepath.Join(dir, spec.Name+".err")
	}
	stdout, err := os.OpenFile(outPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("netlab: start %s: %w", spec.Name, err)
	}
	defer stdout.Close()
	stderr, err := os.OpenFile(errPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("netlab: start %s: %w", spec.Name, err)
	}
	defer stderr.Close()
	prog, err := exec.LookPath(spec.Argv[0])
	if err != nil {
		return nil, fmt.Errorf("netlab: start %s on %s: %w", spec.Name, h.Name, err)
	}
	args := []string{"netns", "exec", h.ns, "unshare", "--mount", "--propagation", "private",
		"sh", "-c", wrapperScript(spec, dir), "netlab-" + spec.Name, prog}
	args = append(args, spec.Argv[1:]...)
	cmd := exec.Command("ip", args...)
	cmd.Env = append(os.Environ(), spec.Env...)
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	ready, readyW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("netlab: start %s: %w", spec.Name, err)
	}
	defer ready.Close()
	cmd.ExtraFiles = []*os.File{readyW} // fd 3 in the wrapper
	var startErr error
	if !l.spawn.run(func() { startErr = cmd.Start() }) {
		readyW.Close()
		return nil, ErrClosed
	}
	readyW.Close()
	if startErr != nil {
		return nil, fmt.Errorf("netlab: start %s on %s: %w", spec.Name, h.Name, startErr)
	}
	// Wait until the wrapper has set up the mounts and is about to exec (or
	// has died): then PID's namespaces are final for SetReadOnly, FillDisk
	// and Exec.
	_ = ready.SetReadDeadline(time.Now().Add(30 * time.Second))
	okMsg, _ := io.ReadAll(ready)
	p := &Proc{PID: cmd.Process.Pid, Name: spec.Name, Host: h, Spec: spec, cmd: cmd, done: make(chan struct{})}
	p.Spec.Dir = dir
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.waitErr = err
		p.exitCode = cmd.ProcessState.ExitCode()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.exitCode = 128 + int(ws.Signal())
		}
		code := p.exitCode
		p.mu.Unlock()
		l.log.Info("netlab: process exited", "host", h.Name, "name", spec.Name, "pid", p.PID, "code", code)
		close(p.done)
	}()
	if string(okMsg) != "ok" {
		// The wrapper failed (a mount, the cd) before exec.
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = p.Kill()
		}
		return nil, fmt.Errorf("netlab: start %s on %s: the wrapper failed before exec: %s", spec.Name, h.Name, tail(errPath))
	}
	l.mu.Lock()
	if l.closed { // raced with Close
		l.mu.Unlock()
		_ = p.Kill()
		return nil, ErrClosed
	}
	l.procs[p] = true
	l.mu.Unlock()
	l.log.Info("netlab: process started", "host", h.Name, "name", spec.Name, "pid", p.PID, "argv", strings.Join(spec.Argv, " "))
	return p, nil
}

// Signal sends sig to the process (SIGSTOP, SIGCONT, SIGTERM, SIGKILL ...).
func (p *Proc) Signal(sig syscall.Signal) error {
	select {
	case <-p.done:
		return ErrExited
	default:
	}
	if err := syscall.Kill(p.PID, sig); err != nil {
		return fmt.Errorf("netlab: signal %v to %s (pid %d): %w", sig, p.Name, p.PID, err)
	}
	l := p.Host.lab
	l.mu.Lock()
	switch sig {
	case syscall.SIGSTOP:
		l.stopped[p] = true
	case syscall.SIGCONT, syscall.SIGKILL:
		delete(l.stopped, p)
	}
	l.mu.Unlock()
	l.log.Info("netlab: signal", "host", p.Host.Name, "name", p.Name, "pid", p.PID, "signal", sig.String())
	return nil
}

// Kill sends SIGKILL to the process and its process group (children such
// as a redis BGSAVE fork) and waits until it has exited. Killing an exited
// process is not an error.
func (p *Proc) Kill() error {
	if !p.signalKill() {
		return nil
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("netlab: %s (pid %d) did not exit after SIGKILL", p.Name, p.PID)
	}
}

// signalKill sends SIGKILL to the process and its group without waiting;
// false when it has already exited.
func (p *Proc) signalKill() bool {
	select {
	case <-p.done:
		return false
	default:
	}
	_ = syscall.Kill(-p.PID, syscall.SIGKILL)
	_ = syscall.Kill(p.PID, syscall.SIGKILL)
	return true
}

// Wait blocks until the process exits or ctx ends.
func (p *Proc) Wait(ctx context.Context) error {
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("netlab: wait for %s: %w", p.Name, ctx.Err())
	}
}

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has exited, and its exit code
// (128+signal when killed by a signal).
func (p *Proc) Exited() (bool, int) {
	select {
	case <-p.done:
		p.mu.Lock()
		defer p.mu.Unlock()
		return true, p.exitCode
	default:
		return false, 0
	}
}

// Exec runs a short command inside the process's network and mount
// namespaces (nsenter), so it sees the process's tmpfs and read-only mounts.
func (p *Proc) Exec(ctx context.Context, argv ...string) ([]byte, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("netlab: Exec in %s: empty command", p.Name)
	}
	if done, _ := p.Exited(); done {
		return nil, ErrExited
	}
	args := append([]string{"-t", fmt.Sprint(p.PID), "-m", "-n", "--"}, argv...)
	out, err := commandContext(ctx, "nsenter", args...).CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("netlab: exec in %s: %s: %w", p.Name, strings.Join(argv, " "), err)
	}
	return out, nil
}

// SetReadOnly remounts dir (one of the spec's BindSelf) read-only or
// read-write in the process's mount namespace. Even root cannot write to a
// read-only mount, which chmod would not achieve.
func (p *Proc) SetReadOnly(dir string, ro bool) error {
	if !slices.Contains(p.Spec.BindSelf, dir) {
		return fmt.Errorf("netlab: SetReadOnly %s: not in %s's BindSelf", dir, p.Name)
	}
	mode := "rw"
	if ro {
		mode = "ro"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := p.Exec(ctx, "mount", "-o", "remount,bind,"+mode, dir); err != nil {
		return err
	}
	if ro {
		p.Host.lab.addHeal(func() error {
			if err := p.SetReadOnly(dir, false); err != nil && !errors.Is(err, ErrExited) {
				return err
			}
			return nil
		})
	}
	p.Host.lab.log.Info("netlab: remount", "host", p.Host.Name, "name", p.Name, "dir", dir, "mode", mode)
	return nil
}

// fillName is the filler file FillDisk creates.
const fillName = ".netlab-fill"

// FillDisk fills the tmpfs at dir (one of the spec's TmpfsDirs) until the
// next write fails with ENOSPC. heal removes the filler. It writes through
// /proc/<pid>/root, which resolves paths in the process's mount namespace.
func (p *Proc) FillDisk(dir string) (heal func() error, err error) {
	if !slices.Contains(p.Spec.TmpfsDirs, dir) {
		return nil, fmt.Errorf("netlab: FillDisk %s: not in %s's TmpfsDirs", dir, p.Name)
	}
	if done, _ := p.Exited(); done {
		return nil, ErrExited
	}
	path := filepath.Join(fmt.Sprintf("/proc/%d/root", p.PID), dir, fillName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("netlab: FillDisk %s: %w", dir, err)
	}
	defer f.Close()
	for _, size := range []int{1 << 16, 1 << 12, 1} {
		buf := make([]byte, size)
		for {
			if _, werr := f.Write(buf); werr != nil {
				if !errors.Is(werr, syscall.ENOSPC) {
					_ = os.Remove(path)
					return nil, fmt.Errorf("netlab: FillDisk %s: %w", dir, werr)
				}
				break
			}
		}
	}
	p.Host.lab.log.Info("netlab: disk full", "host", p.Host.Name, "name", p.Name, "dir", dir)
	var once sync.Once
	var herr error
	heal = func() error {
		once.Do(func() {
			// The process may be gone; then its tmpfs is gone too.
			if rerr := os.Remove(path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				if done, _ := p.Exited(); !done {
					herr = fmt.Errorf("netlab: heal FillDisk %s: %w", dir, rerr)
				}
			}
		})
		return herr
	}
	p.Host.lab.addHeal(heal)
	return heal, nil
}

// addHeal registers a process-level heal for HealAll.
func (l *Lab) addHeal(h func() error) {
	l.mu.Lock()
	l.heals = append(l.heals, h)
	l.mu.Unlock()
}

// Restart kills the process (if still running) and starts it again from
// the same spec on the same host (same Dir, so its files survive).
func (p *Proc) Restart() (*Proc, error) {
	if err := p.Kill(); err != nil {
		return nil, err
	}
	return p.Host.Start(p.Spec)
}

// tail returns the last lines of a log file, for error messages.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}

// LimitFileSize sets the process's soft RLIMIT_FSIZE to bytes (prlimit on the
// running process): a write that would grow a file past it raises SIGXFSZ,
// whose default action ends the process, or fails with EFBIG if the process
// ignores the signal. heal restores the previous limit.
func (p *Proc) LimitFileSize(bytes uint64) (heal func() error, err error) {
	if done, _ := p.Exited(); done {
		return nil, ErrExited
	}
	// Only the soft limit: raising a hard limit back needs CAP_SYS_RESOURCE,
	// which a container's root may lack.
	var old unix.Rlimit
	if err := unix.Prlimit(p.PID, unix.RLIMIT_FSIZE, nil, &old); err != nil {
		return nil, fmt.Errorf("netlab: read file size limit of %s: %w", p.Name, err)
	}
	lim := unix.Rlimit{Cur: min(bytes, old.Max), Max: old.Max}
	if err := unix.Prlimit(p.PID, unix.RLIMIT_FSIZE, &lim, nil); err != nil {
		return nil, fmt.Errorf("netlab: limit file size of %s: %w", p.Name, err)
	}
	p.Host.lab.log.Info("netlab: file size limit", "host", p.Host.Name, "name", p.Name, "bytes", bytes)
	var once sync.Once
	var herr error
	heal = func() error {
		once.Do(func() {
			if done, _ := p.Exited(); done {
				return
			}
			if err := unix.Prlimit(p.PID, unix.RLIMIT_FSIZE, &old, nil); err != nil {
				herr = fmt.Errorf("netlab: restore file size limit of %s: %w", p.Name, err)
			}
		})
		return herr
	}
	p.Host.lab.addHeal(heal)
	return heal, nil
}
