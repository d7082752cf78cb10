package testutil

import "path/filepath"

// StartSentinelAt starts a sentinel binary (real redis-sentinel or
// gosentinel) with argv args from the working directory cwd, the way tools
// start it (`redis-sentinel rel/path/sentinel.conf`). port is the port the
// config file names; stderr goes to cwd/stderr.txt (see StderrPath). It
// waits for an inline PING to answer +PONG. The process is killed by PID
// in t.Cleanup.
func StartSentinelAt(t TB, bin, cwd string, args []string, port int) *Process {
	t.Helper()
	return start(t, "redis-sentinel", bin, args, cwd, port)
}

// StartSentinelNoAuth is StartSentinelConf for a sentinel that requires a
// password: like every start helper it is ready when an inline PING answers
// +PONG or -NOAUTH.
func StartSentinelNoAuth(t TB, bin, conf string, port int) *Process {
	t.Helper()
	return StartSentinelConf(t, bin, conf, port, "")
}

// StderrPath returns the file that received the process's stderr.
func (p *Process) StderrPath() string { return filepath.Join(p.Dir, "stderr.txt") }

// ExitCode waits for the process to exit and returns its exit status (-1
// when it was killed by a signal).
func (p *Process) ExitCode() int {
	<-p.done
	return p.cmd.ProcessState.ExitCode()
}
