package client

import (
	"context"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// TestHealthCheckScalesWithReplyTime: a sentinel that answers everything
// 400 ms late (loaded) still proves the event path live once its reply
// time is measured: the health check waits three times the reply time
// for its PING, so the client does not poll the sentinels
// (Verifications) on top of the load that slowed them down. Before, each
// PING (after 600 ms of silence) was overdue after 150 ms, the event path
// was declared dead and the client polled every 500 ms.
func TestHealthCheckScalesWithReplyTime(t *testing.T) {
	t.Parallel()
	m := testutil.StartRedis(t)
	fs := startFakeSentinel(t, m.Addr(), 1)
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, ReconcileInterval: -1,
		PubSubSentinels: 1})
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	testutil.WaitFor(t, 5*time.Second, "the subscription", func() bool { return fs.subscribedBy(rdb) })
	fs.setDelay(400 * time.Millisecond)
	st0, _ := StatsOf(rdb)
	// Observe 6 s: about ten health checks.
	window := time.NewTimer(6 * time.Second)
	<-window.C
	st1, _ := StatsOf(rdb)
	v := st1.Verifications - st0.Verifications
	t.Logf("verification queries in 6 s with a sentinel answering 400 ms late: %d", v)
	if v > 2 {
		t.Errorf("%d verification queries in 6 s, want ≤ 2 (one or two while the reply time is first measured)", v)
	}
	if st1.PubSubLost != st0.PubSubLost {
		t.Errorf("the slow subscription was given up (%d)", st1.PubSubLost-st0.PubSubLost)
	}
}

// TestStuckSubscriptionNoDial: when a sentinel stops answering (SIGSTOP),
// its subscription's health check stays unanswered and queries meant for
// it go to the next sentinel; no second connection is dialled to it (the
// kernel would accept it, and the query would wait its SentinelTimeout).
// Under a fleet's load, where every sentinel answers late, that dial was
// one new sentinel connection per client and query.
func TestStuckSubscriptionNoDial(t *testing.T) {
	t.Parallel()
	c := testutil.StartSentinelCluster(t, "mymaster", 1, 2, 1, 5000, 10000)
	// One subscription: the primary, whose health check runs after
	// 1.2 s of silence; stuck 2 s later, given up 8 s later.
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: c.SentinelAddrs(), PubSubSentinels: 1,
		ReconcileInterval: 300 * time.Millisecond, VerifyInterval: 2 * time.Second})
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	var subscribed string
	testutil.WaitFor(t, 10*time.Second, "the subscription", func() bool {
		subscribed = subscribedTo(rdb)
		return subscribed != ""
	})
	stopped := c.Sentinels[0]
	if c.Sentinels[1].Addr() == subscribed {
		stopped = c.Sentinels[1]
	}
	st0, _ := StatsOf(rdb)
	stopped.Stop()
	t.Cleanup(stopped.Cont)
	// Stuck after 2 s without an answer to the health check; then 1.5 s
	// of reconciliations (each asks both sentinels, SentinelQuorum 2).
	testutil.WaitFor(t, 10*time.Second, "the stopped sentinel's subscription stuck", func() bool {
		return stuckSubs(rdb) == 1
	})
	window := time.NewTimer(1500 * time.Millisecond)
	<-window.C
	st1, _ := StatsOf(rdb)
	if subscribedTo(rdb) != subscribed {
		t.Fatalf("the subscription to %s was given up within the window: inconclusive", subscribed)
	}
	t.Logf("from the stop to 1.5 s after the subscription was stuck: %d reconciliations, %d sentinel dials, %d sentinel errors", st1.Reconciles-st0.Reconciles,
		st1.SentinelDials-st0.SentinelDials, st1.SentinelErrors-st0.SentinelErrors)
	if st1.Reconciles-st0.Reconciles < 5 {
		t.Fatalf("only %d reconciliations", st1.Reconciles-st0.Reconciles)
	}
	if d := st1.SentinelDials - st0.SentinelDials; d != 0 {
		t.Errorf("%d sentinel connections dialled after the sentinel stopped, want 0", d)
	}
	if err := rdb.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Errorf("SET with one sentinel stopped: %v", err)
	}
}

// subscribedTo returns the sentinel of the client's (only) live
// subscription ("" when there is none).
func subscribedTo(rdb *redis.Client) string {
	r := resolverOf(rdb)
	r.mu.Lock()
	defer r.mu.Unlock()
	for s := range r.subBy {
		return s
	}
	return ""
}

// stuckSubs counts the subscriptions whose health check is unanswered
// for stuckAfter.
func stuckSubs(rdb *redis.Client) int {
	r := resolverOf(rdb)
	r.mu.Lock()
	subs := make([]*subConn, 0, len(r.subBy))
	for _, sc := range r.subBy {
		subs = append(subs, sc)
	}
	r.mu.Unlock()
	n := 0
	for _, sc := range subs {
		if sc.isUnhealthy() {
			n++
		}
	}
	return n
}
