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
func TestStaleVerifyKeepsNewerResolution(t *testing.T) {
	t.Parallel()
	top := testutil.StartTopology(t, 1)
	oldAddr, newAddr := top.Master.Addr(), top.Replicas[0].Addr()
	fs := startFakeSentinel(t, oldAddr, 1)

	// The first dial of the new master after gate is armed waits for
	// release (or its context): the fence's ROLE probe is then in flight.
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
	// The first resolution's query and the catch-up after subscribing
	// are answered before the verification's query is held.
	testutil.WaitFor(t, 5*time.Second, "a write, the subscription and its catch-up", func() bool {
		return rdb.Set(ctx, "sv:k", "1", 0).Err() == nil && fs.subCount() > 0 && fs.queryCount() >= 2
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

	// The failover: the event fences the old master and the resolution
	// it starts dials the named one.
	promoteOnly(t, newAddr)
	gateMu.Lock()
	armed = true
	gateMu.Unlock()
	fs.set(newAddr, 2)
	q0 := fs.queryCount()
	fs.publish(chanSwitchMaster, switchPayload(oldAddr, newAddr))
	select {
	case <-dialing:
	case <-time.After(10 * time.Second):
		t.Fatal("the fence's resolution did not dial the named master")
	}

	// The stale verification answer (naming the new master) arrives now.
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
	testutil.WaitFor(t, 10*time.Second, "a write on the new master", func() bool {
		st, _ := StatsOf(rdb)
		return st.CurrentAddr == newAddr && rdb.Set(ctx, "sv:k", "2", 0).Err() == nil
	})
	st, _ := StatsOf(rdb)
	if st.EventSwitches != 1 {
		t.Errorf("EventSwitches %d, want 1 (the fence's resolution switched to the named master)", st.EventSwitches)
	}
	// The held verification query is counted when answered, after q0.
	if q := fs.queryCount() - q0; q != 1 {
		t.Errorf("%d GET-MASTER-ADDR-BY-NAME answered after the event, want 1, the held one (no resolution restarted)", q)
	}
}
