package sim

// Events released late. The core holds +new-epoch and +vote-for-leader of
// a change not yet on disk, and the events of the same master that follow
// them in their step, until the Persist covering the change succeeds
// (internal/core event.go), so they reach the checker in a later step;
// core.Emit.At is the local time of the step they happened in. The checks
// judge such an event by the state as of that step, recorded here for the
// recent steps of each sentinel (its local clock can jump, so the step is
// found by its local time among the latest steps, not by arithmetic). If
// several recent steps share that millisecond, the event may come from any
// of them: a check then reports a violation only if it holds for all.

// recentSteps is how many steps of one sentinel are remembered; a hold
// lasts a few Persists, far fewer steps.
const recentSteps = 1024

// stepRec is the state the event checks read, as of the end of a step.
type stepRec struct {
	local, virtual int64
	step           int             // the World's step number (D1: replies processed after it)
	truthTilt      bool            // TILT in truth (t.inTilt) when the step ran
	coreTilt       bool            // the core's TILT from its events (S5)
	odown          map[string]bool // per master: ODOWN from its events (S5)
	// replicaOK, per master waiting for an early retry (S7): the view
	// showed a replica that is not SDOWN, priority ≠ 0 (replicaOK).
	replicaOK map[string]bool
}

// stepRing holds the recent steps of one sentinel incarnation.
type stepRing struct {
	recs []stepRec
	next int
}

// add records a step.
func (r *stepRing) add(rec stepRec) {
	if len(r.recs) < recentSteps {
		r.recs = append(r.recs, rec)
		return
	}
	r.recs[r.next] = rec
	r.next = (r.next + 1) % recentSteps
}

// at returns the latest recorded steps that ran at local time local
// (newest first; none if they are no longer remembered).
func (r *stepRing) at(local int64) []stepRec {
	var out []stepRec
	n := len(r.recs)
	for k := 1; k <= n; k++ {
		rec := r.recs[(r.next-k+n)%n]
		if rec.local == local {
			out = append(out, rec)
		} else if len(out) > 0 {
			break
		}
	}
	return out
}

// recordStep remembers the state of s at the end of a step.
func (c *checker) recordStep(w *World, s *sentinel, now int64) {
	ch := &s.chk
	rec := stepRec{local: now, virtual: w.sch.now, step: w.steps, truthTilt: s.truth.stepTilt, coreTilt: ch.tilt}
	for name, x := range ch.m {
		if x.odown {
			if rec.odown == nil {
				rec.odown = map[string]bool{}
			}
			rec.odown[name] = true
		}
		if x.noGood && replicaOK(s, name) {
			if rec.replicaOK == nil {
				rec.replicaOK = map[string]bool{}
			}
			rec.replicaOK[name] = true
		}
	}
	ch.steps.add(rec)
}

// lateSteps returns the steps a late event at local time at may come from.
func (s *sentinel) lateSteps(at int64) []stepRec { return s.chk.steps.at(at) }

// allSteps reports whether f holds for every step of recs (and there is
// at least one).
func allSteps(recs []stepRec, f func(stepRec) bool) bool {
	for _, r := range recs {
		if !f(r) {
			return false
		}
	}
	return len(recs) > 0
}
