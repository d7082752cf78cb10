package sim

import (
	"sort"
	"strconv"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/glob"
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
		in.setPriority(p, w.sch.now)
	} else {
		in.announced = !in.announced
		w.tracef("fault: operator runs CONFIG SET replica-announced %v on %s", in.announced, in.addr.IP)
	}
	in.lastDisturbed = w.sch.now
}

// neverChanged is the priorityAt of an instance whose priority the
// operator never changed.
const neverChanged = -1 << 40

// setPriority is CONFIG SET replica-priority p at time now.
func (in *instance) setPriority(p int, now int64) {
	in.prevPriority, in.priority, in.priorityAt = in.priority, p, now
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
				if in.priority != p {
					in.setPriority(p, w.sch.now)
				}
				in.announced = a
				in.lastDisturbed = w.sch.now
			}
		}
		w.undoRogueMaster(g)
	}
	w.restoreSentinelPass()
}

// undoRogueMaster is the one topology change the operator undoes at the
// heal (finding F8): when the master the sentinels agree on runs as a
// replica and every other instance of its group that could replace it
// is a master the sentinels last saw with slave_priority 0 (an operator's
// REPLICAOF NO ONE on a priority-0 replica), no Sentinel can fail over —
// a master's INFO has no slave_priority line, so restoring the priority
// now is invisible and the 0 stays in every sentinel's table for good
// (sentinel.c the same). The operator then runs REPLICAOF NO ONE on the
// agreed master, and the sentinels must demote the rogue master
// (+convert-to-slave) to converge.
func (w *World) undoRogueMaster(g int) {
	a := w.agreedMaster(g)
	if a == nil || a.role != roleSlave {
		return
	}
	stuck := false
	for _, in := range w.group(g) {
		switch {
		case in == a:
		case in.role == roleMaster && in.shownPriority == 0:
			stuck = true
		case in.role == roleMaster && in.shownPriority != 0, in.priority != 0:
			return // a candidate the sentinels may promote
		}
	}
	if stuck {
		w.tracef("heal: operator runs REPLICAOF NO ONE on %s (the only candidates are masters last seen with priority 0)", a.addr.IP)
		w.slaveOf(a, "NO", "ONE")
	}
}

// loseConfig crashes a sentinel and brings it back with a new myid and a
// re-provisioned config file: the monitor lines, the peers' current epoch,
// and a known-sentinel line for every peer (as an operator rebuilding the file would write
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
	// Rebuilt from a peer's file (without its myid): the current epoch is
	// the highest a peer has on disk. Any epoch the lost identity voted in
	// is on the disk of the candidate that asked (S8), so the new identity
	// can never vote a second time in it. A file rebuilt at epoch 0 could:
	// two leaders in one epoch (seed 2975 at 1d45b35 showed it).
	for _, p := range w.sent {
		if p != s && p.disk.CurrentEpoch > st.CurrentEpoch {
			st.CurrentEpoch = p.disk.CurrentEpoch
		}
	}
	if w.opt.SentinelAuth {
		st.SentinelPass = sentinelPassword(w.sentGen)
	}
	for i := range st.Masters {
		// …and its leader-epoch lines: no vote in that epoch either.
		st.Masters[i].Leader, st.Masters[i].LeaderEpoch = "", st.CurrentEpoch
		if w.opt.Auth {
			st.Masters[i].AuthPass = password(w.passGen) // the current password
		}
		st.Masters[i].KnownSentinels = nil
		for _, p := range w.sent {
			if p != s {
				st.Masters[i].KnownSentinels = append(st.Masters[i].KnownSentinels, core.KnownSentinel{Addr: p.pub, RunID: p.disk.MyID})
			}
		}
	}
	s.disk = st
	for g := range w.masters {
		w.markForgot(g, s)
	}
	w.tracef("fault: sentinel %d lost its config file; back with myid %s", s.id, st.MyID[:8])
	if !s.up {
		w.restartAfter(s, 200+f.n64(1, 3*w.opt.DownAfter))
	}
}

