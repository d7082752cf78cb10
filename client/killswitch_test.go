package client

import (
	"testing"

	"github.com/redis/go-redis/v9"
)

// The timed kill → first write measurement that lived here
// (TestKillToFirstWrite, a ≤ 60 ms assertion) is a benchmark now, side by
// side with go-redis: bench/clientbench TestKillToFirstWriteCompare.

// statsOf returns the client's stats (a test client always has them).
func statsOf(t *testing.T, rdb *redis.Client) Stats {
	t.Helper()
	s, ok := StatsOf(rdb)
	if !ok {
		t.Fatal("StatsOf: not one of our clients")
	}
	return s
}
