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
		applyState(c, core.State{AnnounceHostnames: tc.announce, ResolveHostnames: true, Masters: []core.MasterConfig{m}})
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
		applyState(c, core.State{AnnounceIPSet: set})
		if c.Sentinel.AnnounceIPSet != set {
			t.Errorf("State.AnnounceIPSet %v → config %v", set, c.Sentinel.AnnounceIPSet)
		}
	}
}

// TestVoterFloorLeft: a voter floor's window left is written and read
// back as a number of milliseconds, with no clock in between (the window
// runs only while the sentinel can hear its peers, docs/core.md decision
// 33: the time between two processes does not use it up).
func TestVoterFloorLeft(t *testing.T) {
	c := &config.Config{}
	applyState(c, core.State{Masters: []core.MasterConfig{{Name: "mym", Quorum: 1, VoterFloor: 3, VoterFloorLeft: 5000}}})
	cm := c.Sentinel.Masters[0]
	if cm.VoterFloor != 3 || cm.VoterFloorLeft != 5000 {
		t.Fatalf("written floor %d with %d ms left, want 3 with 5000", cm.VoterFloor, cm.VoterFloorLeft)
	}
	if m := coreConfig(c, core.Timing{}, nil).Masters[0]; m.VoterFloor != 3 || m.VoterFloorLeft != 5000 {
		t.Fatalf("loaded floor %d with %d ms left, want 3 with 5000", m.VoterFloor, m.VoterFloorLeft)
	}
	c.Sentinel.Masters[0].VoterFloor = 0
	if m := coreConfig(c, core.Timing{}, nil).Masters[0]; m.VoterFloor != 0 || m.VoterFloorLeft != 0 {
		t.Fatalf("floor loaded from no line: %+v", m)
	}
}
