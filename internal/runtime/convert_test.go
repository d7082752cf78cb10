package runtime

import (
	"testing"

	"github.com/gosentinel/gosentinel/internal/config"
	"github.com/gosentinel/gosentinel/internal/core"
)

// TestApplyStateAnnounceHostnames: the rewrite writes hostnames only with
// announce-hostnames yes, else the resolved IP (F6); a name that never
// resolved is written as is.
func TestApplyStateAnnounceHostnames(t *testing.T) {
	m := core.MasterConfig{
		Name: "mym", Quorum: 1,
		Addr:           core.Addr{Host: "localhost", IP: "127.0.0.1", Port: 6379},
		KnownReplicas:  []core.Addr{{Host: "localhost", IP: "127.0.0.1", Port: 6380}, {Host: "nowhere.invalid", Port: 6381}},
		KnownSentinels: []core.KnownSentinel{{Addr: core.Addr{Host: "localhost", IP: "127.0.0.1", Port: 26380}, RunID: "x"}},
	}
	tests := []struct {
		announce bool
		want     [4]string // master, replica 1, replica 2, sentinel
	}{
		{false, [4]string{"127.0.0.1", "127.0.0.1", "nowhere.invalid", "127.0.0.1"}},
		{true, [4]string{"localhost", "localhost", "nowhere.invalid", "localhost"}},
	}
	for _, tc := range tests {
		c := &config.Config{}
		applyState(c, core.State{AnnounceHostnames: tc.announce, ResolveHostnames: true, Masters: []core.MasterConfig{m}}, 0)
		cm := c.Sentinel.Masters[0]
		got := [4]string{cm.Host, cm.KnownReplicas[0].Host, cm.KnownReplicas[1].Host, cm.KnownSentinels[0].Host}
		if got != tc.want {
			t.Errorf("announce-hostnames %v: %v, want %v", tc.announce, got, tc.want)
		}
	}
}

// TestApplyStateAnnounceIPSet: an announce-ip set to "" at run time reaches
// the config, which writes `sentinel announce-ip ""` like Redis (F2).
func TestApplyStateAnnounceIPSet(t *testing.T) {
	for _, set := range []bool{false, true} {
		c := &config.Config{}
		applyState(c, core.State{AnnounceIPSet: set}, 0)
		if c.Sentinel.AnnounceIPSet != set {
			t.Errorf("State.AnnounceIPSet %v → config %v", set, c.Sentinel.AnnounceIPSet)
		}
	}
}

// TestVoterFloorClock: a voter floor's expiry, on the core's clock of one
// process, is written as a Unix time and read back on the clock of the
// next process at the same instant.
func TestVoterFloorClock(t *testing.T) {
	const startA, startB = 1764800000000, 1764800003000 // Unix ms
	c := &config.Config{}
	applyState(c, core.State{Masters: []core.MasterConfig{{Name: "mym", Quorum: 1, VoterFloor: 3, VoterFloorUntil: 5000}}}, startA)
	cm := c.Sentinel.Masters[0]
	if cm.VoterFloor != 3 || cm.VoterFloorExpiry != startA+5000-1 {
		t.Fatalf("written floor %d until %d, want 3 until %d", cm.VoterFloor, cm.VoterFloorExpiry, startA+5000-1)
	}
	cc := coreConfig(c, core.Timing{}, nil, startB)
	if m := cc.Masters[0]; m.VoterFloor != 3 || m.VoterFloorUntil != 2000 {
		t.Fatalf("loaded floor %d until %d, want 3 until 2000 (5 s after A's start, 2 s after B's)", m.VoterFloor, m.VoterFloorUntil)
	}
	c.Sentinel.Masters[0].VoterFloor = 0
	if m := coreConfig(c, core.Timing{}, nil, startB).Masters[0]; m.VoterFloor != 0 || m.VoterFloorUntil != 0 {
		t.Fatalf("floor loaded from no line: %+v", m)
	}
}
