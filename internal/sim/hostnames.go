package sim

import (
	"fmt"
	"strings"

	"github.com/gosentinel/gosentinel/internal/core"
)

// Hostnames (Options.Hostnames, reference §20): every data node has a
// name (redis-<group>-<k>.sim) that the simulated DNS maps to its current
// IP; the nodes announce it (replica-announce-ip <name>), the sentinels
// run with resolve-hostnames and announce-hostnames yes and monitor the
// master by name, and their cores resolve through the same DNS
// (Config.ResolveIP, as the runtime does). Two fault kinds: a node's name
// moves to a new IP (the process is stopped and comes back on the new
// address, like a pod rescheduled with the same DNS name; the old IP
// answers nothing), and a name stops resolving for a while. A connection
// dials the IP the core holds, or resolves the name when it holds none.

// nodeName is the hostname of data node k (0 = the master) of group g.
func nodeHostname(g, k int) string { return fmt.Sprintf("redis-%d-%d.sim", g, k) }

// isName reports whether h is a hostname rather than an IP literal.
func isName(h string) bool { return h != "" && ipOnly(h) == "" }

// hostMatches reports whether host (as written in a SLAVEOF or a config)
// designates in: its IP, or its name.
func (in *instance) hostMatches(host string) bool {
	return host == in.addr.IP || (isName(host) && strings.EqualFold(host, in.addr.Host))
}

// normName moves a hostname written into the IP field (addresses parsed
// from events and commands, where announce-hostnames puts the name) to
// Host.
func normName(a core.Addr) core.Addr {
	if isName(a.IP) {
		a.Host, a.IP = a.IP, ""
	}
	return a
}

// textKey is the record key of a host and port written as text (a
// hostname is the node's identity, see dialAddr).
func textKey(host, port string) string {
	if isName(host) {
		return strings.ToLower(host) + ":" + port
	}
	return host + ":" + port
}

// dialTarget is the node a connection to a reaches: the IP the core
// holds, or else the name resolved now (-1: nothing listens there, or
// the name does not resolve).
func (w *World) dialTarget(a core.Addr) int {
	a = normName(a)
	if a.IP == "" && isName(a.Host) {
		ip, ok := w.resolve(a.Host)
		if !ok {
			return -1
		}
		a.IP = ip
	}
	return w.lookup(core.Addr{IP: a.IP, Port: a.Port})
}

// moveName stops a data node and brings it back on a new IP under the
// same name.
func (w *World) moveName(f Fault) {
	if !w.opt.Hostnames {
		return
	}
	in := w.inst[f.n(0, len(w.inst))]
	if in.up {
		w.crashInstance(in)
	} else {
		// A dial still retrying its SYN towards the old IP must not land
		// on the new one (seeds 700741, 703179).
		w.resetConnsOf(in.id)
	}
	w.ipMoves++
	old := in.addr.IP
	in.addr.IP = fmt.Sprintf("10.%d.0.%d", in.group, 100+w.ipMoves)
	w.dns[in.addr.Host] = in.addr.IP
	w.tracef("fault: %s moves from %s to %s", in.addr.Host, old, in.addr.IP)
	gen := in.gen
	w.sch.after(200+f.n64(1, 2*w.opt.DownAfter), func() {
		if in.gen == gen {
			w.restartInstance(in)
		}
	})
}

// unresolvable makes a data node's name fail to resolve for a while.
func (w *World) unresolvable(f Fault) {
	if !w.opt.Hostnames {
		return
	}
	in := w.inst[f.n(0, len(w.inst))]
	d := 200 + f.n64(1, 3*w.opt.DownAfter)
	w.tracef("fault: %s stops resolving for %dms", in.addr.Host, d)
	delete(w.dns, in.addr.Host)
	w.sch.after(d, func() { w.restoreName(in) })
}

// restoreName makes in's name resolve to its current IP again.
func (w *World) restoreName(in *instance) {
	if _, ok := w.dns[in.addr.Host]; !ok {
		w.tracef("%s resolves again", in.addr.Host)
	}
	w.dns[in.addr.Host] = in.addr.IP
}

// restoreNames is the heal: every name resolves.
func (w *World) restoreNames() {
	if !w.opt.Hostnames {
		return
	}
	for _, in := range w.inst {
		w.restoreName(in)
	}
}
