package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestAuthPass: a master with requirepass is monitored with `sentinel
// auth-pass` (links up, flags "master"); without it, SUBSCRIBE fails with
// NOAUTH, the pub/sub link is closed and the master shows "disconnected"
// (tools rely on this), then s_down.
func TestAuthPass(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	master := testutil.StartRedis(t)
	mc := redisClient(t, master.Addr())
	if err := mc.Do(context.Background(), "CONFIG", "SET", "requirepass", "s3cret").Err(); err != nil {
		t.Fatal(err)
	}
	start := func(extra string) *testutil.Process {
		dir := t.TempDir()
		port := testutil.FreePort(t)
		conf := filepath.Join(dir, "sentinel.conf")
		log := filepath.Join(dir, "sentinel.log")
		body := fmt.Sprintf("port %d\nbind 127.0.0.1\nlogfile %s\nsentinel monitor mym 127.0.0.1 %d 1\nsentinel down-after-milliseconds mym 1000\n%s",
			port, strconv.Quote(log), master.Port, extra)
		if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return testutil.StartSentinelConf(t, bin, conf, port, log)
	}
	tests := []struct {
		name  string
		extra string
		flags []string // every one must appear in "flags"
	}{
		{"with auth-pass", "sentinel auth-pass mym s3cret\n", []string{"master"}},
		{"without auth-pass", "", []string{"master", "disconnected", "s_down"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := start(tc.extra)
			var last string
			testutil.WaitFor(t, 10*time.Second, "flags "+strings.Join(tc.flags, ","), func() bool {
				m, err := testutil.SentinelMaster(s.Addr(), "mym")
				if err != nil {
					return false
				}
				last = m["flags"]
				for _, f := range tc.flags {
					if !strings.Contains(","+last+",", ","+f+",") {
						return false
					}
				}
				return len(tc.flags) > 1 || last == "master"
			})
			if tc.extra != "" {
				// Connection names on the master: sentinel-<id8>-cmd / -pubsub.
				ac := redis.NewClient(&redis.Options{Addr: master.Addr(), Password: "s3cret", MaxRetries: -1, Protocol: 2})
				defer ac.Close()
				list, err := ac.Do(context.Background(), "CLIENT", "LIST").Text()
				if err != nil {
					t.Fatal(err)
				}
				for _, suffix := range []string{"-cmd", "-pubsub"} {
					if !regexp.MustCompile(`name=sentinel-[0-9a-f]{8}` + suffix + ` `).MatchString(list) {
						t.Errorf("CLIENT LIST lacks a sentinel-xxxxxxxx%s connection:\n%s", suffix, list)
					}
				}
			}
		})
	}
}
