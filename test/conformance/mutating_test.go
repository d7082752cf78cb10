package conformance

import (
	"strings"
	"testing"
	"time"
)

// mutating changes the state in ways both sides must reply to and publish
// identically; the last command is the marker the subscribers wait for.
var mutating = []cmd{
	c("SENTINEL", "SET", "mym", "quorum", "2"), c("SENTINEL", "CKQUORUM", "mym"),
	c("SENTINEL", "SET", "mym", "down-after-milliseconds", "5000", "parallel-syncs", "2", "failover-timeout", "60000"),
	c("SENTINEL", "SET", "mym", "quorum", "1", "foo", "bar"), c("SENTINEL", "SET", "mym", "quorum", "1"),
	c("SENTINEL", "SET", "mym", "auth-pass", "secret"), c("SENTINEL", "SET", "mym", "auth-pass", ""),
	c("SENTINEL", "SET", "mym", "auth-user", "bob"), c("SENTINEL", "SET", "mym", "auth-user", ""),
	c("SENTINEL", "SET", "mym", "rename-command", "CONFIG", "MYCONFIG"),
	c("SENTINEL", "SET", "mym", "rename-command", "CONFIG", "config"),
	c("SENTINEL", "SET", "mym", "master-reboot-down-after-period", "0"),
	c("SENTINEL", "SET", "mym", "notification-script", ""),
	c("SENTINEL", "SET", "mym", "quorum", "2", "parallel-syncs", "x"),
	c("SENTINEL", "SET", "mym", "rename-command", "", "X"), c("SENTINEL", "SET", "mym", "rename-command", "X", ""),
	c("SENTINEL", "SET", "mym", "rename-command", "CONFIG"), c("SENTINEL", "SET", "mym", "quorum"),
	c("SENTINEL", "SET", "mym", "down-after-milliseconds", "0"), c("SENTINEL", "SET", "mym", "master-reboot-down-after-period", "-1"),
	c("SENTINEL", "SET", "mym", "failover-timeout", "1x", "quorum", "2"), c("SENTINEL", "SET", "mym", "QUORUM", "2", "Parallel-Syncs", "1"),
	c("SENTINEL", "CONFIG", "SET", "deny-scripts-reconfig", "no"),
	c("SENTINEL", "CONFIG", "SET", "announce-port", "0"), c("SENTINEL", "CONFIG", "SET", "resolve-hostnames", "no"),
	c("SENTINEL", "CONFIG", "SET", "announce-hostnames", "no"), c("SENTINEL", "CONFIG", "SET", "announce-ip", ""),
	c("SENTINEL", "CONFIG", "GET", "*"),
	c("SENTINEL", "MONITOR", "a", "127.0.0.1", "0", "1"), c("SENTINEL", "MONITOR", "b", "127.0.0.1", "{R0}", "2"),
	c("SENTINEL", "CKQUORUM", "b"), u("ROLE"), c("SENTINEL", "REMOVE", "a"), c("SENTINEL", "REMOVE", "b"),
	c("SENTINEL", "RESET", "nomatch"), c("SENTINEL", "RESET", "mym"), c("SENTINEL", "RESET", "*"),
	c("SENTINEL", "SET", "mym", "quorum", "7"),
}

// commandEvents are the event types the mutating commands publish.
var commandEvents = []string{"+set", "+monitor", "-monitor", "+reset-master"}

func TestCommandsMutating(t *testing.T) {
	t.Parallel()
	ps := startPair(t, spec{replicas: 1, quorum: 1})
	var evs [2][][]event
	var replies [2][]string
	sq := seq{name: "mutating", proto: 2, cmds: mutating}
	for i, s := range ps {
		s.waitDiscovered(t)
		subs := []*subscriber{subscribe(t, s, 2), subscribe(t, s, 3)}
		replies[i] = s.replies(t, sq)
		for _, sb := range subs {
			got := sb.until(t, 10*time.Second, func(e event) bool { return e.typ == "+set" && strings.HasSuffix(e.body, "quorum 7") })
			evs[i] = append(evs[i], filter(got, commandEvents...))
		}
	}
	var diffs []diff
	for k := range sq.cmds {
		if replies[0][k] != replies[1][k] {
			diffs = append(diffs, diff{cmd: strings.Join(sq.cmds[k].args, " "), real: replies[0][k], ours: replies[1][k]})
		}
	}
	report(t, sq, diffs)
	for j := range evs[0] {
		if n := len(evs[0][j]); n < 15 {
			t.Errorf("real sentinel published only %d command events to subscriber %d: the sequence no longer exercises them", n, j)
		}
		if a, b := rawOf(evs[0][j]), rawOf(evs[1][j]); a != b {
			t.Errorf("events seen by subscriber %d (RESP%d) differ:\nreal:\n%s\nours:\n%s", j, j+2, a, b)
		}
	}
}
