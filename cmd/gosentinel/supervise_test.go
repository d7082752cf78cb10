package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestSupervisedSystemd starts each sentinel the way Debian's
// redis-sentinel.service does (Type=notify: `sentinel.conf --supervised
// systemd`, $NOTIFY_SOCKET set) with `daemonize yes` in the file, and reads
// the sd_notify datagrams: the same messages in the same order as real
// redis-sentinel's, READY=1 only once the port answers, the process in the
// foreground (systemd would lose a daemonized one), INFO's
// process_supervised, and STOPPING=1 on SIGTERM. `supervised auto` detects
// systemd from $NOTIFY_SOCKET alone.
func TestSupervisedSystemd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	for _, impl := range []struct{ name, bin string }{
		{"redis-sentinel", testutil.Binary(t, "redis-sentinel")},
		{"gosentinel", bin},
	} {
		for _, mode := range []string{"systemd", "auto"} {
			t.Run(impl.name+"/"+mode, func(t *testing.T) {
				checkSupervisedSystemd(t, impl.bin, mode)
			})
		}
	}
}

func checkSupervisedSystemd(t *testing.T, sentinelBin, mode string) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "notify.sock")
	notify, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { notify.Close() })
	msgs := make(chan string, 16)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := notify.Read(buf)
			if err != nil {
				close(msgs)
				return
			}
			msgs <- string(buf[:n])
		}
	}()
	port := testutil.FreePort(t)
	conf := "port " + strconv.Itoa(port) + "\nbind 127.0.0.1\ndaemonize yes\nsentinel monitor mym 127.0.0.1 " +
		strconv.Itoa(testutil.FreePort(t)) + " 1\n"
	if err := os.WriteFile(filepath.Join(dir, "sentinel.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sentinelBin, "sentinel.conf", "--supervised", mode)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NOTIFY_SOCKET="+sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	next := func(what string) string {
		t.Helper()
		select {
		case m, ok := <-msgs:
			if !ok {
				t.Fatalf("notify socket closed waiting for %s", what)
			}
			return m
		case <-exited:
			t.Fatalf("the sentinel exited (a daemonized process would) waiting for %s", what)
		case <-time.After(10 * time.Second):
			t.Fatalf("no sd_notify message for %s within 10 s", what)
		}
		return ""
	}
	for _, want := range []string{"STATUS=Redis is loading...\n", "STATUS=Ready to accept connections\n", "READY=1\n"} {
		if got := next(strconv.Quote(want)); got != want {
			t.Fatalf("sd_notify message %q, want %q", got, want)
		}
	}
	// READY=1 means the port answers now, not after a retry.
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err != nil {
		t.Fatalf("READY=1 sent but the port does not accept: %v", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("INFO server\r\n")); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	supervised := ""
	for supervised == "" {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("INFO server: %v", err)
		}
		if v, ok := strings.CutPrefix(line, "process_supervised:"); ok {
			supervised = strings.TrimSpace(v)
		}
	}
	if supervised != "systemd" {
		t.Errorf("INFO process_supervised:%s, want systemd", supervised)
	}
	select {
	case <-exited:
		t.Fatal("the sentinel exited: `daemonize yes` must be ignored under systemd")
	default:
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if got := next(`"STOPPING=1\n"`); got != "STOPPING=1\n" {
		t.Fatalf("sd_notify message after SIGTERM %q, want STOPPING=1", got)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the sentinel did not exit after SIGTERM")
	}
}
