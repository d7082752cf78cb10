package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestDaemonize: `daemonize yes` re-executes the binary detached; the
// parent exits 0 at once, the child writes the pidfile, serves, and removes
// the pidfile on SIGTERM.
func TestDaemonize(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	master := testutil.StartRedis(t)
	dir := t.TempDir()
	port := testutil.FreePort(t)
	pidfile := filepath.Join(dir, "s.pid")
	conf := "port " + strconv.Itoa(port) + "\nbind 127.0.0.1\ndaemonize yes\npidfile " + strconv.Quote(pidfile) +
		"\nlogfile " + strconv.Quote(filepath.Join(dir, "s.log")) +
		"\nsentinel monitor mym 127.0.0.1 " + strconv.Itoa(master.Port) + " 1\n"
	if err := os.WriteFile(filepath.Join(dir, "sentinel.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runBin(t, dir, "sentinel.conf")
	if code != 0 || out != "" || errs != "" {
		t.Fatalf("parent: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	var pid int
	testutil.WaitFor(t, 10*time.Second, "pidfile of the daemon", func() bool {
		b, err := os.ReadFile(pidfile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if err := testutil.WaitPing("127.0.0.1:"+strconv.Itoa(port), 10*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	if sid, _ := syscall.Getpgid(pid); sid != pid {
		t.Errorf("daemon pgid %d, want its own session/group %d", sid, pid)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "pidfile removed after SIGTERM", func() bool {
		_, err := os.Stat(pidfile)
		return os.IsNotExist(err)
	})
}
