package client

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// TestDataNodeAuthAndRoleFallback covers data-node credentials and the
// INFO replication fallback when ROLE is renamed away.
func TestDataNodeAuthAndRoleFallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		extra   []string
		setPass string // CONFIG SET requirepass after start (testutil waits with an unauthenticated PING)
		pass    string
		wantErr error
	}{
		{"password", nil, "s3cret", "s3cret", nil},
		{"wrong password", nil, "s3cret", "nope", ErrAuth},
		{"missing password", nil, "s3cret", "", ErrAuth},
		{"ROLE renamed: INFO fallback", []string{`rename-command ROLE ""`}, "", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := testutil.StartRedis(t, tc.extra...)
			if tc.setPass != "" {
				c := redis.NewClient(&redis.Options{Addr: m.Addr()})
				err := c.ConfigSet(context.Background(), "requirepass", tc.setPass).Err()
				c.Close()
				if err != nil {
					t.Fatalf("CONFIG SET requirepass: %v", err)
				}
			}
			fs := startFakeSentinel(t, m.Addr(), 1)
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, Password: tc.pass,
				DialTimeout: 2 * time.Second})
			start := time.Now()
			err := rdb.Set(context.Background(), "k", "v", 0).Err()
			if tc.wantErr == nil && err != nil {
				t.Fatalf("Set: %v", err)
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Set error = %v, want %v", err, tc.wantErr)
				}
				if el := time.Since(start); el > time.Second {
					t.Fatalf("auth failure took %v: it must not be retried", el)
				}
			}
		})
	}
}

// TestSentinelAuth checks sentinel credentials, separate from the data
// node's, and that a rejected password is reported at once.
func TestSentinelAuth(t *testing.T) {
	t.Parallel()
	m := testutil.StartRedis(t)
	// OnConnect runs on the sentinel connection once authenticated and
	// on the data connection, as in go-redis; never on a connection
	// whose AUTH was refused. With no password nothing is refused before
	// the first query: not counted.
	tests := []struct {
		name      string
		pass      string
		wantErr   error
		wantCalls int32
	}{
		{"right password", "spw", nil, 2},
		{"wrong password", "nope", ErrAuth, 0},
		{"no password", "", ErrAuth, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			fs := startFakeSentinel(t, m.Addr(), 1)
			fs.mu.Lock()
			fs.password = "spw"
			fs.mu.Unlock()
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, SentinelPassword: tc.pass,
				DisablePubSub: true, OnConnect: func(ctx context.Context, cn *redis.Conn) error {
					calls.Add(1)
					return nil
				}})
			start := time.Now()
			err := rdb.Ping(context.Background()).Err()
			switch {
			case tc.wantErr == nil && err != nil:
				t.Fatalf("Ping: %v", err)
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Fatalf("Ping error = %v, want %v", err, tc.wantErr)
			case time.Since(start) > time.Second:
				t.Fatalf("took %v", time.Since(start))
			}
			if tc.wantCalls >= 0 && calls.Load() != tc.wantCalls {
				t.Fatalf("OnConnect ran %d times, want %d (the sentinel connection once authenticated, the data connection)", calls.Load(), tc.wantCalls)
			}
		})
	}
}
