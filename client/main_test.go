package client

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// TestMain fails the package if any goroutine (ours, go-redis's or a test
// helper's) outlives the tests. goleak.Find retries for about half a
// second; go-redis's pool retries a failed dial in a goroutine that sleeps
// 1 s between attempts and only sees Close at its next one (tests that end
// with the master dead leave one), so the check waits up to 5 s for the
// goroutines to end before it reports them.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		deadline := time.Now().Add(5 * time.Second)
		err := goleak.Find()
		for err != nil && time.Now().Before(deadline) {
			err = goleak.Find()
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines left after the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// resolverOf returns the resolver of a client of this package.
func resolverOf(rdb *redis.Client) *resolver {
	return rdb.Options().Limiter.(*limiter).r
}
