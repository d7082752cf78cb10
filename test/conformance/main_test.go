package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// OursBinEnv names an environment variable holding a prebuilt gosentinel
// binary; when unset TestMain builds ./cmd/gosentinel.
const OursBinEnv = "GOSENTINEL_CONFORMANCE_BIN"

// realBin and oursBin are the two sentinel binaries compared.
var (
	realBin   string
	oursBin   string
	valkeyBin string // valkey-sentinel 8.0.x, the newest implementation compared
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	p, err := exec.LookPath("redis-sentinel")
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance: redis-sentinel not installed, skipping")
		return 0
	}
	realBin = p
	if v, err := exec.LookPath("valkey-sentinel"); err == nil {
		valkeyBin = v // tests needing it fail without it (newer_test.go)
	}
	if b := os.Getenv(OursBinEnv); b != "" {
		oursBin = b
		return m.Run()
	}
	return testutil.RunWithGosentinel("conformance", func(built, dir string) int {
		// The name matters: tools start it as redis-sentinel, and INFO's
		// executable field is read from /proc/self/exe, which a symlink would
		// resolve back to "gosentinel"; so the file itself is renamed.
		oursBin = filepath.Join(dir, "redis-sentinel")
		if err := os.Rename(built, oursBin); err != nil {
			fmt.Fprintln(os.Stderr, "conformance: name gosentinel redis-sentinel:", err)
			return 1
		}
		return m.Run()
	})
}
