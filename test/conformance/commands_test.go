package conformance

import (
	"testing"
)

// readOnly are commands that change nothing (or set a value to what it
// already is); they run in RESP2 and RESP3 on one pair.
var readOnly = []cmd{
	c("PING"), c("PING", "x"), u("ROLE"), c("ROLE", "x"), c("QUIT"), c("GET", "a"), c("CONFIG", "GET", "*"),
	c("SENTINEL"), c("SENTINEL", "FOO"), c("SENTINEL", "HELP"), c("SENTINEL", "HELP", "x"),
	c("SENTINEL", "MASTERS", "x"), c("SENTINEL", "MASTER"), c("SENTINEL", "MASTER", "a", "b"),
	c("SENTINEL", "REPLICAS"), c("SENTINEL", "SLAVES"), c("SENTINEL", "SENTINELS"),
	c("SENTINEL", "GET-MASTER-ADDR-BY-NAME"), c("SENTINEL", "MYID", "x"),
	c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "a", "b", "c"), c("SENTINEL", "RESET"),
	c("SENTINEL", "FAILOVER"), c("SENTINEL", "PENDING-SCRIPTS", "x"), c("SENTINEL", "MONITOR", "a", "b", "c"),
	c("SENTINEL", "FLUSHCONFIG", "x"), c("SENTINEL", "REMOVE"), c("SENTINEL", "CKQUORUM"),
	c("SENTINEL", "SET", "mym", "quorum"), c("SENTINEL", "CONFIG"), c("SENTINEL", "CONFIG", "GET"),
	c("SENTINEL", "INFO-CACHE"), c("SENTINEL", "SIMULATE-FAILURE"),
	c("SENTINEL", "MASTER", "nosuch"), c("SENTINEL", "REPLICAS", "nosuch"), c("SENTINEL", "SLAVES", "nosuch"),
	c("SENTINEL", "SENTINELS", "nosuch"), c("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "nosuch"),
	c("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym"), c("SENTINEL", "get-master-addr-by-name", "mym"),
	c("SENTINEL", "RESET", "nosuch*"), c("SENTINEL", "FAILOVER", "nosuch"), c("SENTINEL", "CKQUORUM", "nosuch"),
	c("SENTINEL", "CKQUORUM", "mym"), c("SENTINEL", "SET", "nosuch", "quorum", "2"),
	c("SENTINEL", "REMOVE", "nosuch"), c("SENTINEL", "INFO-CACHE", "nosuch"),
	c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "x", "0", "*"),
	c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "1", "x", "*"),
	c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "1", "0", "*"),
	c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "{M}", "0", "*"),
	c("SENTINEL", "MONITOR", "a", "127.0.0.1", "x", "y"), c("SENTINEL", "MONITOR", "a", "127.0.0.1", "x", "1"),
	c("SENTINEL", "MONITOR", "a", "127.0.0.1", "1", "0"), c("SENTINEL", "MONITOR", "a", "127.0.0.1", "1", "-1"),
	c("SENTINEL", "MONITOR", "a", "no.such.host.invalid", "1", "1"), c("SENTINEL", "MONITOR", "a", "localhost", "1", "1"),
	c("SENTINEL", "MONITOR", "mym", "127.0.0.1", "1", "1"), c("SENTINEL", "MONITOR", "a", "127.0.0.1", "70000", "1"),
	c("SENTINEL", "MONITOR", "mym", "127.0.0.1", "70000", "1"),
	c("SENTINEL", "MONITOR", "mym", "127.0.0.1", "-5", "1"), c("SENTINEL", "MONITOR", "a", "127.0.0.1", "-5", "1"),
	c("SENTINEL", "SET", "mym", "foo", "1"), c("SENTINEL", "SET", "mym", "quorum", "x"),
	c("SENTINEL", "SET", "mym", "quorum", "0"), c("SENTINEL", "SET", "mym", "quorum", "-1"),
	c("SENTINEL", "SET", "mym", "down-after-milliseconds", "0"), c("SENTINEL", "SET", "mym", "failover-timeout", "x"),
	c("SENTINEL", "SET", "mym", "parallel-syncs", "0"), c("SENTINEL", "SET", "mym", "master-reboot-down-after-period", "-1"),
	c("SENTINEL", "SET", "mym", "notification-script", "/bin/true"), c("SENTINEL", "SET", "mym", "client-reconfig-script", ""),
	c("SENTINEL", "SET", "mym", "rename-command", "a"), c("SENTINEL", "SET", "mym", "rename-command", "", "b"),
	c("SENTINEL", "SET", "mym", "quorum", "1", "foo"),
	c("SENTINEL", "CONFIG", "GET", "*"), c("SENTINEL", "CONFIG", "GET", "resolve-hostnames"),
	c("SENTINEL", "CONFIG", "GET", "ANNOUNCE-*"), c("SENTINEL", "CONFIG", "GET", "nosuch"),
	c("SENTINEL", "CONFIG", "SET", "nosuch", "x"), c("SENTINEL", "CONFIG", "SET", "resolve-hostnames", "maybe"),
	c("SENTINEL", "CONFIG", "SET", "announce-port", "x"), c("SENTINEL", "CONFIG", "FOO", "x"),
	c("SENTINEL", "CONFIG", "GET", "a", "b"), c("SENTINEL", "CONFIG", "SET", "a"),
	c("SENTINEL", "DEBUG"), c("SENTINEL", "DEBUG", "foo", "1"), c("SENTINEL", "DEBUG", "ping-period", "x"),
	c("SENTINEL", "DEBUG", "ping-period", "0"), c("SENTINEL", "DEBUG", "ping-period"),
	c("SENTINEL", "DEBUG", "ping-period", "1000"), c("SENTINEL", "DEBUG", "PING-PERIOD", "1000", "ask-period"),
	c("SENTINEL", "PENDING-SCRIPTS"), c("SENTINEL", "SIMULATE-FAILURE", "HELP"),
	c("SENTINEL", "SIMULATE-FAILURE", "foo"), c("SENTINEL", "simulate-failure", "help", "x"),
	c("SENTINEL", "MYID"), u("SENTINEL", "MASTERS"), c("SENTINEL", "MASTER", "mym"),
	c("SENTINEL", "REPLICAS", "mym"), c("SENTINEL", "SLAVES", "mym"), c("SENTINEL", "SENTINELS", "mym"),
	{args: []string{"SENTINEL", "INFO-CACHE", "mym"}, fuzzyInts: true},
	{args: []string{"SENTINEL", "INFO-CACHE", "nosuch", "mym", "mym"}, fuzzyInts: true},
	c("SENTINEL", "FLUSHCONFIG"), c("SENTINEL", "CKQUORUM", "mym"),
	c("PUBLISH", "x", "y"), c("PUBLISH", "__sentinel__:hello", "garbage"),
	c("COMMAND", "COUNT"), u("COMMAND", "LIST"), c("CLIENT", "SETNAME", "x"), c("CLIENT", "GETNAME"),
	c("INFO", "foo"), c("SHUTDOWN", "x", "y", "z"),
}

func TestCommandsReadOnly(t *testing.T) {
	t.Parallel()
	ps := startPair(t, spec{replicas: 1, quorum: 1})
	for _, s := range ps {
		s.waitDiscovered(t)
	}
	for _, proto := range []int{2, 3} {
		sq := seq{name: "readonly", proto: proto, cmds: readOnly}
		report(t, sq, compareSeq(t, ps, sq))
	}
}
