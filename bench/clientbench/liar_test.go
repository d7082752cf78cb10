package clientbench

import (
	"context"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/client"
	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// liarCase is one failover with a sentinel that does not tell the truth
// (or with no events at all), run with our client and go-redis's
// NewFailoverClient side by side.
type liarCase struct {
	name string
	// fake: "" (no fake sentinel), "lagging" (a fake sentinel first in
	// both clients' lists that keeps naming the old master with the old
	// config epoch), "newer" (a fake first in both lists that names the
	// old master with config epoch 1000 from start to end: after the
	// switch it claims a newer epoch for the old master) or "replica" (a
	// fake first in the lists that names a replica, made writable, from
	// start to end).
	fake string
	// kind is the failover: kindPlanned (SENTINEL FAILOVER with the old
	// master fenced: it stays a writable master and keeps every write it
	// acknowledges), kindKill (SIGKILL of the master) or kindStop
	// (SIGSTOP: frozen, its connections stay open and unanswered).
	kind string
	// noPerm: every real sentinel refuses SUBSCRIBE (ACL resetchannels).
	noPerm bool
}

// The failover kinds of a liarCase.
const (
	kindPlanned = "SENTINEL FAILOVER"
	kindKill    = "SIGKILL"
	kindStop    = "SIGSTOP"
)

var liarCases = []liarCase{
	{"lagging sentinel first, SENTINEL FAILOVER (old master fenced)", "lagging", kindPlanned, false},
	{"lagging sentinel first, SIGKILL", "lagging", kindKill, false},
	{"lagging sentinel first, SIGSTOP", "lagging", kindStop, false},
	{"lying sentinel first claims a newer epoch for the old master, SENTINEL FAILOVER (old master fenced)", "newer", kindPlanned, false},
	{"lying sentinel first names a writable replica, SIGKILL", "replica", kindKill, false},
	{"lying sentinel first names a writable replica, SENTINEL FAILOVER (old master fenced)", "replica", kindPlanned, false},
	{"no Pub/Sub (SUBSCRIBE refused, NOPERM), SENTINEL FAILOVER (old master fenced)", "", kindPlanned, true},
	{"no Pub/Sub (SUBSCRIBE refused, NOPERM), SIGKILL", "", kindKill, true},
	{"no Pub/Sub (SUBSCRIBE refused, NOPERM), SIGSTOP", "", kindStop, true},
}

// liarResult is one client's outcome in one round of a liarCase.
type liarResult struct {
	// toNew: event → first write acknowledged by the new master (issued
	// after the event); 0 when none within the round.
	toNew time.Duration
	// late: writes issued more than 1 s after the first sentinel named
	// the new master and acknowledged by the old master; lateMax is the
	// latest such issue time after the switch.
	late    int
	lateMax time.Duration
	// oldAfter: writes issued after the switch acknowledged by the old
	// master (any delay).
	oldAfter int
	// replica: writes acknowledged by the replica the lying sentinel
	// names (whole run).
	replica int
	failed  int
	// onLiar: the client's sentinel connections went to the fake first
	// (go-redis keeps the first sentinel that answered).
	onLiar bool
}

// TestLiarCompare measures, side by side on the same real redis-servers
// and three real sentinels (redis-sentinel, or gosentinel with
// GOSENTINEL_SENTINEL_BIN), our client and go-redis's NewFailoverClient
// through a failover with a lagging sentinel, a lying sentinel, or no
// Pub/Sub at all: writes acknowledged by the old master more than 1 s
// after the sentinels switched, writes acknowledged by a replica, and
// event → first write on the new master. Only with GOSENTINEL_BENCH=1
// (rounds: GOSENTINEL_BENCH_ROUNDS, default 3; GOSENTINEL_BENCH_SCENARIO
// filters the cases by substring).
func TestLiarCompare(t *testing.T) {
	if os.Getenv("GOSENTINEL_BENCH") != "1" {
		t.Skip("set GOSENTINEL_BENCH=1 to run the lying/lagging sentinel comparison")
	}
	rounds := envPositiveInt("GOSENTINEL_BENCH_ROUNDS", 3)
	only := os.Getenv("GOSENTINEL_BENCH_SCENARIO")
	var b strings.Builder
	b.WriteString("| case | client | event → first write on the new master (median / max over the rounds with one) | rounds ours first on the new master (≤ go-redis's, or go-redis none) | writes acked by the old master > 1 s after the switch (max over rounds) | latest such write after the switch | writes acked by the old master after the switch (median) | writes acked by a replica (max) | failed writes (median) | rounds on the fake sentinel |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, lc := range liarCases {
		if !strings.Contains(lc.name, only) {
			continue
		}
		var ours, theirs []liarResult
		for i := 0; i < rounds; i++ {
			t.Run(fmt.Sprintf("%s/%d", lc.name, i), func(t *testing.T) {
				o, g := liarRound(t, lc)
				ours, theirs = append(ours, o), append(theirs, g)
			})
		}
		ahead := 0
		for i := range min(len(ours), len(theirs)) {
			o, g := ours[i].toNew, theirs[i].toNew
			if o > 0 && (g == 0 || o <= g) {
				ahead++
			}
		}
		for _, row := range []struct {
			name  string
			rs    []liarResult
			ahead string
		}{{"gosentinel `client`", ours, fmt.Sprintf("%d of %d", ahead, min(len(ours), len(theirs)))}, {"go-redis `NewFailoverClient`", theirs, "—"}} {
			var to []time.Duration
			late, lateMax, rep, liar, none := 0, time.Duration(0), 0, 0, 0
			var old, failed []int
			for _, r := range row.rs {
				if r.toNew > 0 {
					to = append(to, r.toNew)
				} else {
					none++
				}
				late, lateMax, rep = max(late, r.late), max(lateMax, r.lateMax), max(rep, r.replica)
				old, failed = append(old, r.oldAfter), append(failed, r.failed)
				if r.onLiar {
					liar++
				}
			}
			toNew := "none"
			if len(to) > 0 {
				toNew = fmt.Sprintf("%v / %v", medianDur(to).Round(time.Millisecond), maxD(to).Round(time.Millisecond))
			}
			fmt.Fprintf(&b, "| %s | %s | %s (%d of %d rounds without) | %s | %d | %v | %d | %d | %d | %d of %d |\n", lc.name, row.name,
				toNew, none, len(row.rs), row.ahead, late, lateMax.Round(time.Millisecond),
				medianInt(old), rep, medianInt(failed), liar, len(row.rs))
		}
	}
	t.Logf("%d rounds:\n%s", rounds, b.String())
}

func medianInt(v []int) int {
	if len(v) == 0 {
		return 0
	}
	s := append([]int(nil), v...)
	sort.Ints(s)
	return s[len(s)/2]
}

// liarRound runs one round of lc and returns our client's and go-redis's
// results.
func liarRound(t *testing.T, lc liarCase) (ours, goRedis liarResult) {
	ctx := context.Background()
	c := testutil.StartSentinelCluster(t, "mymaster", 2, 3, 2, 1000, 3000)
	oldAddr := c.Top.Master.Addr()
	repAddr := c.Top.Replicas[1].Addr()
	admin := func(addr string, args ...any) {
		t.Helper()
		r := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, Protocol: 2})
		defer r.Close()
		if err := r.Do(ctx, args...).Err(); err != nil {
			t.Fatalf("%v on %s: %v", args, addr, err)
		}
	}
	if lc.fake == "replica" {
		// The replica the liar names: writable, never promoted, and
		// fenced so that the sentinels cannot reconfigure it (its own
		// writes then stay on it to be counted).
		admin(repAddr, "CONFIG", "SET", "replica-read-only", "no")
		admin(repAddr, "CONFIG", "SET", "replica-priority", "0")
		admin(repAddr, "ACL", "SETUSER", "default", "-replicaof", "-slaveof")
		for _, s := range c.SentinelAddrs() {
			testutil.WaitFor(t, 20*time.Second, "sentinel "+s+" sees replica-priority 0", func() bool {
				return replicaPriority(s, c.Name, repAddr) == "0"
			})
		}
	}
	if lc.kind == kindPlanned {
		admin(oldAddr, "ACL", "SETUSER", "default", "-replicaof", "-slaveof")
	}
	if lc.noPerm {
		for _, s := range c.SentinelAddrs() {
			admin(s, "ACL", "SETUSER", "default", "resetchannels")
		}
	}
	sentinels := c.SentinelAddrs()
	var fake *fakeSentinel
	switch lc.fake {
	case "lagging":
		fake = startFakeSentinel(t, oldAddr, 0)
	case "newer":
		fake = startFakeSentinel(t, oldAddr, 1000)
	case "replica":
		fake = startFakeSentinel(t, repAddr, 0)
	}
	if fake != nil {
		sentinels = append([]string{fake.addr()}, sentinels...)
	}
	our := client.NewFailoverClient(&client.FailoverOptions{MasterName: c.Name, SentinelAddrs: sentinels})
	defer our.Close()
	their := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: c.Name, SentinelAddrs: sentinels})
	defer their.Close()
	wo, wg := startWriter(t, "o:", our), startWriter(t, "g:", their)
	testutil.WaitFor(t, 10*time.Second, "writes before the event", func() bool { return wo.count() > 100 && wg.count() > 100 })
	// Which sentinel go-redis keeps: it subscribes (+switch-master and
	// +replica-reconf-done, a channel ours does not use) to the one it
	// picked, the first to answer.
	goRedisOnFake := fake != nil && fake.subscribedTo("+replica-reconf-done")
	poll := pollSwitch(t, c.SentinelAddrs(), c.Name, oldAddr)
	var event time.Time
	switch lc.kind {
	case kindPlanned:
		sc := redis.NewClient(&redis.Options{Addr: c.Sentinels[2].Addr(), MaxRetries: -1, Protocol: 2})
		event = time.Now()
		err := sc.Do(ctx, "SENTINEL", "FAILOVER", c.Name).Err()
		sc.Close()
		if err != nil {
			t.Fatalf("SENTINEL FAILOVER: %v", err)
		}
	case kindKill:
		c.Top.Master.Kill()
		event = time.Now()
	case kindStop:
		// Frozen, not dead: the cluster's cleanup kills it.
		c.Top.Master.Stop()
		event = time.Now()
	default:
		t.Fatalf("unknown failover kind %q", lc.kind)
	}
	var switched time.Time
	var newAddr string
	select {
	case <-poll.found:
		switched, newAddr = poll.at, poll.addr
	case <-time.After(30 * time.Second):
		t.Fatal("no sentinel named a new master within 30 s")
	}
	testutil.WaitFor(t, 30*time.Second, "the new master "+newAddr+" is a master", func() bool {
		role, err := testutil.Role(newAddr)
		return err == nil && role == "master"
	})
	// Let both clients write until writes issued 1.5 s after the switch
	// are acknowledged, or 10 s (a client stuck on the dead master never
	// gets there; that is part of the result).
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if !wo.firstIssuedAckAfter(switched.Add(1500*time.Millisecond)).IsZero() &&
			!wg.firstIssuedAckAfter(switched.Add(1500*time.Millisecond)).IsZero() {
			break
		}
		time.Sleep(10 * time.Millisecond) // polling the writers' progress
	}
	wo.halt()
	wg.halt()
	oldAlive := lc.kind == kindPlanned // a frozen old master cannot be asked
	ours = liarMeasure(t, wo, event, switched, oldAddr, newAddr, repAddr, oldAlive, lc.fake == "replica")
	goRedis = liarMeasure(t, wg, event, switched, oldAddr, newAddr, repAddr, oldAlive, lc.fake == "replica")
	goRedis.onLiar = goRedisOnFake
	st, _ := client.StatsOf(our)
	t.Logf("%s: switch %v after the event; ours %+v; go-redis %+v; our verifications %d", lc.name,
		switched.Sub(event).Round(time.Millisecond), ours, goRedis, st.Verifications)
	return ours, goRedis
}

