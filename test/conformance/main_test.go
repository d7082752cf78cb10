package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// OursBinEnv names an environment variable holding a prebuilt gosentinel
// binary; when unset TestMain builds ./cmd/gosentinel.
const OursBinEnv = "GOSENTINEL_CONFORMANCE_BIN"

// realBin and oursBin are the two sentinel binaries compared.
var (
	realBin string
	oursBin string
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
	if b := os.Getenv(OursBinEnv); b != "" {
		oursBin = b
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "gosentinel-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	// The name matters: tools start it as redis-sentinel.
	oursBin = filepath.Join(dir, "redis-sentinel")
	cmd := exec.Command("go", "build", "-o", oursBin, "github.com/gosentinel/gosentinel/cmd/gosentinel")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "conformance: build gosentinel:", err)
		return 1
	}
	return m.Run()
}
