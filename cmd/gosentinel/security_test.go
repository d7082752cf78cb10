package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// startMonitoring starts bin (redis-sentinel or gosentinel) monitoring
// master under name, with extra config lines.
func startMonitoring(t *testing.T, bin, name string, master *testutil.Process, extra ...string) *testutil.Process {
	t.Helper()
	port := testutil.FreePort(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	log := filepath.Join(dir, "sentinel.log")
	body := fmt.Sprintf("port %d\nbind 127.0.0.1\nlogfile %q\nsentinel monitor %s 127.0.0.1 %d 1\nsentinel down-after-milliseconds %s 1000\n%s\n",
		port, log, name, master.Port, name, strings.Join(extra, "\n"))
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return testutil.StartSentinelConf(t, bin, conf, port, log)
}

// TestHostileResetDoesNotStall is the regression test of the SENTINEL RESET
// freeze: with a 40-character master name, RESET "*a*a*…*b" made the old
// core matcher (depth limit, no work limit) run for hours, and every other
// client waited. Now it answers :0 at once, like redis-sentinel 7.0.15
// (whose stringmatchlen is bounded since 7.0.9, CVE-2022-36021), and other
// clients' PING and GET-MASTER-ADDR-BY-NAME are answered meanwhile.
func TestHostileResetDoesNotStall(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	name := strings.Repeat("a", 40)
	hostile := strings.Repeat("*a", 12) + "*b"
	master := testutil.StartRedis(t)
	for _, b := range []string{testutil.Binary(t, "redis-sentinel"), bin} {
		t.Run(filepath.Base(b), func(t *testing.T) {
			s := startMonitoring(t, b, name, master)
			ctx := context.Background()
			attacker := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, Protocol: 2, ReadTimeout: 5 * time.Second})
			t.Cleanup(func() { attacker.Close() })
			other := sentinelClient(t, s.Addr()) // 2 s read timeout
			done := make(chan error, 1)
			go func() {
				for range 20 {
					n, err := attacker.Do(ctx, "SENTINEL", "RESET", hostile).Int()
					if err == nil && n != 0 {
						err = fmt.Errorf("SENTINEL RESET %q = %d, want 0", hostile, n)
					}
					if err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
			var worst time.Duration
			for i := 0; ; i++ {
				start := time.Now()
				if err := other.Ping(ctx).Err(); err != nil {
					t.Fatalf("PING while RESET runs: %v", err)
				}
				addr, err := other.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name).StringSlice()
				if err != nil || len(addr) != 2 {
					t.Fatalf("GET-MASTER-ADDR-BY-NAME while RESET runs = %v, %v", addr, err)
				}
				worst = max(worst, time.Since(start))
				select {
				case err := <-done:
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("%d PING+GET-MASTER-ADDR-BY-NAME rounds during 20 hostile RESETs, slowest %v", i+1, worst)
					return
				default:
				}
			}
		})
	}
}

// savedEpoch returns the "sentinel current-epoch" of a config file.
func savedEpoch(t *testing.T, conf string) string {
	t.Helper()
	b, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "sentinel current-epoch "); ok {
			return rest
		}
	}
	return "0"
}

// TestEpochPoisoning: an unauthenticated IS-MASTER-DOWN-BY-ADDR with epoch
// INT64_MAX, and a hello published on the sentinel port with that epoch,
// make redis-sentinel 7.0.15 save current-epoch 9223372036854775807 (logged
// here side by side); gosentinel refuses both (docs/security.md), and a
// plausible vote request afterwards is refused while it sees the master
// up and granted once it sees it down (docs/core.md decision 24).
func TestEpochPoisoning(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	master := testutil.StartRedis(t)
	const peer = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	const peer2 = "cccccccccccccccccccccccccccccccccccccccc"
	for _, b := range []string{testutil.Binary(t, "redis-sentinel"), bin} {
		t.Run(filepath.Base(b), func(t *testing.T) {
			s := startMonitoring(t, b, "mym", master)
			c := sentinelClient(t, s.Addr())
			ctx := context.Background()
			port := fmt.Sprint(master.Port)
			vote, verr := c.Do(ctx, "SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", port, "9223372036854775807", peer).Result()
			neg, nerr := c.Do(ctx, "SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", port, "-1", peer).Result()
			hello := "127.0.0.1,26999," + peer2 + ",9223372036854775807,mym,127.0.0.1," + port + ",0"
			_, herr := c.Do(ctx, "PUBLISH", "__sentinel__:hello", hello).Result()
			epoch := savedEpoch(t, s.Conf)
			t.Logf("vote request INT64_MAX: %v %v; -1: %v %v; hello: %v; saved current-epoch %s", vote, verr, neg, nerr, herr, epoch)
			if filepath.Base(b) == "redis-sentinel" {
				return // the finding: real Sentinel adopts it (see the log line)
			}
			if verr == nil || !strings.Contains(verr.Error(), "negative or above the maximum") {
				t.Errorf("INT64_MAX vote request = %v, %v; want an epoch error", vote, verr)
			}
			if nerr == nil || !strings.Contains(nerr.Error(), "never negative") {
				t.Errorf("-1 vote request = %v, %v; want an epoch error", neg, nerr)
			}
			if epoch != "0" {
				t.Errorf("saved current-epoch %s, want 0", epoch)
			}
			// The vote gate (docs/core.md decision 24): no vote while we
			// see the master up, and the epoch is not adopted.
			v, err := c.Do(ctx, "SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", port, "3", peer).Slice()
			if err != nil || len(v) != 3 || v[1] != "*" || v[2] != int64(0) {
				t.Fatalf("plausible vote request, master up = %v, %v; want no vote", v, err)
			}
			if e := savedEpoch(t, s.Conf); e != "0" {
				t.Errorf("saved current-epoch %s after a refused vote, want 0", e)
			}
			// Master down (quorum out of reach: no failover of our own).
			if err := c.Do(ctx, "SENTINEL", "SET", "mym", "quorum", "2").Err(); err != nil {
				t.Fatal(err)
			}
			master.Stop()
			waitMasterSDown(t, c, "mym")
			v, err = c.Do(ctx, "SENTINEL", "IS-MASTER-DOWN-BY-ADDR", "127.0.0.1", port, "3", peer).Slice()
			if err != nil || len(v) != 3 || v[1] != peer || v[2] != int64(3) {
				t.Fatalf("plausible vote request, master down = %v, %v", v, err)
			}
			if e := savedEpoch(t, s.Conf); e != "3" {
				t.Errorf("saved current-epoch %s after a plausible vote, want 3", e)
			}
		})
	}
}

// waitMasterSDown waits until the sentinel behind c flags master name
// s_down (SENTINEL MASTER flags).
func waitMasterSDown(t *testing.T, c *redis.Client, name string) {
	t.Helper()
	ctx := context.Background()
	testutil.WaitFor(t, 10*time.Second, "master "+name+" flagged s_down", func() bool {
		m, err := c.Do(ctx, "SENTINEL", "MASTER", name).StringSlice()
		for i := 0; err == nil && i+1 < len(m); i += 2 {
			if m[i] == "flags" {
				return strings.Contains(m[i+1], "s_down")
			}
		}
		return false
	})
}
