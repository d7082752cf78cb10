package conformance

import (
	"testing"
)

// renamedServer renames every command Sentinel sends to a Redis server
// (§19), as hardened deployments do.
// PING keeps its name: the harness's readiness probe needs it. SUBSCRIBE
// too: real redis-sentinel 7.0.15 aborts (hiredis: "redisProcessCallbacks:
// Assertion `c->flags & REDIS_SUBSCRIBED' failed", observed) when it
// subscribes under another name, since hiredis only recognises "subscribe".
var renamedServer = []string{
	"rename-command CONFIG S7CONFIG", "rename-command SLAVEOF S7SLAVEOF", "rename-command REPLICAOF \"\"",
	"rename-command INFO S7INFO", "rename-command CLIENT S7CLIENT",
	"rename-command MULTI S7MULTI", "rename-command EXEC S7EXEC", "rename-command PUBLISH S7PUBLISH",
	"rename-command SCRIPT S7SCRIPT",
}

// renamedConf is the matching per-master rename-command list.
const renamedConf = `sentinel rename-command mym CONFIG S7CONFIG
sentinel rename-command mym SLAVEOF S7SLAVEOF
sentinel rename-command mym INFO S7INFO
sentinel rename-command mym CLIENT S7CLIENT
sentinel rename-command mym MULTI S7MULTI
sentinel rename-command mym EXEC S7EXEC
sentinel rename-command mym PUBLISH S7PUBLISH
sentinel rename-command mym SCRIPT S7SCRIPT
`

// TestRenamedServerCommands: monitoring, discovery and a forced failover
// through renamed commands (the SLAVEOF transaction included, §14).
func TestRenamedServerCommands(t *testing.T) {
	t.Parallel()
	sp := spec{replicas: 2, replicaExtra: [][]string{{"replica-priority 10"}}, quorum: 1, failover: 30000,
		serverExtra: renamedServer, extra: renamedConf}
	ps := startPair(t, sp)
	var seqs [2][]string
	for i, s := range ps {
		s.waitDiscovered(t)
		dialSide(t, s).do("SENTINEL", "DEBUG", "info-period", "300", "publish-period", "200")
		_, evs := failoverEvents(t, s, 2)
		for _, e := range evs {
			if !timingEvents[e.typ] {
				seqs[i] = append(seqs[i], e.typ+" "+e.body)
			}
		}
	}
	if d := diffLines(t, seqs[0], seqs[1]); d != "" {
		t.Errorf("failover through renamed commands differs:\n%s", d)
	}
	for _, s := range ps {
		s.waitDiscovered(t)
	}
	sq := seq{name: "renamed-servers", proto: 2, cmds: []cmd{
		c("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym"), c("SENTINEL", "MASTER", "mym"),
		u("SENTINEL", "REPLICAS", "mym"), c("SENTINEL", "FLUSHCONFIG"),
	}}
	report(t, sq, compareSeq(t, ps, sq))
	compareConf(t, ps, "with renamed server commands after a failover", true)
}
