package client

import (
	"context"
	"fmt"
	"net"
	"testing"
)

// TestReplicaRefreshRace covers the two races behind the flaky
// TestReplicaClientDropsPromotedReplica: a replica resolution that a hint
// superseded must change nothing (it would put back a list the hint made
// obsolete), and a connection that stays tracked until go-redis closes it
// is retired, and counted as a pool flush, once however many resolutions
// find it again.
func TestReplicaRefreshRace(t *testing.T) {
	t.Parallel()
	const r0, r1 = "127.0.0.1:7000", "127.0.0.1:7001"
	tests := []struct {
		name        string
		runs        []bool // one resolution per entry: true = superseded by a hint before it ends
		wantList    string // replica list afterwards
		wantStale   bool   // the connection to r0 was retired
		wantFlushes uint64
	}{
		{"fresh resolution retires the promoted replica", []bool{false}, fmt.Sprint([]string{r1}), true, 1},
		{"superseded resolution changes nothing", []bool{true}, fmt.Sprint([]string{r0}), false, 0},
		{"second resolution does not count the same connection", []bool{false, false}, fmt.Sprint([]string{r1}), true, 1},
		{"superseded then fresh", []bool{true, false}, fmt.Sprint([]string{r1}), true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs := startFakeSentinel(t, "127.0.0.1:6999", 1)
			fs.mu.Lock()
			fs.replicas = []map[string]string{replicaEntry(r1, "slave", "ok")}
			fs.mu.Unlock()
			o := &FailoverOptions{MasterName: "mymaster", SentinelAddrs: []string{fs.addr()}}
			r := newResolver(o.withDefaults(), roleSlave)
			t.Cleanup(r.shutdown)
			r.replicas = []replicaInfo{{addr: r0, flags: "slave", linkOK: true}}
			a, b := net.Pipe()
			t.Cleanup(func() { a.Close(); b.Close() })
			tc0 := r.track(a, 0, r0).(*trackedConn)
			for i, superseded := range tc.runs {
				c := &call{superseded: superseded}
				err := r.resolveReplicas(context.Background(), c)
				if superseded != (err != nil) {
					t.Fatalf("run %d (superseded %v): err %v", i, superseded, err)
				}
			}
			var got []string
			for _, ri := range r.replicas {
				got = append(got, ri.addr)
			}
			st := r.snapshot()
			if fmt.Sprint(got) != tc.wantList || tc0.stale.Load() != tc.wantStale || st.PoolFlushes != tc.wantFlushes {
				t.Fatalf("list %v stale %v flushes %d, want %s %v %d",
					got, tc0.stale.Load(), st.PoolFlushes, tc.wantList, tc.wantStale, tc.wantFlushes)
			}
		})
	}
}
