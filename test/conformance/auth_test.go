package conformance

import "testing"

func TestRequirepassAndACL(t *testing.T) {
	t.Parallel()
	ps := startPair(t, spec{replicas: 0, quorum: 1, extra: "requirepass secret\n", password: "secret"})
	for _, s := range ps {
		s.waitDiscovered(t)
	}
	before := seq{name: "auth", proto: 2, cmds: []cmd{
		c("PING"), c("SENTINEL", "MASTERS"), c("ROLE"), c("INFO"), c("HELLO", "3"), c("QUIT"),
		c("AUTH", "nope"), c("AUTH", "default", "nope"), c("AUTH", "a", "b", "c"), c("HELLO", "3", "AUTH", "default", "nope"),
		c("AUTH", "secret"), c("PING"), c("ACL", "WHOAMI"), c("SENTINEL", "MASTER", "mym"),
		c("ACL", "SETUSER", "ops", "on", ">pw", "~*", "&*", "+@all"),
		c("ACL", "SETUSER", "ro", "on", ">ro", "-@all", "+ping", "+sentinel|get-master-addr-by-name"),
		c("ACL", "LIST"), c("ACL", "USERS"), c("SENTINEL", "FLUSHCONFIG"),
	}}
	report(t, before, compareSeq(t, ps, before))
	compareConf(t, ps, "after ACL SETUSER and FLUSHCONFIG", false)
	restricted := seq{name: "auth-ro", proto: 2, cmds: []cmd{
		c("AUTH", "ro", "ro"), c("PING"), c("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym"),
		c("SENTINEL", "MASTERS"), c("SENTINEL", "FAILOVER", "mym"), c("INFO"), c("ACL", "WHOAMI"),
		c("PUBLISH", "__sentinel__:hello", "x"), c("SUBSCRIBE", "+switch-master"),
	}}
	report(t, restricted, compareSeq(t, ps, restricted))
	off := seq{name: "auth-off", proto: 2, cmds: []cmd{
		c("AUTH", "ops", "pw"), c("ACL", "SETUSER", "default", "off"), c("ACL", "DELUSER", "ro"),
		c("CLIENT", "KILL", "USER", "nobody"), c("ACL", "GETUSER", "default"),
	}}
	report(t, off, compareSeq(t, ps, off))
	after := seq{name: "auth-after-off", proto: 3, cmds: []cmd{
		c("PING"), c("AUTH", "secret"), c("AUTH", "ops", "pw"), c("PING"),
	}}
	after.proto = 2
	report(t, after, compareSeq(t, ps, after))
}
