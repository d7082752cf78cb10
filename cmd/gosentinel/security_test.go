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
