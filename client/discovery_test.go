package client

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

func newTestClient(t *testing.T, o FailoverOptions) *redis.Client {
	t.Helper()
	if o.MasterName == "" {
		o.MasterName = "mymaster"
	}
	// The tests name which sentinel is asked first (a liar, a black
	// hole...): keep the given order. TestSentinelRotation covers the
	// default rotation.
	o.SentinelOrderFixed = true
	rdb := NewFailoverClient(&o)
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func TestDiscoveryErrors(t *testing.T) {
	t.Parallel()
	top := testutil.StartTopology(t, 1)
	known := startFakeSentinel(t, top.Master.Addr(), 1)
	unknown := startFakeSentinel(t, "", 0)
	liar := startFakeSentinel(t, top.Replicas[0].Addr(), 1)
	tests := []struct {
		name      string
		sentinels []string
		quorum    int
		want      error
		maxTime   time.Duration
	}{
		{"all sentinels down", []string{closedAddr(t), closedAddr(t)}, 0, ErrNoSentinelReachable, time.Second},
		{"no sentinel configured", nil, 0, ErrNoSentinelReachable, time.Second},
		{"master unknown", []string{unknown.addr(), closedAddr(t)}, 0, ErrMasterNotFound, time.Second},
		{"only a lying sentinel", []string{liar.addr()}, 0, ErrRoleMismatch, 3 * time.Second},
		{"honest after unknown", []string{unknown.addr(), known.addr()}, 0, nil, time.Second},
		{"lying first, honest second", []string{liar.addr(), known.addr()}, 0, nil, time.Second},
		{"lying first, quorum 1", []string{liar.addr(), known.addr()}, 1, ErrRoleMismatch, 3 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rdb := newTestClient(t, FailoverOptions{SentinelAddrs: tc.sentinels, SentinelQuorum: tc.quorum,
				DialTimeout: time.Second, MaxRetries: -1})
			start := time.Now()
			err := rdb.Set(context.Background(), "k", "v", 0).Err()
			el := time.Since(start)
			if tc.want == nil && err != nil {
				t.Fatalf("Set: %v", err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("Set error = %v, want errors.Is %v", err, tc.want)
			}
			if el > tc.maxTime {
				t.Fatalf("took %v, want < %v", el, tc.maxTime)
			}
		})
	}
}

func TestBlackHoledFirstSentinel(t *testing.T) {
	t.Parallel()
	m := testutil.StartRedis(t)
	honest := startFakeSentinel(t, m.Addr(), 1)
	bh := blackHole(t)
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{bh, honest.addr()}, SentinelTimeout: 200 * time.Millisecond})
	start := time.Now()
	if err := rdb.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatalf("Set: %v", err)
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("first command took %v with a black-holed first sentinel, want < 1s", el)
	}
	st, ok := StatsOf(rdb)
	if !ok {
		t.Fatal("StatsOf: not a client of this package")
	}
	if st.Sentinels[0] != honest.addr() {
		t.Fatalf("sentinel order %v: the responder must move to the front", st.Sentinels)
	}
	if st.CurrentAddr != m.Addr() {
		t.Fatalf("current address %q, want %q", st.CurrentAddr, m.Addr())
	}
}
