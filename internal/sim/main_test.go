package sim

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind (RunMany
// and FirstViolation start workers).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