// operatorReset is SENTINEL RESET <pattern> sent to one sentinel, as the
// Redis docs tell operators to do after removing a sentinel or a replica
// ("Adding or removing Sentinels", "Removing the old master or
// unreachable replicas"): every master, a prefix, one master's name, a
// name in the wrong case (the match is case-sensitive: none), or no
// master at all.
func (w *World) operatorReset(f Fault) {
	s := w.sent[f.n(0, len(w.sent))]
	if !s.up || s.opPending {
		return
	}
	// The operator resets a sentinel that is healthy (SENTINEL MASTERS:
	// no SDOWN/ODOWN, no failover in progress, the master's replicas and
	// peers known), as the procedure expects.
	for _, name := range w.masters {
		if m, ok := view(s, name); !ok || m.SDown || m.ODown || m.FailoverState != core.FailoverNone ||
			len(m.Replicas) == 0 || len(m.Sentinels) < len(w.sent)-1 || s.core.InTilt() {
			w.tracef("fault: operator would run SENTINEL RESET on sentinel %d, but it does not look healthy", s.id)
			return
		}
	}
	pats := []string{"*", "my*", w.masters[f.n(2, len(w.masters))], strings.ToUpper(w.masters[0]), "no-such-master"}
	p := pats[f.n(1, len(pats))]
	for g, name := range w.masters {
		if glob.Match(p, name, false) {
			w.markForgot(g, s)
		}
	}
	args := []string{"SENTINEL", "RESET", p}
	w.tracef("fault: operator runs SENTINEL RESET %s on sentinel %d", p, s.id)
	s.nextReq++
	s.reqs[s.nextReq] = reqRoute{args: args, at: w.sch.now, operator: true}
	s.opPending = true
	s.opOutstanding++
	s.chk.resets = nil
	w.toSentinel(s, s.inc, core.Request{ID: s.nextReq, Client: 1004, Args: args})
}

// resetReply is O1 (reference §8, RESET <pattern>: "integer = masters
// reset", "glob, case-sensitive; +reset-master; drops replicas+sentinels,
// links, failover state"): the reply counts the masters whose name the
// pattern matches, each got one +reset-master in the command's step, and
// each is left with no replica, no sentinel, no failover and no
// SDOWN/ODOWN (all are learnt again from INFO and hellos).
func (w *World) resetReply(s *sentinel, pattern string, v core.Value) {
	var want []string
	for _, name := range w.masters {
		if glob.Match(pattern, name, false) {
			want = append(want, name)
		}
	}
	if v.Kind != core.KindInt || v.Int != int64(len(want)) {
		w.violate("O1", s, "SENTINEL RESET %s answered %s, %d masters match", pattern, describeValue(v), len(want))
	}
	sort.Strings(want)
	got := append([]string(nil), s.chk.resets...)
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		w.violate("O1", s, "SENTINEL RESET %s emitted +reset-master for [%s], want [%s]", pattern, strings.Join(got, " "), strings.Join(want, " "))
	}
	s.chk.resets = nil
	for _, name := range want {
		m, ok := view(s, name)
		switch {
		case !ok:
			w.violate("O1", s, "master %s gone after SENTINEL RESET", name)
		case len(m.Replicas) != 0 || len(m.Sentinels) != 0:
			w.violate("O1", s, "SENTINEL RESET %s left %s with %d replicas and %d sentinels", pattern, name, len(m.Replicas), len(m.Sentinels))
		case m.FailoverState != core.FailoverNone || m.Promoted != (core.Addr{}):
			w.violate("O1", s, "SENTINEL RESET %s left %s in failover state %v", pattern, name, m.FailoverState)
		case m.SDown || m.ODown:
			w.violate("O1", s, "SENTINEL RESET %s left %s SDOWN %v ODOWN %v", pattern, name, m.SDown, m.ODown)
		}
	}
}

// operatorReply handles the reply to an operator's command.
func (w *World) operatorReply(s *sentinel, r reqRoute, v core.Value) {
	s.opPending = false
	if s.opOutstanding > 0 {
		s.opOutstanding--
	}
	if len(r.args) == 3 && strings.EqualFold(r.args[1], "RESET") {
		w.resetReply(s, r.args[2], v)
		w.tracef("s%d answers %q: %s", s.id, r.args, describeValue(v))
		return
	}
	// A config write that failed is reported (sentinelFlushConfigAndReply);
	// the operator retries. Anything else refused is a bug.
	if v.Kind == core.KindError && !strings.Contains(v.Str, "Failed to save config file") {
		w.violate("L1", s, "operator command %q refused: -%s", r.args, v.Str)
	}
	w.tracef("s%d answers %q: %s", s.id, r.args, describeValue(v))
}

// renamedCommands are the commands a seed with RenameCommands renames on
// its data nodes (not sent to sentinels, which take rename-command of
// their master too, reference §19).
var renamedCommands = []string{"INFO", "SLAVEOF", "CONFIG", "MULTI", "EXEC"}

// renamedName is the rename-command target of c.
func renamedName(c string) string { return "x-" + strings.ToLower(c) + "-9f" }

// renameIn maps a command arriving at a data node through its
// rename-command table: a renamed name becomes the original; an original
// that was renamed away is unknown (ok false).
func (w *World) renameIn(args []string) ([]string, bool) {
	if w.renamedFrom == nil || len(args) == 0 {
		return args, true
	}
	cmd := strings.ToUpper(args[0])
	if orig, ok := w.renamedFrom[cmd]; ok {
		return append([]string{orig}, args[1:]...), true
	}
	for _, c := range renamedCommands {
		if cmd == c {
			return args, false
		}
	}
	return args, true
}

