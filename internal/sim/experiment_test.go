package sim

import (
	"strconv"
	"strings"
)

// runUntil steps w's scheduler until simulated time end (the experiments
// drive a World by hand instead of World.run's fault phases).
func runUntil(w *World, end int64) {
	for {
		fn, ok := w.sch.next(end)
		if !ok {
			return
		}
		fn()
	}
}

// traceEvent is one "<ms> <sentinel> -> event <type> <words...>" line of
// a World's trace.
type traceEvent struct {
	at       int64
	sentinel string
	typ      string
	words    []string // after the type
}

// traceEvents returns the events of w's trace that happened at or after
// from, in trace order.
func traceEvents(w *World, from int64) []traceEvent {
	var out []traceEvent
	for _, l := range strings.Split(w.trace.String(), "\n") {
		f := strings.Fields(l)
		if len(f) < 5 || f[2] != "->" || f[3] != "event" {
			continue
		}
		t, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || t < from {
			continue
		}
		out = append(out, traceEvent{at: t, sentinel: f[1], typ: f[4], words: f[5:]})
	}
	return out
}
