package runtime

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/gosentinel/gosentinel/internal/core"
)

// runScript starts a notification or client-reconfig script: no shell,
// inherited environment, the process's working directory (dir) and stdio;
// os/exec passes no other descriptor (Go opens every fd with O_CLOEXEC).
// Queueing, retries and the runtime limit are the core's job.
func (r *Runtime) runScript(e core.RunScript) {
	closeOnExecInherited()
	// Not exec.Command: it would search $PATH for a name without a slash,
	// while Sentinel execve()s the path as given, relative to the cwd.
	cmd := &exec.Cmd{Path: e.Path, Args: append([]string{e.Path}, e.Args...)}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		r.queue = append(r.queue, core.ScriptDone{ID: e.ID, StartErr: err})
		return
	}
	r.scrMu.Lock()
	r.scripts[e.ID] = cmd.Process
	r.scrMu.Unlock()
	r.queue = append(r.queue, core.ScriptStarted{ID: e.ID, PID: cmd.Process.Pid})
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		done := scriptOutcome(e.ID, cmd.Wait())
		r.scrMu.Lock()
		delete(r.scripts, e.ID)
		r.scrMu.Unlock()
		select {
		case r.internal <- done:
		case <-r.stopped:
		}
	}()
}

func (r *Runtime) killScript(e core.KillScript) {
	r.scrMu.Lock()
	p := r.scripts[e.ID]
	r.scrMu.Unlock()
	if p != nil {
		if err := p.Kill(); err != nil {
			r.log.Log(context.Background(), LevelVerbose, "kill script: "+err.Error())
		}
	}
}

// closeOnExecInherited sets FD_CLOEXEC on every descriptor above stderr.
// Go opens its own files with O_CLOEXEC, but descriptors inherited from
// whoever started the sentinel (a test harness, an init system) are not,
// and a script must receive nothing but stdio.
func closeOnExecInherited() {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return // not Linux procfs: nothing better to do portably
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// scriptOutcome converts the result of Wait.
func scriptOutcome(id uint64, err error) core.ScriptDone {
	d := core.ScriptDone{ID: id}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			d.Signal = int(ws.Signal())
		} else {
			d.ExitCode = ee.ExitCode()
		}
	default:
		d.StartErr = err
	}
	return d
}
