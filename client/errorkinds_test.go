package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// TestErrorKinds: a wrong sentinel password (a real sentinel whose default
// user needs one) is ErrAuth, an address that is a plain redis-server is
// ErrNotSentinel — both as the DiscoveryError's Kind, returned at once —
// and the message names the sentinel and the master once, without
// "client: client:". Before, both were Kind ErrNoSentinelReachable.
func TestErrorKinds(t *testing.T) {
	t.Parallel()
	c := testutil.StartSentinelCluster(t, "mymaster", 0, 1, 1, 5000, 10000)
	locked := c.Sentinels[0].Addr()
	sc := redis.NewClient(&redis.Options{Addr: locked, MaxRetries: -1, Protocol: 2})
	err := sc.Do(context.Background(), "ACL", "SETUSER", "default", "on", ">spw").Err()
	sc.Close()
	if err != nil {
		t.Fatalf("ACL SETUSER on %s: %v", locked, err)
	}
	plain := testutil.StartRedis(t).Addr()
	for _, tc := range []struct {
		name     string
		sentinel string
		pass     string
		want     error
	}{
		{"wrong sentinel password", locked, "nope", ErrAuth},
		{"no sentinel password", locked, "", ErrAuth},
		{"a redis-server, not a sentinel", plain, "", ErrNotSentinel},
		{"right sentinel password", locked, "spw", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{tc.sentinel}, SentinelPassword: tc.pass})
			start := time.Now()
			err := rdb.Ping(context.Background()).Err()
			took := time.Since(start)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Ping: %v", err)
				}
				return
			}
			var de *DiscoveryError
			if !errors.As(err, &de) || de.Kind != tc.want {
				t.Fatalf("error %v: want a DiscoveryError of kind %v", err, tc.want)
			}
			if errors.Is(err, ErrNoSentinelReachable) {
				t.Errorf("error %v also claims ErrNoSentinelReachable", err)
			}
			if took > time.Second {
				t.Errorf("took %v, want at once", took)
			}
			msg := err.Error()
			if strings.Contains(msg, "client: client:") || strings.Count(msg, tc.sentinel) != 1 ||
				strings.Count(msg, "mymaster") != 1 {
				t.Errorf("message %q: want the sentinel and the master named once, no \"client: client:\"", msg)
			}
		})
	}
}

// TestFailFast: with FailFast, while no master is known (the master died
// and the sentinels have not failed over yet) a command fails at once with
// ErrFailoverInProgress instead of waiting up to DialTimeout; once the
// sentinels promoted a replica, commands succeed again. The default
// blocks (TestSIGKILLFailover and the benchmarks cover it).
func TestFailFast(t *testing.T) {
	t.Parallel()
	c := testutil.StartSentinelCluster(t, "mymaster", 1, 3, 2, 1000, 3000)
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: c.SentinelAddrs(), FailFast: true})
	ctx := context.Background()
	if err := rdb.Set(ctx, "ff", 0, 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	c.Top.Master.Kill()
	fast := 0
	var slowest time.Duration
	testutil.WaitFor(t, 30*time.Second, "a write on the new master", func() bool {
		start := time.Now()
		err := rdb.Set(ctx, "ff", 1, 0).Err()
		took := time.Since(start)
		switch {
		case err == nil:
			return true
		case errors.Is(err, ErrFailoverInProgress):
			fast++
			slowest = max(slowest, took)
		}
		return false
	})
	t.Logf("%d writes failed fast with ErrFailoverInProgress, slowest %v", fast, slowest)
	if fast == 0 {
		t.Fatal("no write failed with ErrFailoverInProgress during the outage")
	}
	if slowest > 500*time.Millisecond {
		t.Fatalf("a fail-fast write took %v", slowest)
	}
}

// TestNotSentinelMixedKind checks the documented Kind when a plain
// redis-server and an address that refuses connections are the only
// "sentinels": ErrNoSentinelReachable (one failure is not a
// not-a-sentinel reply), with ErrNotSentinel still found by errors.Is
// among the attempts.
func TestNotSentinelMixedKind(t *testing.T) {
	t.Parallel()
	plain := testutil.StartRedis(t).Addr()
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{plain, "127.0.0.1:1"}, SentinelOrderFixed: true})
	err := rdb.Ping(context.Background()).Err()
	var de *DiscoveryError
	if !errors.As(err, &de) || de.Kind != ErrNoSentinelReachable {
		t.Fatalf("error %v: want a DiscoveryError of kind ErrNoSentinelReachable", err)
	}
	if !errors.Is(err, ErrNotSentinel) {
		t.Fatalf("error %v: errors.Is(ErrNotSentinel) is false", err)
	}
}
