package conformance

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
	"github.com/gosentinel/gosentinel/internal/testutil"
)

// addPeers starts n more sentinels of s's implementation on the same conf
// body, shortens everyone's hello period and waits until s knows them all.
func (s *side) addPeers(t *testing.T, sp spec, n int) []*testutil.Process {
	t.Helper()
	var peers []*testutil.Process
	for i := 0; i < n; i++ {
		port := testutil.FreePort(t)
		dir := t.TempDir()
		conf := filepath.Join(dir, "sentinel.conf")
		if err := os.WriteFile(conf, []byte(sp.confBody(port, s.top.Master.Port)), 0o644); err != nil {
			t.Fatal(err)
		}
		var p *testutil.Process
		if s.password != "" {
			p = testutil.StartSentinelNoAuth(t, s.bin, conf, port)
		} else {
			p = testutil.StartSentinelConf(t, s.bin, conf, port, filepath.Join(dir, "sentinel.log"))
		}
		s.ports[strconv.Itoa(port)] = "<peer-port>"
		peers = append(peers, p)
	}
	for _, addr := range append([]string{s.addr()}, addrs(peers)...) {
		cl, err := dialQuiet(addr)
		if err != nil {
			t.Fatal(err)
		}
		if s.password != "" {
			if _, err := cl.try("AUTH", s.password); err != nil {
				t.Fatal(err)
			}
		}
		_, err = cl.try("SENTINEL", "DEBUG", "publish-period", "200", "info-period", "300")
		cl.close()
		if err != nil {
			t.Fatal(err)
		}
	}
	testutil.WaitFor(t, 20*time.Second, s.name+" sees its peers connected", func() bool {
		cl, err := dialQuiet(s.addr())
		if err != nil {
			return false
		}
		defer cl.close()
		if s.password != "" {
			if _, err := cl.try("AUTH", s.password); err != nil {
				return false
			}
		}
		v, err := cl.try("SENTINEL", "SENTINELS", "mym")
		if err != nil || len(v.Elems) != n {
			return false
		}
		for _, e := range v.Elems {
			if pairs(e)["flags"] != "sentinel" {
				return false
			}
		}
		return true
	})
	return peers
}

func addrs(ps []*testutil.Process) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Addr())
	}
	return out
}

func TestPeers(t *testing.T) {
	t.Parallel()
	sp := spec{replicas: 1, quorum: 2}
	ps := startPair(t, sp)
	var peers [2][]*testutil.Process
	for i, s := range ps {
		s.waitDiscovered(t)
		peers[i] = s.addPeers(t, sp, 2)
	}
	// Tools read num-other-sentinels at index 33 of the flat RESP2 array.
	for _, s := range ps {
		m := dialSide(t, s).do("SENTINEL", "MASTER", "mym")
		if len(m.Elems) < 34 || m.Elems[32].Str != "num-other-sentinels" || m.Elems[33].Str != "2" {
			t.Errorf("%s: SENTINEL MASTER index 32/33 = %s", s.name, s.render(m))
		}
	}
	up := seq{name: "peers", proto: 2, cmds: []cmd{
		c("SENTINEL", "MASTER", "mym"), u("SENTINEL", "SENTINELS", "mym"), c("SENTINEL", "CKQUORUM", "mym"),
		c("SENTINEL", "SET", "mym", "quorum", "3"), c("SENTINEL", "CKQUORUM", "mym"),
		c("SENTINEL", "SET", "mym", "quorum", "4"), c("SENTINEL", "CKQUORUM", "mym"), c("INFO", "sentinel"),
		c("SENTINEL", "SET", "mym", "down-after-milliseconds", "1000"),
	}}
	report(t, up, compareSeq(t, ps, up))
	up.name, up.proto = "peers-resp3", 3
	up.cmds = up.cmds[:3]
	report(t, up, compareSeq(t, ps, up))
	// Both peers down: the majority text, then both texts.
	for i, s := range ps {
		for _, p := range peers[i] {
			p.Kill()
		}
		testutil.WaitFor(t, 15*time.Second, s.name+" sees its peers s_down", func() bool {
			cl, err := dialQuiet(s.addr())
			if err != nil {
				return false
			}
			defer cl.close()
			v, err := cl.try("SENTINEL", "SENTINELS", "mym")
			if err != nil || len(v.Elems) != 2 {
				return false
			}
			for _, e := range v.Elems {
				if pairs(e)["flags"] != "s_down,sentinel,disconnected" {
					return false
				}
			}
			return true
		})
	}
	down := seq{name: "peers-down", proto: 2, cmds: []cmd{
		c("SENTINEL", "SET", "mym", "quorum", "1"), c("SENTINEL", "CKQUORUM", "mym"),
		c("SENTINEL", "SET", "mym", "quorum", "2"), c("SENTINEL", "CKQUORUM", "mym"),
		u("SENTINEL", "SENTINELS", "mym"), c("INFO", "sentinel"),
	}}
	report(t, down, compareSeq(t, ps, down))
	compareConf(t, ps, "with two known sentinels", true)
}

