package workload

import (
	"fmt"
	"os"
	"testing"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"go.uber.org/goleak"
)

// gosentinelBin is the gosentinel binary built for this test process.
var gosentinelBin string

// TestMain builds gosentinel, runs the tests and fails the package if any
// goroutine (writers, sampler, clients) outlives them.
func TestMain(m *testing.M) {
	os.Exit(testutil.RunWithGosentinel("workload", func(bin, _ string) int {
		gosentinelBin = bin
		code := m.Run()
		if code == 0 {
			if err := goleak.Find(); err != nil {
				fmt.Fprintln(os.Stderr, "workload: leaked goroutines:", err)
				return 1
			}
		}
		return code
	}))
}
