package interop

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/ops"
	"github.com/gosentinel/gosentinel/internal/testutil"
)

// writeResult is what a writer saw during a planned failover.
type writeResult struct {
	acked   []int         // values whose SET returned OK
	maxGap  time.Duration // longest time between two acknowledged writes
	errors  int
	lost    int // acknowledged but absent from the new master afterwards
	elapsed time.Duration
}

// plannedFailover runs SET k:<i> <i> through a go-redis FailoverClient
// while `SENTINEL FAILOVER mym [opt]` is sent to sentinel 0, until every
// sentinel logged +switch-master and one more second has passed, then
// counts the acknowledged writes missing on the new master.
func plannedFailover(t *testing.T, d *deployment, opt ...string) writeResult {
	t.Helper()
	ctx := context.Background()
	fc := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: master, SentinelAddrs: []string{d.sentinels[0].Addr()},
		MaxRetries: -1, DialTimeout: 200 * time.Millisecond, ReadTimeout: 500 * time.Millisecond, WriteTimeout: 500 * time.Millisecond})
	defer fc.Close()
	var res writeResult
	var mu sync.Mutex
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		last := time.Now()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			err := fc.Set(ctx, fmt.Sprintf("k:%d", i), i, 0).Err()
			now := time.Now()
			mu.Lock()
			if err == nil {
				res.acked = append(res.acked, i)
				if g := now.Sub(last); g > res.maxGap {
					res.maxGap = g
				}
				last = now
			} else {
				res.errors++
			}
			mu.Unlock()
		}
	}()
	testutil.WaitFor(t, 10*time.Second, "writes flow", func() bool { mu.Lock(); defer mu.Unlock(); return len(res.acked) > 100 })
	oldAddr := d.top.Master.Addr()
	start := time.Now()
	args := append([]any{"SENTINEL", "FAILOVER", master}, toAny(opt)...)
	sc := redis.NewClient(&redis.Options{Addr: d.sentinels[0].Addr(), Protocol: 2})
	if err := sc.Do(ctx, args...).Err(); err != nil {
		t.Fatalf("SENTINEL FAILOVER %v: %v", opt, err)
	}
	sc.Close()
	newAddr := d.waitNewMaster(t, oldAddr)
	res.elapsed = time.Since(start)
	for i, s := range d.sentinels {
		testutil.WaitFor(t, 20*time.Second, d.members[i].kind()+" logs +switch-master", func() bool {
			return strings.Contains(s.Log(), "+switch-master")
		})
	}
	time.Sleep(time.Second) // writes keep running against the new master: the interval itself is measured
	close(stop)
	<-done
	nc := redis.NewClient(&redis.Options{Addr: newAddr, Protocol: 2})
	defer nc.Close()
	for _, i := range res.acked {
		v, err := nc.Get(ctx, fmt.Sprintf("k:%d", i)).Int()
		if err != nil || v != i {
			res.lost++
		}
	}
	t.Logf("%v: %d acked, %d lost, %d errors, longest gap between acked writes %v, failover %v",
		opt, len(res.acked), res.lost, res.errors, res.maxGap, res.elapsed)
	return res
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// TestCoordinatedFailover: SENTINEL FAILOVER mym COORDINATED on gosentinel
// (Valkey 9 semantics): elected leader, FAILOVER TO on the primary, no
// acknowledged write lost, the old primary a replica of the new one; over
// redis-server 7.0.15 and valkey-server 8.0.1 data nodes.
func TestCoordinatedFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	for _, nodes := range []string{"redis-server", "valkey-server"} {
		t.Run(nodes, func(t *testing.T) {
			d := startDeploymentNodes(t, []member{quorum2(true), quorum2(true), quorum2(true)}, nodes == "valkey-server")
			res := plannedFailover(t, d, "COORDINATED")
			if res.lost != 0 {
				t.Errorf("%d acknowledged writes lost", res.lost)
			}
			l := d.sentinels[0].Log()
			for _, ev := range []string{"+elected-leader", "+failover-state-wait-promotion", "+promoted-slave", "+failover-end", "+switch-master"} {
				if !strings.Contains(l, ev) {
					t.Errorf("leader log lacks %s", ev)
				}
			}
			if strings.Contains(l, "-failover-abort") {
				t.Errorf("failover aborted")
			}
			// Hellos were held while the old primary paused writes; every
			// sentinel publishes to the new primary again.
			ctx := context.Background()
			newAddr, err := testutil.MasterAddr(d.sentinels[0].Addr(), master)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, s := range d.sentinels {
				sc := redis.NewClient(&redis.Options{Addr: s.Addr(), Protocol: 2})
				id, err := sc.Do(ctx, "SENTINEL", "MYID").Text()
				sc.Close()
				if err != nil {
					t.Fatal(err)
				}
				want[id] = true
			}
			nc := redis.NewClient(&redis.Options{Addr: newAddr, Protocol: 2})
			defer nc.Close()
			sub := nc.Subscribe(ctx, "__sentinel__:hello")
			defer sub.Close()
			deadline := time.After(10 * time.Second)
			for len(want) > 0 {
				select {
				case msg := <-sub.Channel():
					for id := range want {
						if strings.Contains(msg.Payload, id) {
							delete(want, id)
						}
					}
				case <-deadline:
					t.Fatalf("no hello on the new primary from %v", want)
				}
			}
		})
	}
}

