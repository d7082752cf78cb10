package conformance

import (
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestMonitoredServersWithACL: servers whose default user may only PING.
// With the right auth-user/auth-pass the sentinel sees everything; with a
// wrong password its SUBSCRIBE fails (NOPERM) and the pub/sub link is
// closed, so the master shows "master,disconnected" (§12, §19).
func TestMonitoredServersWithACL(t *testing.T) {
	t.Parallel()
	good := spec{replicas: 1, quorum: 1, authPass: "s3cret",
		extra: "sentinel auth-user mym " + testutil.AuthUser + "\nsentinel auth-pass mym s3cret\n"}
	ps := startPair(t, good)
	for _, s := range ps {
		s.waitDiscovered(t)
	}
	sq := seq{name: "server-acl", proto: 2, cmds: []cmd{
		c("SENTINEL", "MASTER", "mym"), u("SENTINEL", "REPLICAS", "mym"), c("SENTINEL", "FLUSHCONFIG"),
	}}
	report(t, sq, compareSeq(t, ps, sq))
	compareConf(t, ps, "with auth-user/auth-pass", false)

	bad := good
	bad.extra = "sentinel auth-user mym " + testutil.AuthUser + "\nsentinel auth-pass mym wrong\n"
	pb := startPair(t, bad)
	for _, s := range pb {
		cl := dialSide(t, s)
		testutil.WaitFor(t, 15*time.Second, s.name+": master flags settle on master,disconnected", func() bool {
			return pairs(cl.do("SENTINEL", "MASTER", "mym"))["flags"] == "master,disconnected"
		})
	}
	sqb := seq{name: "server-acl-wrong", proto: 2, cmds: []cmd{
		c("SENTINEL", "MASTER", "mym"), c("SENTINEL", "REPLICAS", "mym"), c("SENTINEL", "CKQUORUM", "mym"), c("INFO", "sentinel"),
	}}
	report(t, sqb, compareSeq(t, pb, sqb))
}
