package client

import (
	"context"
	"errors"
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
