package testutil

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// GosentinelPkg is the import path of the gosentinel command.
const GosentinelPkg = "github.com/gosentinel/gosentinel/cmd/gosentinel"

// BuildError is returned when `go build` of the gosentinel command fails;
// Output holds what the go tool printed.
type BuildError struct {
	Output string
	Err    error
}

// Error returns the go tool's error and its output.
func (e *BuildError) Error() string {
	return fmt.Sprintf("go build %s: %v: %s", GosentinelPkg, e.Err, strings.TrimSpace(e.Output))
}

// Unwrap returns the error of the go tool's process.
func (e *BuildError) Unwrap() error { return e.Err }

// builds caches the binaries built by this process, by output path, so that
// several TestMains or helpers of one process build at most once each.
var builds = struct {
	sync.Mutex
	done map[string]bool
}{done: map[string]bool{}}

// BuildGosentinel builds the gosentinel command into dir/gosentinel and
// returns its path. The go tool runs in the current directory, which for a
// test is its package directory inside this module. A successful build is
// cached for the life of the process: calling it again with the same dir
// returns at once while the file is still there.
func BuildGosentinel(dir string) (string, error) {
	return BuildGosentinelContext(context.Background(), "", dir)
}

// BuildGosentinelContext is BuildGosentinel with a context and the directory
// the go tool runs in (moduleDir, "" for the current one), for tools that
// run outside `go test` (bench). Builds are serialised: the machine's cores
// are better spent on one build at a time.
func BuildGosentinelContext(ctx context.Context, moduleDir, dir string) (string, error) {
	out, err := filepath.Abs(filepath.Join(dir, "gosentinel"))
	if err != nil {
		return "", fmt.Errorf("build gosentinel: %w", err)
	}
	builds.Lock()
	defer builds.Unlock()
	if builds.done[out] {
		if _, err := os.Stat(out); err == nil {
			return out, nil
		}
		delete(builds.done, out)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("build gosentinel: %w", err)
	}
	cmd := exec.CommandContext(ctx, goTool(), "build", "-o", out, GosentinelPkg)
	cmd.Dir = moduleDir
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", &BuildError{Output: string(msg), Err: err}
	}
	builds.done[out] = true
	return out, nil
}

// goTool returns the go command on PATH, or the toolchain's usual place.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "/usr/local/go/bin/go"
}

// RunWithGosentinel is the body of a TestMain that needs the gosentinel
// binary: it builds it into a fresh temporary directory, calls run with the
// binary's path and that directory (run usually ends with m.Run()), and
// removes the directory afterwards. It returns run's exit code, or 1 after
// printing the error when the directory or the build fails; prefix names
// the directory and the error messages.
func RunWithGosentinel(prefix string, run func(bin, dir string) int) int {
	dir, err := os.MkdirTemp("", "gosentinel-"+prefix+"-")
	if err != nil {
		fmt.Fprintln(os.Stderr, prefix+":", err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin, err := BuildGosentinel(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, prefix+":", err)
		return 1
	}
	return run(bin, dir)
}