// TestPlainFailoverLoss measures plain SENTINEL FAILOVER (writes are not
// paused: the writes the old master acknowledged after the replica's last
// sync are lost) on redis-sentinel and on gosentinel, next to COORDINATED;
// nothing is asserted about the loss of the plain variant (it is the
// figure being measured), only that the failover completed.
func TestPlainFailoverLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	for _, tc := range []struct {
		name string
		gos  bool
		opt  []string
	}{
		{"redis-sentinel plain", false, nil},
		{"gosentinel plain", true, nil},
		{"gosentinel coordinated", true, []string{"COORDINATED"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := startDeployment(t, []member{quorum2(tc.gos), quorum2(tc.gos), quorum2(tc.gos)})
			plannedFailover(t, d, tc.opt...)
		})
	}
}

// TestDrillCoordinated: `sentinelctl drill --coordinated` (ops.RunDrill
// with Coordinated) against gosentinel, through our client and through
// go-redis: the failover completes with 0 acknowledged writes lost;
// the write gap is logged.
func TestDrillCoordinated(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	for _, cli := range []string{"gosentinel", "go-redis"} {
		t.Run(cli, func(t *testing.T) {
			d := startDeployment(t, []member{quorum2(true), quorum2(true), quorum2(true)})
			var addrs []string
			for _, s := range d.sentinels {
				addrs = append(addrs, s.Addr())
			}
			nc, err := ops.ClientByName(cli)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := ops.RunDrill(context.Background(), ops.DrillOptions{Conn: &ops.ConnOptions{Sentinels: addrs},
				Master: master, Coordinated: true, NewClient: nc, MaxLost: 0, Timeout: 30 * time.Second})
			if err != nil {
				t.Fatalf("drill: %v (%+v)", err, rep)
			}
			if !rep.Completed || rep.Lost != 0 || rep.Mode != "sentinel-failover-coordinated" || len(rep.Problems) != 0 {
				t.Fatalf("drill report: completed %v lost %d mode %s problems %v", rep.Completed, rep.Lost, rep.Mode, rep.Problems)
			}
			t.Logf("%s: %d ok writes, %d failed, lost %d of %d checked, write gap %.0f ms, switch %.0f ms",
				cli, rep.Writes.OK, rep.Writes.Failed, rep.Lost, rep.LostChecked, rep.Writes.GapMs, rep.SwitchMs)
		})
	}
}
