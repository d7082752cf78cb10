package conformance

import (
	"sort"
	"testing"
	"time"
)

// hostnamesConf monitors the master by name with resolve- and
// announce-hostnames on.
const hostnamesConf = `port {PORT}
bind 127.0.0.1
logfile "sentinel.log"
sentinel resolve-hostnames yes
sentinel announce-hostnames yes
sentinel monitor mym localhost {M} 1
`

func TestHostnames(t *testing.T) {
	t.Parallel()
	announce := []string{"replica-announce-ip localhost"}
	ps := startPair(t, spec{replicas: 2, replicaExtra: [][]string{announce, announce}, body: hostnamesConf})
	for _, s := range ps {
		s.waitDiscovered(t)
	}
	view := []cmd{
		c("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym"), c("SENTINEL", "MASTER", "mym"),
		u("SENTINEL", "REPLICAS", "mym"), c("INFO", "sentinel"), c("SENTINEL", "CONFIG", "GET", "*"),
		c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "localhost", "{M}", "0", "*"),
		c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "{M}", "0", "*"),
		c("SENTINEL", "MONITOR", "other", "localhost", "1", "1"),
		c("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "other"), c("SENTINEL", "REMOVE", "other"), c("SENTINEL", "FLUSHCONFIG"),
	}
	// SENTINEL MASTER other is not compared: its flags show
	// "disconnected" or not depending on whether the refused connect was
	// issued yet (timing).
	on := seq{name: "hostnames-on", proto: 2, cmds: view}
	report(t, on, compareSeq(t, ps, on))
	compareConf(t, ps, "with announce-hostnames yes", true)
	// Events name instances by hostname too: RESET drops the replicas, the
	// next master INFO rediscovers them (+slave slave localhost:<port> ...).
	var evs [2][]string
	for i, s := range ps {
		sb := subscribe(t, s, 2)
		dialSide(t, s).do("SENTINEL", "RESET", "mym")
		got := sb.until(t, 20*time.Second, func(e event) bool { return e.typ == "+reset-master" })
		for n := 0; n < 2; n++ {
			got = append(got, sb.until(t, 20*time.Second, func(e event) bool { return e.typ == "+slave" })...)
		}
		for _, e := range filter(got, "+reset-master", "+slave") {
			evs[i] = append(evs[i], e.typ+" "+e.body)
		}
		sort.Strings(evs[i]) // the two replicas come in INFO order
		s.waitDiscovered(t)
	}
	if d := diffLines(t, evs[0], evs[1]); d != "" {
		t.Errorf("events under announce-hostnames differ:\n%s", d)
	}
	off := seq{name: "hostnames-off", proto: 2, cmds: append([]cmd{c("SENTINEL", "CONFIG", "SET", "announce-hostnames", "no")}, view...)}
	report(t, off, compareSeq(t, ps, off))
	compareConf(t, ps, "after CONFIG SET announce-hostnames no", true)
	resolveOff := seq{name: "hostnames-resolve-off", proto: 2, cmds: []cmd{
		c("SENTINEL", "CONFIG", "SET", "resolve-hostnames", "no"),
		c("SENTINEL", "MONITOR", "other", "localhost", "1", "1"), c("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym"),
	}}
	report(t, resolveOff, compareSeq(t, ps, resolveOff))
}
