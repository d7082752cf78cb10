package main

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// hostileRequests are requests whose cost an attacker chooses: every
// pattern from the network goes through the bounded glob matcher
// (docs/security.md), so none may hold the core or the server.
func hostileRequests(name string) [][]any {
	evil := strings.Repeat("*a", 12) + "*b"
	return [][]any{
		{"SENTINEL", "RESET", evil},
		{"SENTINEL", "CONFIG", "GET", evil},
		{"COMMAND", "LIST", "FILTERBY", "PATTERN", evil},
		{"ACL", "SETUSER", "hostile", "on", "nopass", "+@all", "resetchannels", "&" + evil},
		{"ACL", "DRYRUN", "hostile", "PUBLISH", name, "x"},
		{"SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", "1", "9223372036854775807", "0123456789abcdef0123456789abcdef01234567"},
	}
}

// median returns the median of ds (which it sorts).
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// TestHostileLoadDelays checks the issue's goal "no request, from any
// client or peer, delays another client's PING or GET-MASTER-ADDR-BY-NAME
// by more than 10 ms, or failure detection by more than a tick", side by
// side with redis-sentinel. Two clients send hostileRequests in a loop
// (patterns built to backtrack, an epoch-poisoning vote request, a
// PSUBSCRIBE of the same pattern) while
//
//   - another client's PING + GET-MASTER-ADDR-BY-NAME rounds are timed:
//     the median during the attack may exceed the median before it by at
//     most 10 ms (the median, because single rounds on this shared machine
//     wait for the CPU whatever the sentinel does);
//   - the master is stopped (SIGSTOP): +sdown must come at most one tick
//     (100 ms), plus 100 ms for the machine, later than the detection rule
//     and the time of the last PONG say.
//
// With the old unbounded matcher the first RESET held the core for hours:
// every round timed out and no +sdown came.
func TestHostileLoadDelays(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	const downAfter = 1000 * time.Millisecond
	const tick = 100 * time.Millisecond
	const pingPeriod = time.Second
	const slack = 100 * time.Millisecond
	name := strings.Repeat("a", 40)
	for _, b := range []string{testutil.Binary(t, "redis-sentinel"), bin} {
		t.Run(filepath.Base(b), func(t *testing.T) {
			master := testutil.StartRedis(t)
			s := startMonitoring(t, b, name, master)
			ctx := context.Background()
			victim := sentinelClient(t, s.Addr())
			round := func() time.Duration {
				t.Helper()
				start := time.Now()
				if err := victim.Ping(ctx).Err(); err != nil {
					t.Fatalf("PING: %v", err)
				}
				addr, err := victim.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name).StringSlice()
				if err != nil || len(addr) != 2 {
					t.Fatalf("GET-MASTER-ADDR-BY-NAME = %v, %v", addr, err)
				}
				return time.Since(start)
			}
			const rounds = 101
			base := make([]time.Duration, rounds)
			for i := range base {
				base[i] = round()
			}
			sub := victim.Subscribe(ctx, "+sdown")
			t.Cleanup(func() { sub.Close() })
			if _, err := sub.Receive(ctx); err != nil {
				t.Fatal(err)
			}
			psub := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, Protocol: 2})
			t.Cleanup(func() { psub.Close() })
			ps := psub.PSubscribe(ctx, strings.Repeat("*a", 12)+"*b")
			t.Cleanup(func() { ps.Close() })

			actx, stop := context.WithCancel(ctx)
			var wg sync.WaitGroup
			t.Cleanup(func() { stop(); wg.Wait() })
			var sent sync.Map
			for i := range 2 {
				c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, Protocol: 2, ReadTimeout: 5 * time.Second})
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer c.Close()
					reqs := hostileRequests(name)
					for j := i; actx.Err() == nil; j++ {
						// Error replies are fine (a refused epoch, an
						// unknown user): only a stall counts.
						if err := c.Do(actx, reqs[j%len(reqs)]...).Err(); err != nil && actx.Err() == nil && !strings.HasPrefix(err.Error(), "ERR") {
							t.Errorf("%v: %v", reqs[j%len(reqs)], err)
							return
						}
						n, _ := sent.LoadOrStore(i, new(int))
						*n.(*int)++
					}
				}()
			}
			during := make([]time.Duration, rounds)
			for i := range during {
				during[i] = round()
			}
			mb, md := median(base), median(during)
			t.Logf("PING+GET-MASTER-ADDR-BY-NAME median %v before, %v during the hostile requests (slowest %v)", mb, md, during[len(during)-1])
			if md-mb > 10*time.Millisecond {
				t.Errorf("hostile requests delay other clients by %v (median), goal ≤ 10 ms", md-mb)
			}

			// The master stops answering; its last PONG was L ms ago.
			// redis-sentinel sends the next PING once the last PONG is a
			// ping period (1 s) old and flags the master when that PING
			// has gone unanswered for down-after-milliseconds: +sdown is
			// expected period + down-after - L after the stop, give or
			// take a tick. gosentinel flags it once the last valid reply
			// is down-after old (fast detection, internal/core
			// fastdetect.go): down-after - L.
			// redis-sentinel's PING and its SDOWN check both wait for its
			// 100 ms timer: its model allows two ticks.
			expect, ticks := downAfter, tick
			if filepath.Base(b) == "redis-sentinel" {
				expect, ticks = downAfter+pingPeriod, 2*tick
			}
			m, err := victim.Do(ctx, "SENTINEL", "MASTER", name).StringSlice()
			if err != nil {
				t.Fatal(err)
			}
			master.Stop()
			stopped := time.Now()
			t.Cleanup(master.Cont)
			var lastOK time.Duration
			for i := 0; i+1 < len(m); i += 2 {
				if m[i] == "last-ok-ping-reply" {
					ms, _ := strconv.Atoi(m[i+1])
					lastOK = time.Duration(ms) * time.Millisecond
				}
			}
			msg, err := sub.ReceiveTimeout(ctx, 10*time.Second)
			if err != nil {
				t.Fatalf("no +sdown within 10 s of the master's stop under hostile load: %v", err)
			}
			took := time.Since(stopped)
			late := took - (expect - lastOK)
			t.Logf("%v %d ms after the stop, last PONG %d ms before it: %d ms later than expected", msg, took.Milliseconds(), lastOK.Milliseconds(), late.Milliseconds())
			if !strings.Contains(msg.(*redis.Message).Payload, name) {
				t.Fatalf("+sdown = %v, want the master %s", msg, name)
			}
			if late > ticks+slack && filepath.Base(b) == "redis-sentinel" {
				// The reference is only logged: its PING also waits for
				// the ping-period/2 rule and its single thread answered
				// the attack meanwhile (seen 316 ms at load 60).
				t.Logf("redis-sentinel's +sdown %v late, over %v", late, ticks+slack)
			} else if late > ticks+slack {
				t.Errorf("+sdown %v later than expected under hostile load, want ≤ %v (the timer's ticks + %v for the machine)", late, ticks+slack, slack)
			}
			stop()
			wg.Wait()
			total := 0
			sent.Range(func(_, v any) bool { total += *v.(*int); return true })
			if total < len(hostileRequests(name)) {
				t.Fatalf("only %d hostile requests answered", total)
			}
			t.Logf("%d hostile requests answered", total)
		})
	}
}
