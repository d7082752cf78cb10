package sim

import (
	"errors"

	"github.com/gosentinel/gosentinel/internal/core"
)

// ScriptMode says whether a seed configures scripts.
type ScriptMode int

// Script modes.
const (
	ScriptsNone  ScriptMode = iota // no notification or client-reconfig script
	ScriptsMixed                   // scripts that succeed, are slow, fail (exit 1: retried; exit 2: error), hang or cannot start
)

// Paths of the simulated scripts (the core's Executable check is off).
const (
	notifyScript   = "/sim/notify.sh"
	reconfigScript = "/sim/reconfig.sh"
)

// errScriptStart is the StartErr of a script that cannot be started.
var errScriptStart = errors.New("sim: script cannot be started (injected)")

// simScript is a script process the simulator runs for a sentinel.
type simScript struct {
	pid  int
	gen  int // bumped when it ends, so a pending completion is dropped
	done bool
}

// runScript executes a RunScript effect: the script starts after 1–5 ms
// and then, drawn per run, exits 0 quickly, runs slowly (possibly past
// script-max-runtime), exits 1 (retried) or 2 (error), hangs until
// killed, or fails to start.
func (w *World) runScript(s *sentinel, e core.RunScript) {
	if s.scripts == nil {
		s.scripts = map[uint64]*simScript{}
	}
	inc := s.inc
	w.nextPID++
	sc := &simScript{pid: w.nextPID}
	s.scripts[e.ID] = sc
	max := w.opt.Timing.ScriptMaxRuntime
	kind := w.rng.IntN(20)
	if kind == 0 {
		w.sch.after(1, func() {
			sc.done = true
			w.toSentinel(s, inc, core.ScriptDone{ID: e.ID, StartErr: errScriptStart})
		})
		return
	}
	start := 1 + w.rng.Int64N(5)
	w.sch.after(start, func() { w.toSentinel(s, inc, core.ScriptStarted{ID: e.ID, PID: sc.pid}) })
	var d int64
	code := 0
	switch {
	case kind < 10: // quick success
		d = 5 + w.rng.Int64N(100)
	case kind < 13: // slow: half of them past script-max-runtime
		d = max/2 + w.rng.Int64N(max+1)
	case kind < 16:
		d, code = 5+w.rng.Int64N(200), 1
	case kind < 18:
		d, code = 5+w.rng.Int64N(200), 2
	default: // hangs until killed
		w.tracef("s%d: script %d (pid %d) hangs", s.id, e.ID, sc.pid)
		return
	}
	gen := sc.gen
	w.sch.after(start+d, func() {
		if sc.gen != gen || sc.done {
			return
		}
		sc.done = true
		w.toSentinel(s, inc, core.ScriptDone{ID: e.ID, ExitCode: code})
	})
}

// killScript executes a KillScript effect: SIGKILL, reported as signal 9.
func (w *World) killScript(s *sentinel, e core.KillScript) {
	sc := s.scripts[e.ID]
	if sc == nil || sc.done {
		return
	}
	sc.gen++
	sc.done = true
	inc := s.inc
	w.sch.after(1, func() { w.toSentinel(s, inc, core.ScriptDone{ID: e.ID, Signal: 9}) })
}
