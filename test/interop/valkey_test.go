package interop

import (
	"strings"
	"testing"
)

// TestMixedQuorumValkey: gosentinel in one quorum with valkey-sentinel
// 8.0.1 (the same hello and vote protocol; Valkey sends votes as
// is-master-down-by-addr), both directions and both mixes, over
// redis-server and over valkey-server data nodes. Every run must converge
// on one new master (one +switch-master per sentinel), with exactly one
// +failover-end among all sentinels, and the old master rejoin as replica.
func TestMixedQuorumValkey(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	vk := func(q, down int) member { return member{valkey: true, quorum: q, downAfterMs: down} }
	gs := func(q, down int) member { return member{gosentinel: true, quorum: q, downAfterMs: down} }
	tests := []struct {
		name       string
		members    []member
		wantLeader int // index in members, -1: any
	}{
		{"gosentinel leader, 2 valkey voters", []member{gs(1, 1000), vk(2, 20000), vk(2, 20000)}, 0},
		{"valkey leader, gosentinel votes", []member{vk(1, 1000), gs(2, 20000), vk(2, 20000)}, 0},
		{"1 gosentinel + 2 valkey, same config", []member{gs(2, 1000), vk(2, 1000), vk(2, 1000)}, -1},
		{"2 gosentinel + 1 valkey, same config", []member{gs(2, 1000), gs(2, 1000), vk(2, 1000)}, -1},
	}
	for _, nodes := range []string{"redis-server", "valkey-server"} {
		for _, tc := range tests {
			t.Run(nodes+"/"+tc.name, func(t *testing.T) {
				d := startDeploymentNodes(t, tc.members, nodes == "valkey-server")
				newAddr, agree := d.killAndAgree(t)
				ls := d.leaders()
				if len(ls) == 0 {
					t.Fatal("no sentinel logged +elected-leader")
				}
				if tc.wantLeader >= 0 && (len(ls) != 1 || ls[0] != tc.wantLeader) {
					t.Errorf("elected = %v, want only %d", ls, tc.wantLeader)
				}
				ends := 0
				for _, s := range d.sentinels {
					ends += strings.Count(s.Log(), "+failover-end ")
				}
				if ends != 1 {
					t.Errorf("%d +failover-end among the sentinels, want exactly 1", ends)
				}
				var kinds []string
				for _, l := range ls {
					kinds = append(kinds, tc.members[l].kind())
				}
				t.Logf("kill -> all 3 agree on %s in %v; elected: %s", newAddr, agree, strings.Join(kinds, ", "))
				d.oldMasterDemoted(t, newAddr)
			})
		}
	}
}
