package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestMasterReboot: the master restarts on its port with a new run_id; the
// sentinel publishes +reboot for it (§16) and keeps it as master.
func TestMasterReboot(t *testing.T) {
	t.Parallel()
	ps := startPair(t, spec{replicas: 1, quorum: 1})
	var got [2]string
	for i, s := range ps {
		s.waitDiscovered(t)
		dialSide(t, s).do("SENTINEL", "DEBUG", "info-period", "300")
		sb := subscribe(t, s, 2)
		port := s.top.Master.Port
		s.top.Master.Kill()
		s.top.Master = testutil.StartRedisOnPort(t, port)
		evs := sb.until(t, 20*time.Second, func(e event) bool { return e.typ == "+reboot" && strings.HasPrefix(e.body, "master ") })
		got[i] = rawOf(filter(evs[len(evs)-1:], "+reboot"))
		s.waitDiscovered(t)
	}
	if got[0] != got[1] {
		t.Errorf("+reboot differs:\nreal: %s\nours: %s", got[0], got[1])
	}
	sq := seq{name: "reboot", proto: 2, cmds: []cmd{
		c("SENTINEL", "MASTER", "mym"), c("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym"), c("INFO", "sentinel"),
	}}
	report(t, sq, compareSeq(t, ps, sq))
}
