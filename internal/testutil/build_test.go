package testutil

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestBuildGosentinel(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	dir := t.TempDir()
	bin, err := BuildGosentinel(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(bin)
	if err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("built %s: %v, mode %v", bin, err, st.Mode())
	}
	// The second call is served from the cache: the file is not rewritten.
	again, err := BuildGosentinel(dir)
	if err != nil || again != bin {
		t.Fatalf("second build = %q, %v; want %q", again, err, bin)
	}
	st2, err := os.Stat(again)
	if err != nil || !st2.ModTime().Equal(st.ModTime()) {
		t.Fatalf("second call rebuilt the binary (mtime %v, then %v)", st.ModTime(), st2.ModTime())
	}
	// A removed binary is built again.
	if err := os.Remove(bin); err != nil {
		t.Fatal(err)
	}
	if b, err := BuildGosentinel(dir); err != nil || b != bin {
		t.Fatalf("rebuild after removal = %q, %v", b, err)
	}
	// The binary is the gosentinel command (it prints a version like
	// redis-sentinel -v).
	out, err := exec.Command(bin, "-v").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "v=") {
		t.Fatalf("%s -v = %q, %v", bin, out, err)
	}
}

func TestBuildGosentinelError(t *testing.T) {
	// Outside any module the package cannot be found: a BuildError with the
	// go tool's output.
	_, err := BuildGosentinelContext(t.Context(), os.TempDir(), t.TempDir())
	var be *BuildError
	if !errors.As(err, &be) || be.Output == "" {
		t.Fatalf("err = %v, want a *BuildError with output", err)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("err = %v does not unwrap to the go tool's exit error", err)
	}
}
