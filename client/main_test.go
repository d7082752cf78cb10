package client

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any goroutine (ours, go-redis's or a test
// helper's) outlives the tests.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