// markForgot records that s forgot the replicas of group g (RESET, or a
// config file re-provisioned without known-replica lines).
func (w *World) markForgot(g int, s *sentinel) {
	if w.forgot == nil {
		w.forgot = map[int]map[int]bool{}
	}
	if w.forgot[g] == nil {
		w.forgot[g] = map[int]bool{}
	}
	w.forgot[g][s.id] = true
}

// reattachForgotten is the operator's part after SENTINEL RESET (Redis
// docs, "Removing the old master or unreachable replicas": after a RESET
// the sentinels keep only "the ones listed as correctly replicating from
// the current master INFO output"). A data node that was down or not
// replicating when every sentinel forgot it, and came back as a master
// (an old master restarting from its config file), is managed by no
// sentinel any more: sentinel.c and the core alike never look for it. In
// the healed phase, once the sentinels agree on a running master, the
// operator points such a node at it with REPLICAOF, and the sentinels must
// then pick it up from the master's INFO. Only nodes that no sentinel
// knows, of a group whose replicas every sentinel forgot at least once, so
// a core that drops a replica by itself is still caught by L1.
//
// skipS is the misconfigured sentinel while L1 leaves it out (before the
// liveness failover raises the config epoch): it is not required to have
// forgotten the replicas, and its view neither blocks the agreement nor
// makes a node known. It monitors a replica as its master at config epoch
// 0, which no hello at config epoch 0 changes (../shared/reference/
// sentinel-reference.md §11: "if hello master-config-epoch > ours → adopt
// it"); it sees its "master" report role:slave, goes SDOWN (§12) and ODOWN
// and is never elected (its peers find no master at that address, §13). A
// node chained under that replica (an operator's REPLICAOF) replicates
// from the address it monitors, so, like sentinel.c, it never fixes it.
// The correct sentinels learn replicas only from their master's INFO
// `slaveN:` lines (§16, §23 item 11 "Discovery"), which do not list a
// replica's replica, and +fix-slave-config only touches replicas they
// know (§16): once RESET made them forget the node, nobody would ever
// move it. Seed 1610767.
func (w *World) reattachForgotten(skipS *sentinel) {
	for g, name := range w.masters {
		need := len(w.sent)
		if skipS != nil && g == 0 {
			need-- // the misconfigured sentinel monitors group 0 only
			if w.forgot[g][skipS.id] {
				need++
			}
		}
		if len(w.forgot[g]) < need {
			continue
		}
		but := ""
		if skipS != nil && g == 0 {
			but = " but the misconfigured one"
		}
		m := w.agreedMaster(g)
		if m == nil || !m.up {
			continue
		}
		var views []core.MasterView
		agreed := true
		for _, s := range w.sent {
			if s == skipS && g == 0 {
				continue
			}
			v, ok := view(s, name)
			if !ok || !sameAddr(v.Addr, m.addr) || v.FailoverState != core.FailoverNone {
				agreed = false
				break
			}
			views = append(views, v)
		}
		if !agreed {
			continue
		}
		if m.role != roleMaster {
			// The master every sentinel monitors runs as a replica (an
			// operator's REPLICAOF in the fault phase) and, all replicas
			// forgotten, its INFO lists none: no failover can ever be
			// made. The operator makes it a master again, as
			// undoRogueMaster does; the others are reattached next.
			if !anyReplica(views) {
				w.tracef("liveness: operator runs REPLICAOF NO ONE on %s: every sentinel%s monitors it and, having forgotten the replicas (SENTINEL RESET), knows none", m.addr.IP, but)
				w.slaveOf(m, "NO", "ONE")
			}
			continue
		}
		for _, in := range w.group(g) {
			if in == m || !in.up || in.isReplicaOf(m.addr) || known(views, in) {
				continue
			}
			w.tracef("liveness: operator runs REPLICAOF %s %d on %s, which every sentinel%s forgot (SENTINEL RESET)", m.addr.Host, m.addr.Port, in.addr.IP, but)
			w.slaveOf(in, m.addr.Host, strconv.Itoa(m.addr.Port))
		}
	}
}

// anyReplica reports whether any of the views lists a replica.
func anyReplica(views []core.MasterView) bool {
	for _, v := range views {
		if len(v.Replicas) > 0 {
			return true
		}
	}
	return false
}

// known reports whether any of the views lists in as its master or a
// replica.
func known(views []core.MasterView, in *instance) bool {
	for _, v := range views {
		if sameAddr(v.Addr, in.addr) {
			return true
		}
		for _, r := range v.Replicas {
			if sameAddr(r.Addr, in.addr) {
				return true
			}
		}
	}
	return false
}