// replicaPriority returns the slave-priority a sentinel reports for the
// replica at addr ("" if unknown).
func replicaPriority(sentinel, name, addr string) string {
	sc := redis.NewClient(&redis.Options{Addr: sentinel, MaxRetries: -1, Protocol: 2})
	defer sc.Close()
	v, err := sc.Do(context.Background(), "SENTINEL", "REPLICAS", name).Slice()
	if err != nil {
		return ""
	}
	for _, r := range v {
		kv, _ := r.([]any)
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			k, _ := kv[i].(string)
			s, _ := kv[i+1].(string)
			m[k] = s
		}
		if net.JoinHostPort(m["ip"], m["port"]) == addr {
			return m["slave-priority"]
		}
	}
	return ""
}

// firstIssuedAckAfter returns the acknowledgement time of the first
// acknowledged write issued after t (zero if none).
func (w *writer) firstIssuedAckAfter(t time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	var first time.Time
	for k, at := range w.acked {
		if w.issued[k].After(t) && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	return first
}

// existsOn returns the subset of keys present on addr (pipelined EXISTS).
func existsOn(t *testing.T, addr string, keys []string) map[string]bool {
	t.Helper()
	r := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, Protocol: 2})
	defer r.Close()
	out := map[string]bool{}
	for i := 0; i < len(keys); i += 1000 {
		batch := keys[i:min(i+1000, len(keys))]
		cmds, err := r.Pipelined(context.Background(), func(p redis.Pipeliner) error {
			for _, k := range batch {
				p.Exists(context.Background(), k)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("EXISTS on %s: %v", addr, err)
		}
		for j, c := range cmds {
			if c.(*redis.IntCmd).Val() > 0 {
				out[batch[j]] = true
			}
		}
	}
	return out
}

// liarMeasure classifies every acknowledged write of w by the node that
// holds it: the new master, the old master (when alive: fenced, it keeps
// what it acknowledged) or the writable replica (fenced, it keeps its own
// writes and never receives the other nodes' after the event).
func liarMeasure(t *testing.T, w *writer, event, switched time.Time, oldAddr, newAddr, repAddr string, oldAlive, countReplica bool) liarResult {
	w.mu.Lock()
	keys := make([]string, 0, len(w.acked))
	for k := range w.acked {
		keys = append(keys, k)
	}
	acked, issued := map[string]time.Time{}, map[string]time.Time{}
	for k, at := range w.acked {
		acked[k], issued[k] = at, w.issued[k]
	}
	var r liarResult
	for _, at := range w.failed {
		if !at.Before(event) {
			r.failed++
		}
	}
	w.mu.Unlock()
	onNew := existsOn(t, newAddr, keys)
	var onOld, onRep map[string]bool
	if oldAlive {
		onOld = existsOn(t, oldAddr, keys)
	}
	if countReplica {
		onRep = existsOn(t, repAddr, keys)
	}
	var first time.Time
	for _, k := range keys {
		after := issued[k].After(event)
		switch {
		case onOld[k]:
			// On the old master (alive and fenced: it replicates from
			// nobody after the switch), whether or not the new master
			// received it by replication before its promotion.
			if issued[k].After(switched) {
				r.oldAfter++
				if d := issued[k].Sub(switched); d > time.Second {
					r.late++
					r.lateMax = max(r.lateMax, d)
				}
			}
		case onNew[k] && after:
			if first.IsZero() || acked[k].Before(first) {
				first = acked[k]
			}
		case onNew[k]:
		case onRep[k] && (oldAlive || after):
			// Before the event with the old master dead, a write on the
			// replica and on neither master may be one the old master
			// acknowledged and replicated to it only; with the old
			// master alive (or after the event) it is the replica's own.
			r.replica++
		}
	}
	if !first.IsZero() {
		r.toNew = first.Sub(event)
	}
	return r
}

// switchPoll polls every sentinel (GET-MASTER-ADDR-BY-NAME every 2 ms)
// and records when the first one named another master than old.
type switchPoll struct {
	at    time.Time
	addr  string
	found chan struct{}
}

func pollSwitch(t *testing.T, sentinels []string, name, old string) *switchPoll {
	t.Helper()
	p := &switchPoll{found: make(chan struct{})}
	stop, done := make(chan struct{}), make(chan struct{})
	var cs []*redis.Client
	for _, s := range sentinels {
		cs = append(cs, redis.NewClient(&redis.Options{Addr: s, MaxRetries: -1, Protocol: 2, ReadTimeout: 200 * time.Millisecond, PoolSize: 1}))
	}
	go func() {
		defer close(done)
		tk := time.NewTicker(2 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
			}
			for _, c := range cs {
				v, err := c.Do(context.Background(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name).StringSlice()
				if err != nil || len(v) != 2 || net.JoinHostPort(v[0], v[1]) == old {
					continue
				}
				p.at, p.addr = time.Now(), net.JoinHostPort(v[0], v[1])
				close(p.found) // publishes at and addr
				return
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		<-done
		for _, c := range cs {
			c.Close()
		}
	})
	return p
}
