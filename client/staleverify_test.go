package client

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestStaleVerifyKeepsNewerResolution: a verification answer that arrives
// after a resolution started (here the one a +switch-master fence started,
// verifying the master the event named with ROLE) does not cancel that
// resolution, although it names another master than the one in use: the
// resolution is newer than the query. The verification query is sent
// before the event and answered only while the fence's ROLE dial is in
// progress (a starved process reads its answers seconds late). Before,
// the answer superseded the resolution, cancelled its ROLE dial ("dial
// tcp …: operation was canceled") and started another one that asked the
// sentinels (issue 11: 998 of 1000 starved clients logged it, recovery
// 33.5 s against go-redis's 8.7 s).
//
// "answer names a third node": when the resolution that was left running
// ends on another master than the answer named, the answer is acted on
// then: a resolution follows (one sentinel query). Here both nodes report
// master, and that resolution keeps the event's master, verified within
// PromotionGrace (preferEarly), as any resolution after an event switch
// does.
func TestStaleVerifyKeepsNewerResolution(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		third bool // the verification answer names another node than the event
	}{
		{"answer names the event's master", false},
		{"answer names a third node", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			top := testutil.StartTopology(t, 2)
			oldAddr, newAddr, thirdAddr := top.Master.Addr(), top.Replicas[0].Addr(), top.Replicas[1].Addr()
			fs := startFakeSentinel(t, oldAddr, 1)

			// The first dial of the new master after the gate is armed
			// waits for releaseD (or its context): the fence's ROLE
			// probe is then in flight.
			var (
				gateMu    sync.Mutex
				armed     bool
				dialing   = make(chan struct{})
				releaseD  = make(chan struct{})
				dialErrCh = make(chan error, 1)
			)
			var d net.Dialer
			dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
				gateMu.Lock()
				hold := armed && addr == newAddr
				if hold {
					armed = false
				}
				gateMu.Unlock()
				if hold {
					close(dialing)
					select {
					case <-releaseD:
						dialErrCh <- nil
					case <-ctx.Done():
						dialErrCh <- ctx.Err()
						return nil, ctx.Err()
					}
				}
				return d.DialContext(ctx, network, addr)
			}
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, ReconcileInterval: -1,
				VerifyInterval: -1, ResolveCacheTTL: time.Hour, SentinelTimeout: 10 * time.Second,
				DialTimeout: 10 * time.Second, Dialer: dial})
			r := resolverOf(rdb)
			ctx := context.Background()
			// The first resolution's query and the catch-up after
			// subscribing are answered before the verification's query
			// is held.
			testutil.WaitFor(t, 5*time.Second, "a write, the subscription and its catch-up", func() bool {
				return rdb.Set(ctx, "sv:k", "1", 0).Err() == nil && fs.subscribedBy(rdb) && fs.queryCount() >= 2
			})

			// A verification whose query the sentinel holds.
			held, release := fs.holdNextQuery()
			defer release()
			vdone := make(chan struct{})
			go func() {
				defer close(vdone)
				r.verify(ctx)
			}()
			<-held

			// The failover: the event fences the old master and the
			// resolution it starts dials the named one.
			promoteOnly(t, newAddr)
			named := newAddr
			if tc.third {
				promoteOnly(t, thirdAddr)
				named = thirdAddr
			}
			gateMu.Lock()
			armed = true
			gateMu.Unlock()
			fs.set(named, 2)
			q0 := fs.queryCount()
			fs.publish(chanSwitchMaster, switchPayload(oldAddr, newAddr))
			select {
			case <-dialing:
			case <-time.After(10 * time.Second):
				t.Fatal("the fence's resolution did not dial the named master")
			}

			// The stale verification answer (naming named) arrives now.
			release()
			select {
			case <-vdone:
			case <-time.After(10 * time.Second):
				t.Fatal("the verification did not end")
			}
			close(releaseD)
			if err := <-dialErrCh; err != nil {
				t.Errorf("the fence's ROLE dial of the named master ended with %v, want it to go on", err)
			}
			want := 1
			if tc.third {
				want = 2
			}
			testutil.WaitFor(t, 10*time.Second, "a write on the event's master and the queries", func() bool {
				st, _ := StatsOf(rdb)
				return st.CurrentAddr == newAddr && rdb.Set(ctx, "sv:k", "2", 0).Err() == nil &&
					fs.queryCount()-q0 >= want && st.Resolutions >= 2+uint64(want-1)
			})
			st, _ := StatsOf(rdb)
			if st.EventSwitches != 1 {
				t.Errorf("EventSwitches %d, want 1 (the fence's resolution switched to the event's master)", st.EventSwitches)
			}
			// The held verification query is counted when answered,
			// after q0; the resolution after the event asks nothing,
			// the one the third node's answer causes asks once.
			if q := fs.queryCount() - q0; q != want {
				t.Errorf("%d GET-MASTER-ADDR-BY-NAME answered after the event, want %d", q, want)
			}
		})
	}
}
