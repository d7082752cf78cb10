package glob

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// TestMatchRealRedis replays the table and a few thousand random short
// pattern/string pairs against a real redis-server: KEYS on a database that
// holds only the string (case-sensitive matching), and COMMAND LIST FILTERBY
// PATTERN (case-insensitive matching against the command names).
func TestMatchRealRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	p := testutil.StartRedis(t)
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), Protocol: 2})
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()

	type pair struct{ pat, s string }
	var pairs []pair
	for _, tc := range cases {
		if !tc.nocase {
			pairs = append(pairs, pair{tc.pat, tc.s})
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "ab*?[]^-\\A"
	randStr := func(n int) string {
		var b strings.Builder
		for range rng.IntN(n + 1) {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 3000 {
		pairs = append(pairs, pair{randStr(8), randStr(6)})
	}
	checked := 0
	for _, pr := range pairs {
		if pr.pat == "*" {
			continue // KEYS short-cuts a lone "*" before stringmatchlen
		}
		cmds, err := c.Pipelined(ctx, func(pp redis.Pipeliner) error {
			pp.FlushAll(ctx)
			pp.Set(ctx, pr.s, "1", 0)
			pp.Keys(ctx, pr.pat)
			return nil
		})
		if err != nil {
			t.Fatalf("KEYS %q: %v", pr.pat, err)
		}
		real := len(cmds[2].(*redis.StringSliceCmd).Val()) == 1
		if got := Match(pr.pat, pr.s, false); got != real {
			t.Errorf("Match(%q, %q) = %v, redis-server says %v", short(pr.pat), short(pr.s), got, real)
		}
		checked++
	}

	names, err := c.Do(ctx, "COMMAND", "LIST").StringSlice()
	if err != nil {
		t.Fatal(err)
	}
	for _, pat := range []string{"S*", "s?t", "*SCAN", "[a-C]*", "[^A-Y]*", "C[L]IEN?", "*e*e*e*", "x[", "\\G\\E\\T"} {
		real, err := c.Do(ctx, "COMMAND", "LIST", "FILTERBY", "PATTERN", pat).StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range names {
			if Match(pat, n, true) {
				got = append(got, n)
			}
		}
		slices.Sort(got)
		slices.Sort(real)
		if !slices.Equal(got, real) {
			t.Errorf("nocase %q: Match selects %v, redis-server %v", pat, got, real)
		}
		checked++
	}
	t.Logf("%d patterns compared with redis-server", checked)
}
