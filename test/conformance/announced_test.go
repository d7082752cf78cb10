package conformance

import (
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestReplicaNotAnnounced: a replica with `replica-announced no` is
// counted (num-slaves, INFO slaves=) but omitted from SENTINEL REPLICAS
// (§5).
func TestReplicaNotAnnounced(t *testing.T) {
	t.Parallel()
	ps := startPair(t, spec{replicas: 2, replicaExtra: [][]string{{"replica-announced no"}}, quorum: 1})
	for _, s := range ps {
		cl := dialSide(t, s)
		testutil.WaitFor(t, 20*time.Second, s.name+": both replicas known, one listed", func() bool {
			m := pairs(cl.do("SENTINEL", "MASTER", "mym"))
			reps := cl.do("SENTINEL", "REPLICAS", "mym")
			return m["num-slaves"] == "2" && len(reps.Elems) == 1 && pairs(reps.Elems[0])["master-link-status"] == "ok"
		})
	}
	sq := seq{name: "not-announced", proto: 2, cmds: []cmd{
		c("SENTINEL", "MASTER", "mym"), c("SENTINEL", "REPLICAS", "mym"), c("INFO", "sentinel"),
		{args: []string{"SENTINEL", "INFO-CACHE", "mym"}, fuzzyInts: true},
	}}
	report(t, sq, compareSeq(t, ps, sq))
}
