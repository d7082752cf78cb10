package client

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestIdleMinute is the idle goal of issue 11 at its full length: a client
// with default options, idle for 60 s after one SET, sends nothing that
// the user's hooks (tracers, metrics) or MONITOR on the master would see,
// and holds at most one connection per sentinel the whole time — sampled
// every 5 s with CLIENT LIST on each sentinel, and no sentinel connection
// opened at all in the minute (Stats.SentinelDials, which also counts a
// connection opened and closed between two samples). The minute covers
// about six reconciliations, the verification loop, the subscriptions'
// health checks and the query connections' idle timeout
// (sentinelIdleTimeout). It would fail on the earlier designs: a PING with
// a cancelled context through the hooks every second (before issue 11), a
// query connection beside each subscription (2 on two sentinels), or
// query connections reaped and dialled again. Skipped with -short.
func TestIdleMinute(t *testing.T) {
	if testing.Short() {
		t.Skip("60 s idle window")
	}
	t.Parallel()
	c := testutil.StartSentinelCluster(t, "mymaster", 1, 3, 2, 5000, 10000)
	sentinels := c.SentinelAddrs()
	rec := &recordingHook{}
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: sentinels, ClientName: "idleminute"})
	rdb.AddHook(rec)
	ctx := context.Background()
	if err := rdb.Set(ctx, "idle", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	if got := rec.take(); len(got) == 0 || got[0] != "set" {
		t.Fatalf("hook saw %q for one SET", got)
	}
	testutil.WaitFor(t, 10*time.Second, "a subscription on every sentinel", func() bool {
		r := resolverOf(rdb)
		r.mu.Lock()
		defer r.mu.Unlock()
		return len(r.subBy) == len(sentinels)
	})
	st0, _ := StatsOf(rdb)
	mon := startMonitor(t, c.Top.Master.Addr())
	const window, every = 60 * time.Second, 5 * time.Second
	end := time.Now().Add(window)
	samples := 0
	for time.Now().Before(end) {
		tick := time.NewTimer(min(every, time.Until(end)))
		<-tick.C // the idle period observed
		samples++
		for i, cs := range sentinelClients(t, sentinels, "idleminute") {
			if len(cs) > 1 {
				t.Errorf("after %v idle: sentinel %s holds %d connections of the client, want ≤ 1: %q",
					time.Until(end).Round(time.Second), sentinels[i], len(cs), cs)
			}
		}
	}
	mon.stop()
	st1, _ := StatsOf(rdb)
	if st1.Reconciles-st0.Reconciles < 4 {
		t.Fatalf("%d reconciliations in the idle minute: the test would not cover them", st1.Reconciles-st0.Reconciles)
	}
	if st1.SentinelCommands == st0.SentinelCommands {
		t.Fatalf("no sentinel command in the idle minute: the background work was not running")
	}
	if d := st1.SentinelDials - st0.SentinelDials; d != 0 {
		t.Errorf("%d sentinel connections opened in the idle minute, want 0 (one per sentinel, kept)", d)
	}
	for i, cs := range sentinelClients(t, sentinels, "idleminute") {
		if len(cs) != 1 {
			t.Errorf("after the idle minute: sentinel %s holds %d connections of the client, want 1: %q", sentinels[i], len(cs), cs)
		}
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("hook saw %d commands the user did not issue in %v idle: %q", len(got), window, got)
	}
	// The sentinels' own connections: those open now, and those a
	// sentinel opened (and named) during the minute, e.g. a link
	// re-established on the loaded box.
	skip := sentinelConns(t, c.Top.Master.Addr())
	mon.mu.Lock()
	for _, l := range mon.lines {
		i, j := strings.Index(l, "["), strings.Index(l, "]")
		if i >= 0 && j > i && strings.Contains(l, `"SETNAME" "sentinel-`) {
			if f := strings.Fields(l[i+1 : j]); len(f) == 2 {
				skip[f[1]] = true
			}
		}
	}
	mon.mu.Unlock()
	if got := mon.except(skip); len(got) != 0 {
		t.Errorf("MONITOR on the master saw %d commands from the idle client: %q", len(got), got)
	}
	t.Logf("%d samples; sentinel commands in the minute: %d (%.2f/s)", samples, st1.SentinelCommands-st0.SentinelCommands,
		float64(st1.SentinelCommands-st0.SentinelCommands)/window.Seconds())
}
