package conformance

import (
	"testing"
	"time"
)

// TestHostnameSwitch: with resolve-hostnames yes, switching
// announce-hostnames at run time changes the very next reply
// (GET-MASTER-ADDR-BY-NAME, REPLICAS, MASTER),
// the next event (+reset-master, +slave after a RESET) and the next hello
// the master receives, both ways, exactly as redis-sentinel does.
func TestHostnameSwitch(t *testing.T) {
	t.Parallel()
	announce := []string{"replica-announce-ip localhost"}
	ps := startPair(t, spec{replicas: 1, replicaExtra: [][]string{announce}, body: hostnamesConf})
	for _, s := range ps {
		s.waitDiscovered(t)
	}
	view := []cmd{c("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym"), c("SENTINEL", "MASTER", "mym"),
		u("SENTINEL", "REPLICAS", "mym"), c("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym")}
	for _, mode := range []string{"no", "yes"} {
		// Sent on one connection right after the switch: no time passes
		// for a tick to catch up.
		sq := seq{name: "switch-" + mode, proto: 2, cmds: append([]cmd{c("SENTINEL", "CONFIG", "SET", "announce-hostnames", mode)}, view...)}
		report(t, sq, compareSeq(t, ps, sq))
		var got [2][]string
		for i, s := range ps {
			// A hello published after this subscription was built after
			// the switch (the reply above came first).
			master := &side{name: s.name + "-master", top: s.top, proc: s.top.Master, ports: s.ports, myid: s.myid}
			hc := dialSide(t, master)
			hc.do("SUBSCRIBE", "__sentinel__:hello")
			msg, err := hc.read(10 * time.Second)
			if err != nil || len(msg.Elems) != 3 {
				t.Fatalf("%s: no hello on the master: %v", s.name, err)
			}
			got[i] = append(got[i], "hello: "+s.norm(msg.Elems[2].Str))
			sb := subscribe(t, s, 2)
			dialSide(t, s).do("SENTINEL", "RESET", "mym")
			evs := sb.until(t, 20*time.Second, func(e event) bool { return e.typ == "+slave" })
			for _, e := range filter(evs, "+reset-master", "+slave") {
				got[i] = append(got[i], e.typ+" "+e.body)
			}
			s.waitDiscovered(t)
		}
		if d := diffLines(t, got[0], got[1]); d != "" {
			t.Errorf("announce-hostnames %s: hello/events differ:\n%s", mode, d)
		}
		t.Logf("announce-hostnames %s: %v", mode, got[1])
	}
}
