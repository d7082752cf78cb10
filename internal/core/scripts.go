package core

import (
	"strconv"
)

// scriptJob is a sentinelScriptJob.
type scriptJob struct {
	id        uint64
	argv      []string // argv[0] is the path
	running   bool
	pid       int
	startTime Millis // run time when running, earliest start when scheduled
	retryNum  int
	killSent  bool
}

// scriptQueue holds notification and client-reconfig script jobs (§18).
type scriptQueue struct {
	jobs    []*scriptJob
	running int
	nextID  uint64
}

// scheduleScript is sentinelScheduleScriptExecution.
func (s *Sentinel) scheduleScript(path string, args ...string) {
	q := &s.scripts
	q.nextID++
	q.jobs = append(q.jobs, &scriptJob{id: q.nextID, argv: append([]string{path}, args...)})
	if len(q.jobs) > ScriptMaxQueue {
		for k, j := range q.jobs {
			if !j.running {
				q.jobs = append(q.jobs[:k:k], q.jobs[k+1:]...)
				break
			}
		}
	}
}

// clientReconfScript is sentinelCallClientReconfScript.
func (s *Sentinel) clientReconfScript(m *instance, role string, from, to Addr) {
	if m.m.clientReconfigScript == "" {
		return
	}
	s.scheduleScript(m.m.clientReconfigScript, m.name, role, "start",
		s.announceHost(from), strconv.Itoa(from.Port), s.announceHost(to), strconv.Itoa(to.Port))
}

// runPendingScripts is sentinelRunPendingScripts.
func (s *Sentinel) runPendingScripts() {
	q := &s.scripts
	for _, j := range q.jobs {
		if q.running >= ScriptMaxRunning {
			return
		}
		if j.running || j.startTime > s.now {
			continue
		}
		j.running = true
		j.startTime = s.now
		j.retryNum++
		j.pid = 0
		j.killSent = false
		q.running++
		s.emit(RunScript{ID: j.id, Path: j.argv[0], Args: append([]string(nil), j.argv[1:]...)})
		s.event(LevelDebug, "+script-child", nil, "")
	}
}

// killTimedOutScripts is sentinelKillTimedoutScripts.
func (s *Sentinel) killTimedOutScripts() {
	for _, j := range s.scripts.jobs {
		if j.running && !j.killSent && s.now-j.startTime > s.timing.ScriptMaxRuntime {
			s.event(LevelWarning, "-script-timeout", nil, j.argv[0]+" "+strconv.Itoa(j.pid))
			j.killSent = true
			s.emit(KillScript{ID: j.id, PID: j.pid})
		}
	}
}

func (s *Sentinel) findScript(id uint64) (int, *scriptJob) {
	for k, j := range s.scripts.jobs {
		if j.id == id {
			return k, j
		}
	}
	return -1, nil
}

func (s *Sentinel) onScriptStarted(e ScriptStarted) {
	if _, j := s.findScript(e.ID); j != nil && j.running {
		j.pid = e.PID
	}
}

// onScriptDone is sentinelCollectTerminatedScripts.
func (s *Sentinel) onScriptDone(e ScriptDone) {
	k, j := s.findScript(e.ID)
	if j == nil || !j.running {
		return
	}
	q := &s.scripts
	q.running--
	s.event(LevelDebug, "-script-child", nil, "")
	if e.StartErr != nil {
		s.event(LevelWarning, "-script-error", nil, j.argv[0]+" 99 0")
		q.jobs = append(q.jobs[:k:k], q.jobs[k+1:]...)
		return
	}
	bySignal := e.Signal
	if (bySignal != 0 || e.ExitCode == 1) && j.retryNum != ScriptMaxRetry {
		j.running = false
		j.pid = 0
		j.startTime = s.now + s.scriptRetryDelay(j.retryNum)
		return
	}
	if bySignal != 0 || e.ExitCode != 0 {
		s.event(LevelWarning, "-script-error", nil, j.argv[0]+" "+strconv.Itoa(bySignal)+" "+strconv.Itoa(e.ExitCode))
	}
	q.jobs = append(q.jobs[:k:k], q.jobs[k+1:]...)
}

// scriptRetryDelay is sentinelScriptRetryDelay: the base delay doubled for
// every retry after the first.
func (s *Sentinel) scriptRetryDelay(retryNum int) Millis {
	d := s.timing.ScriptRetryDelay
	for ; retryNum > 1; retryNum-- {
		d *= 2
	}
	return d
}

// pendingScriptsValue renders SENTINEL PENDING-SCRIPTS.
func (s *Sentinel) pendingScriptsValue() Value {
	out := []Value{}
	for _, j := range s.scripts.jobs {
		argv := make([]Value, len(j.argv))
		for k, a := range j.argv {
			argv[k] = Bulk(a)
		}
		flags, timeKey, t := "scheduled", "run-delay", Millis(0)
		if j.running {
			flags, timeKey, t = "running", "run-time", s.now-j.startTime
		} else if j.startTime > s.now {
			t = j.startTime - s.now
		}
		out = append(out, Map(
			Bulk("argv"), Array(argv...),
			Bulk("flags"), Bulk(flags),
			Bulk("pid"), BulkInt(int64(j.pid)),
			Bulk(timeKey), BulkInt(t),
			Bulk("retry-num"), BulkInt(int64(j.retryNum)),
		))
	}
	return Array(out...)
}
