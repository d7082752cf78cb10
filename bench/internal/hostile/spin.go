package hostile

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// Spinners reproduce a busy shared machine: each is a process (the bench
// binary started again with spinEnv set) that keeps one core busy, at the
// bench's own nice level, until its stdin closes. With n of them on this
// 2-core machine the load average rises by about n, as when other jobs
// (compiles, race tests, fault-lab runs) share the cores, so the tails
// seen at load average 5–20 can be reproduced and measured side by side.

// spinEnv marks a spinner process.
const spinEnv = "GOSENTINEL_HOSTILELAT_SPIN"

// SpinMain runs a spinner when the process was started as one and exits;
// otherwise it returns at once. Commands that start spinners call it first
// thing in main.
func SpinMain() {
	if _, ok := os.LookupEnv(spinEnv); !ok {
		return
	}
	runtime.GOMAXPROCS(1)
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin) // EOF: the parent is done
		close(done)
	}()
	x := uint64(1)
	for {
		select {
		case <-done:
			spinSink = x // the loop's result is used: not optimised away
			os.Exit(0)
		default:
		}
		for range 1 << 16 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
}

// spinSink keeps a spinner's arithmetic live.
var spinSink uint64

// StartSpinners starts n spinners and returns the function that stops
// them (by closing their stdin, then by PID).
func StartSpinners(n int) (stop func(), err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("spinners: %w", err)
	}
	var cmds []*exec.Cmd
	var stdins []io.Closer
	stop = func() {
		for _, in := range stdins {
			_ = in.Close()
		}
		for _, c := range cmds {
			exited := make(chan struct{})
			go func() { _ = c.Wait(); close(exited) }()
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				_ = c.Process.Kill() // by PID: our own child
				<-exited
			}
		}
	}
	for range n {
		c := exec.Command(exe)
		c.Env = append(os.Environ(), spinEnv+"=1")
		c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		in, err := c.StdinPipe()
		if err != nil {
			stop()
			return nil, fmt.Errorf("spinners: %w", err)
		}
		if err := c.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("spinners: %w", err)
		}
		cmds = append(cmds, c)
		stdins = append(stdins, in)
	}
	return stop, nil
}
