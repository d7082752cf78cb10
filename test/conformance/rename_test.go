package conformance

import "testing"

// TestRenameOwnCommands: rename-command in sentinel.conf renames the
// sentinel's own commands.
func TestRenameOwnCommands(t *testing.T) {
	t.Parallel()
	ps := startPair(t, spec{replicas: 0, quorum: 1, extra: "rename-command SENTINEL XSENTINEL\nrename-command ROLE \"\"\n"})
	sq := seq{name: "rename", proto: 2, cmds: []cmd{
		c("SENTINEL", "MASTERS"), c("XSENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym"), c("ROLE"),
		c("XSENTINEL", "FOO"), c("XSENTINEL"), c("COMMAND", "COUNT"), c("COMMAND", "INFO", "xsentinel|myid"),
		c("XSENTINEL", "FLUSHCONFIG"),
	}}
	report(t, sq, compareSeq(t, ps, sq))
	compareConf(t, ps, "with renamed commands", false)
}
