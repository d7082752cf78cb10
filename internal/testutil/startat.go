package testutil

// StartSentinelAt starts a sentinel binary (real redis-sentinel or
// gosentinel) with argv args from the working directory cwd, the way tools
// start it (`redis-sentinel rel/path/sentinel.conf`). port is the port the
// config file names; stderr goes to cwd/stderr.txt (see Stderr). The
// process is killed by PID in t.Cleanup.
func StartSentinelAt(t TB, bin, cwd string, args []string, port int) *Process {
	t.Helper()
	return start(t, "redis-sentinel", bin, args, cwd, port)
}

// StderrPath returns the file that received the process's stderr.
func (p *Process) StderrPath() string { return p.Dir + "/stderr.txt" }
