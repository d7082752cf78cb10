package client

import (
	"github.com/redis/go-redis/v9"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any goroutine (ours, go-redis's or a test
// helper's) outlives the tests.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// resolverOf returns the resolver of a client of this package.
func resolverOf(rdb *redis.Client) *resolver {
	return rdb.Options().Limiter.(*limiter).r
}
