package conformance

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestSeenByTheMaster compares what a monitored redis-server sees of the
// sentinel: its connection names (CLIENT LIST) and the hello messages it
// publishes on __sentinel__:hello.
func TestSeenByTheMaster(t *testing.T) {
	t.Parallel()
	ps := startPair(t, spec{replicas: 1, quorum: 1})
	var got [2]string
	for i, s := range ps {
		s.waitDiscovered(t)
		master := &side{name: s.name + "-master", top: s.top, proc: s.top.Master, ports: s.ports, myid: s.myid}
		mc := dialSide(t, master)
		var names []string
		testutil.WaitFor(t, 10*time.Second, s.name+": both links named on the master", func() bool {
			names = names[:0]
			for _, l := range strings.Split(mc.do("CLIENT", "LIST").Str, "\n") {
				for _, f := range strings.Fields(l) {
					if n, ok := strings.CutPrefix(f, "name="); ok && strings.HasPrefix(n, "sentinel-") {
						names = append(names, strings.ReplaceAll(n, s.myid[:8], "<id8>"))
					}
				}
			}
			return len(names) == 2
		})
		sort.Strings(names)
		hc := dialSide(t, master)
		hc.do("SUBSCRIBE", "__sentinel__:hello")
		msg, err := hc.read(10 * time.Second)
		if err != nil || len(msg.Elems) != 3 {
			t.Fatalf("%s: no hello on the master: %v %s", s.name, err, s.render(msg))
		}
		got[i] = strings.Join(names, " ") + "\nhello: " + s.norm(msg.Elems[2].Str)
	}
	if want := "sentinel-<id8>-cmd sentinel-<id8>-pubsub\nhello: 127.0.0.1,<sentinel-port>,<myid>,0,mym,127.0.0.1,<master-port>,0"; got[0] != want {
		t.Errorf("real sentinel, seen by its master: %q, want %q", got[0], want)
	}
	if got[0] != got[1] {
		t.Errorf("seen by the master:\nreal: %s\nours: %s", got[0], got[1])
	}
}
