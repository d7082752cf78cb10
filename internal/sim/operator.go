package sim

import (
	"github.com/gosentinel/gosentinel/internal/core"
)

// Operator actions of the fault phase that are not failures: run-time
// configuration changes of an instance, and a sentinel re-provisioned
// after losing its config file.

// configSet is CONFIG SET replica-priority / replica-announced on an
// instance (visible to the sentinels in its next INFO). Everything is set
// back to the seed's values when the faults end.
func (w *World) configSet(f Fault) {
	in := w.inst[f.n(0, len(w.inst))]
	if !in.up {
		return
	}
	if f.n(1, 3) != 0 {
		prios := []int{0, 1, 10, 100}
		p := prios[f.n(2, len(prios))]
		w.tracef("fault: operator runs CONFIG SET replica-priority %d on %s (was %d)", p, in.addr.IP, in.priority)
		in.priority = p
	} else {
		in.announced = !in.announced
		w.tracef("fault: operator runs CONFIG SET replica-announced %v on %s", in.announced, in.addr.IP)
	}
	in.lastDisturbed = w.sch.now
}

// restoreConfig sets every instance's priority and announced flag back
// to the seed's values (the operator undoes the changes at the heal).
func (w *World) restoreConfig() {
	for g := range w.masters {
		for k, in := range w.group(g) {
			p, a := 100, true
			if k > 0 {
				p, a = w.opt.Priority[k-1], w.opt.Announced[k-1]
			}
			if in.priority != p || in.announced != a {
				in.priority, in.announced = p, a
				in.lastDisturbed = w.sch.now
			}
		}
	}
}

// loseConfig crashes a sentinel and brings it back with a new myid and a
// re-provisioned config file: the monitor lines, and a known-sentinel
// line for every peer (as an operator rebuilding the file would write
// them; without them a sentinel that knows no peer elects itself alone).
// Its old identity is dropped by the peers when its first hello shows a
// new runid at the same address (+sentinel-invalid-addr, reference §11).
func (w *World) loseConfig(f Fault) {
	s := w.sent[f.n(0, len(w.sent))]
	if s.up {
		w.crashSentinel(s)
	}
	s.losses++
	st := cloneState(s.template)
	st.MyID = w.runID()
	for i := range st.Masters {
		st.Masters[i].KnownSentinels = nil
		for _, p := range w.sent {
			if p != s {
				st.Masters[i].KnownSentinels = append(st.Masters[i].KnownSentinels, core.KnownSentinel{Addr: p.addr, RunID: p.disk.MyID})
			}
		}
	}
	s.disk = st
	w.tracef("fault: sentinel %d lost its config file; back with myid %s", s.id, st.MyID[:8])
	if !s.up {
		w.restartAfter(s, 200+f.n64(1, 3*w.opt.DownAfter))
	}
}

// operatorReply handles the reply to an operator's command.
func (w *World) operatorReply(s *sentinel, r reqRoute, v core.Value) {
	if v.Kind == core.KindError {
		w.violate("L1", s, "operator command %q refused: -%s", r.args, v.Str)
	}
	w.tracef("s%d answers %q: %s", s.id, r.args, describeValue(v))
}
