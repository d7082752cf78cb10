package client

import (
	"net"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// promotedPayload is the +promoted-slave message of the failover leader
// for mymaster: replica new promoted, old the master it replaces.
func promotedPayload(old, new string) string {
	oh, op, _ := net.SplitHostPort(old)
	nh, np, _ := net.SplitHostPort(new)
	return "slave " + new + " " + nh + " " + np + " @ mymaster " + oh + " " + op
}

// TestEventNamedMasterWithoutQuery: when an event from a subscribed
// sentinel fences the current master (+promoted-slave from the failover
// leader, or +switch-master), the client verifies the master the event
// names with ROLE and switches to it without a sentinel query: here the
// sentinel stops answering right after the event, and the client still
// writes to the new master, having sent no GET-MASTER-ADDR-BY-NAME. Before,
// the resolution after the fence waited for a sentinel's answer (a fleet
// of 1000 clients asked the leader at the same moment: +0.2–4 s).
func TestEventNamedMasterWithoutQuery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		channel string
		payload func(old, new string) string
	}{
		{chanPromotedSlave, promotedPayload},
		{chanSwitchMaster, switchPayload},
	} {
		t.Run(tc.channel, func(t *testing.T) {
			t.Parallel()
			top := testutil.StartTopology(t, 1)
			oldAddr, newAddr := top.Master.Addr(), top.Replicas[0].Addr()
			fs := startFakeSentinel(t, oldAddr, 1)
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, ReconcileInterval: -1,
				VerifyInterval: -1, ResolveCacheTTL: time.Hour})
			w := startAckWriter(t, rdb, "e:")
			testutil.WaitFor(t, 5*time.Second, "writes and the subscription", func() bool {
				return w.count() > 20 && fs.subscribedBy(rdb)
			})
			promoteOnly(t, newAddr)
			fs.setBlackhole(true) // no answer to any query from now on
			q0 := fs.queryCount()
			event := time.Now()
			fs.publish(tc.channel, tc.payload(oldAddr, newAddr))
			testutil.WaitFor(t, 10*time.Second, "a write acknowledged after the event", func() bool {
				return w.ackedAfter(event.Add(100 * time.Millisecond))
			})
			w.halt()
			m := w.measure(t, event, oldAddr, newAddr)
			t.Logf("event → first write on the new master %v", m.toNew)
			if m.newChecked == 0 {
				t.Fatal("no write issued after the event reached the new master")
			}
			for _, late := range m.oldLate {
				if late > switchSlack {
					t.Fatalf("a write issued %v after the event was acknowledged by the old master", late)
				}
			}
			if q := fs.queryCount() - q0; q != 0 {
				t.Errorf("%d GET-MASTER-ADDR-BY-NAME sent after the event, want 0", q)
			}
			st, _ := StatsOf(rdb)
			if st.EventSwitches != 1 || st.CurrentAddr != newAddr {
				t.Errorf("EventSwitches %d, CurrentAddr %s; want 1, %s", st.EventSwitches, st.CurrentAddr, newAddr)
			}
		})
	}
}

// TestEventNamingReplicaNotUsed: an event that names a node which is not
// a master (a lying or confused sentinel) does not move the client there:
// ROLE refuses it, the sentinels are asked, and the writes go on to the
// master they name.
func TestEventNamingReplicaNotUsed(t *testing.T) {
	t.Parallel()
	top := testutil.StartTopology(t, 1)
	masterAddr, replicaAddr := top.Master.Addr(), top.Replicas[0].Addr()
	fs := startFakeSentinel(t, masterAddr, 1)
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, ReconcileInterval: -1,
		VerifyInterval: -1, ResolveCacheTTL: time.Hour})
	w := startAckWriter(t, rdb, "r:")
	testutil.WaitFor(t, 5*time.Second, "writes and the subscription", func() bool {
		return w.count() > 20 && fs.subscribedBy(rdb)
	})
	q0 := fs.queryCount()
	event := time.Now()
	fs.publish(chanPromotedSlave, promotedPayload(masterAddr, replicaAddr))
	testutil.WaitFor(t, 10*time.Second, "a write acknowledged after the event", func() bool {
		return w.ackedAfter(event.Add(100 * time.Millisecond))
	})
	w.halt()
	st, _ := StatsOf(rdb)
	if st.EventSwitches != 0 || st.CurrentAddr != masterAddr {
		t.Fatalf("EventSwitches %d, CurrentAddr %s; want 0, %s (the named node is a replica)", st.EventSwitches, st.CurrentAddr, masterAddr)
	}
	if st.RoleMismatches == 0 {
		t.Error("RoleMismatches 0: the named replica was not probed")
	}
	if fs.queryCount() == q0 {
		t.Error("the sentinel was not asked after the named node failed ROLE")
	}
}