func TestVotes(t *testing.T) {
	t.Parallel()
	ps := startPair(t, spec{replicas: 0, quorum: 1})
	for _, s := range ps {
		s.waitDiscovered(t)
	}
	other := "1111111111111111111111111111111111111111"
	// The votes are compared while both see the master S_DOWN: gosentinel
	// votes only then (votegate_test.go); the vote rules themselves are
	// sentinel.c's and compared byte for byte.
	var resume [2]func()
	for i, s := range ps {
		resume[i] = s.seeMasterDown(t)
	}
	sq := seq{name: "votes", proto: 2, cmds: []cmd{
		c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "{M}", "0", "*"),
		c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "{M}", "5", other),
		c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "{M}", "5", "{ID}"),
		c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "{M}", "4", "{ID}"),
		c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "{M}", "6", "{ID}"),
		c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "1", "9", other),
		c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "{M}", "7", "short-runid"),
	}}
	report(t, sq, compareSeq(t, ps, sq))
	sq3 := seq{name: "votes-resp3", proto: 3, cmds: []cmd{
		c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "{M}", "8", other),
		c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "{M}", "8", "{ID}"),
	}}
	report(t, sq3, compareSeq(t, ps, sq3))
	for i := range ps {
		resume[i]()
	}
	after := seq{name: "after-votes", proto: 2, cmds: []cmd{
		c("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "{M}", "8", other), // our stored vote: the gate lets it through
		c("SENTINEL", "MASTER", "mym"), c("INFO", "sentinel"),
	}}
	report(t, after, compareSeq(t, ps, after))
	compareConf(t, ps, "after votes", false)
	healthyMasterVoteRefused(t, ps, 10, other)
	negativeEpochRefused(t, ps, other)
}

// negativeEpochRefused is a deliberate difference (docs/security.md, epoch
// poisoning): a vote request with epoch -1 makes real Sentinel 7.0.15 save
// current-epoch 18446744073709551615; gosentinel refuses it with an error
// and keeps its epoch. It runs after the compared sequence so that the
// rest of TestVotes still compares byte for byte.
func negativeEpochRefused(t *testing.T, ps [2]*side, other string) {
	t.Helper()
	for _, s := range ps {
		cl, err := dialQuiet(s.addr())
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		v, err := cl.try("SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", s.expand("{M}"), "-1", other)
		cl.close()
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		switch s.name {
		case "ours":
			if v.Kind != resp.KindError || !strings.Contains(v.Str, "negative") {
				t.Errorf("ours: epoch -1 answered %+v, want an error saying epochs are never negative", v)
			}
		default:
			if v.Kind == resp.KindError {
				t.Logf("real: epoch -1 answered %q (newer Redis may refuse it too)", v.Str)
			} else {
				t.Logf("real: epoch -1 accepted (%d elements): it now saves current-epoch 2^64-1", len(v.Elems))
			}
		}
	}
}

// TestPeersWithRequirepass: sentinels protected by requirepass and no
// sentinel-pass authenticate to each other with their own requirepass
// (§19): the peer answers PING validly, so it never goes s_down.
func TestPeersWithRequirepass(t *testing.T) {
	t.Parallel()
	sp := spec{replicas: 0, quorum: 1, downAfter: 2000, extra: "requirepass pw\n", password: "pw"}
	ps := startPair(t, sp)
	for _, s := range ps {
		s.waitDiscovered(t)
		s.addPeers(t, sp, 1)
	}
	var flags [2]string
	for i, s := range ps {
		cl := dialSide(t, s)
		cl.do("AUTH", "pw")
		// A peer that is not authenticated answers -NOAUTH to every PING:
		// its last valid reply ages past down-after (2 s) and it goes
		// s_down. Watch for 3 s: the observation window is the test.
		worst := 0
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			p := pairs(cl.do("SENTINEL", "SENTINELS", "mym").Elems[0])
			ok, err := strconv.Atoi(p["last-ok-ping-reply"])
			if err != nil || ok > worst {
				worst = ok
			}
			flags[i] = p["flags"]
		}
		if worst > 1500 {
			t.Errorf("%s: peer's last valid PING reply aged to %d ms (flags %q)", s.name, worst, flags[i])
		}
	}
	if flags[0] != flags[1] || flags[0] != "sentinel" {
		t.Errorf("peer flags: real %q, ours %q", flags[0], flags[1])
	}
}
