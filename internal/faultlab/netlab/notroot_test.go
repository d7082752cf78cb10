package netlab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

func TestCheckRoot(t *testing.T) {
	if err := checkRoot(0); err != nil {
		t.Fatalf("uid 0: %v", err)
	}
	err := checkRoot(1000)
	if !errors.Is(err, ErrNotRoot) || !strings.Contains(err.Error(), "uid 1000") {
		t.Fatalf("uid 1000: want ErrNotRoot naming the uid, got %v", err)
	}
}

// notRootChildEnv makes the test binary, re-executed as an ordinary user,
// call New and report what it returned.
const notRootChildEnv = "NETLAB_NOTROOT_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(notRootChildEnv) == "1" {
		_, err := New(context.Background(), Options{})
		switch {
		case errors.Is(err, ErrNotRoot):
			fmt.Println("NOTROOT-OK:", err)
			os.Exit(0)
		default:
			fmt.Println("NOTROOT-BAD:", err)
			os.Exit(1)
		}
	}
	if os.Getenv(signalChildEnv) == "1" {
		signalChild()
	}
	// Every lab was closed: no goroutine (proxy, spawner, waiter) may be left.
	goleak.VerifyTestMain(m)
}

// TestNewRefusesNonRoot runs New as uid 65534 (nobody): it must return
// ErrNotRoot (and create nothing), not skip.
func TestNewRefusesNonRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		// We are the non-root case ourselves.
		if _, err := New(context.Background(), Options{}); !errors.Is(err, ErrNotRoot) {
			t.Fatalf("New as uid %d: %v", os.Geteuid(), err)
		}
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "netlab-notroot-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "netlab.test")
	if err := copyFile(self, bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), notRootChildEnv+"=1", "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "NOTROOT-OK") || !strings.Contains(string(out), ErrNotRoot.Error()) {
		t.Fatalf("New as uid 65534: %v\n%s", err, out)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
