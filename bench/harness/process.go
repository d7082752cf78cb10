package harness

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// slowProcess is a sentinel started without testutil's 10 s readiness
// bound: with thousands of masters real Sentinel may not answer PING for
// longer than that, and that delay is part of what the scale run measures.
type slowProcess struct {
	cmd  *exec.Cmd
	port int
	done chan struct{}
}

func (p *slowProcess) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)) }
func (p *slowProcess) PID() int     { return p.cmd.Process.Pid }

// startSlowSentinel starts `bin conf` in the config's directory, killed by
// PID when env's Run returns, and waits up to ready for its first PONG.
func startSlowSentinel(env *Env, bin, conf string, port int, ready time.Duration) *slowProcess {
	dir := filepath.Dir(conf)
	stderr, err := os.Create(filepath.Join(dir, "stderr.txt"))
	if err != nil {
		env.Fatalf("harness: %v", err)
	}
	defer stderr.Close()
	cmd := exec.Command(bin, conf)
	cmd.Dir = dir
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		env.Fatalf("harness: start %s: %v", bin, err)
	}
	p := &slowProcess{cmd: cmd, port: port, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	env.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
	})
	if err := testutil.WaitPing(p.Addr(), ready, p.done); err != nil {
		env.Fatalf("harness: %s on port %d not answering: %v", filepath.Base(bin), port, fmt.Errorf("after %v: %w", ready, err))
	}
	return p
}
