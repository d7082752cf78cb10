package netlab

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

const signalChildEnv = "NETLAB_SIGNAL_CHILD"

// signalChild builds a lab with a process, prints its prefix and the
// process's PID, and waits for CloseOnSignal to end it.
func signalChild() {
	l, err := New(context.Background(), Options{})
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	l.CloseOnSignal(context.Background())
	h, err := l.AddHost("a")
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	p, err := h.Start(ProcSpec{Name: "sleeper", Argv: []string{"sleep", "3600"}})
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	fmt.Println("READY", l.Prefix(), p.PID)
	select {}
}

func TestCloseOnSignal(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), signalChildEnv+"=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var prefix string
	var pid int
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if prefix != "" {
			_ = CleanupStale(prefix)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if _, serr := fmt.Sscanf(line, "READY %s %d", &prefix, &pid); err != nil || serr != nil {
		t.Fatalf("child: %q %v %v", line, err, serr)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("child did not exit after SIGTERM")
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Fatalf("child exit: %v, want status %d", err, 128+int(syscall.SIGTERM))
	}
	names, _ := listNetns()
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			t.Fatalf("namespace %s left after SIGTERM", n)
		}
	}
	if alive(pid) {
		t.Fatalf("lab process %d alive after SIGTERM", pid)
	}
	prefix = ""
}

// TestCrashKillsProcesses SIGKILLs a test binary that runs a lab: Close
// never runs, yet the lab's process dies (Pdeathsig), and the next New on
// the same index removes the namespaces left behind.
func TestCrashKillsProcesses(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), signalChildEnv+"=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var prefix string
	var pid int
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if prefix != "" {
			_ = CleanupStale(prefix)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if _, serr := fmt.Sscanf(line, "READY %s %d", &prefix, &pid); err != nil || serr != nil {
		t.Fatalf("child: %q %v %v", line, err, serr)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("lab process %d survived the crash of its test binary", pid)
		}
		time.Sleep(10 * time.Millisecond) // not our child: nothing to wait on
	}
	var idx int
	if _, err := fmt.Sscanf(prefix, NamePrefix+"%d-", &idx); err != nil {
		t.Fatal(err)
	}
	l, err := New(context.Background(), Options{Index: idx, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	names, _ := listNetns()
	for _, n := range names {
		if n == prefix+"a" {
			t.Fatalf("stale namespace %s survived New", n)
		}
	}
}
