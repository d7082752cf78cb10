package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// runBin runs the binary to completion in dir and returns exit code,
// stdout and stderr.
func runBin(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("gosentinel %q did not exit", args)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

func TestCommandLineExits(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.conf")
	os.WriteFile(bad, []byte("port 26379\n# comment\nsentinel monitor mym 127.0.0.1 6379 0\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "good.conf"), []byte("sentinel monitor mym 127.0.0.1 6379 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "inc.conf"), []byte("port 26379\ninclude "+bad+"\n"), 0o644)
	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     string // regexp
		stderrWant string // regexp
	}{
		{"version", []string{"--version"}, 0, `^Redis server v=7\.0\.15 sha=00000000:0 malloc=libc bits=64 build=gosentinel\n$`, ""},
		{"short version", []string{"-v"}, 0, `^Redis server v=7\.0\.15 `, ""},
		{"help", []string{"--help"}, 0, `(?s)^Usage: gosentinel /path/to/sentinel.conf`, ""},
		{"no config", []string{}, 1, `Sentinel needs config file on disk to save state\. Exiting\.\.\.\n$`, ""},
		{"missing file", []string{"nope.conf"}, 1, `Fatal error, can't open config file '.*/nope\.conf': no such file or directory`, ""},
		{"fatal config error", []string{"bad.conf"}, 1, `# Fatal config file error at /.*/bad\.conf:3: Quorum must be 1 or greater\.\n$`,
			`^\n\*\*\* FATAL CONFIG FILE ERROR \(Redis 7\.0\.15\) \*\*\*\nReading the configuration file, at line 3\n>>> 'sentinel monitor mym 127\.0\.0\.1 6379 0'\nQuorum must be 1 or greater\.\n$`},
		{"fatal error in an included file", []string{"inc.conf"}, 1, `# Fatal config file error at /.*/bad\.conf:3: Quorum must be 1 or greater\.\n$`,
			`^\n\*\*\* FATAL CONFIG FILE ERROR \(Redis 7\.0\.15\) \*\*\*\nReading the configuration file, at line 3\n>>> 'sentinel monitor mym 127\.0\.0\.1 6379 0'\nQuorum must be 1 or greater\.\n$`},
		{"fatal error in an override", []string{"good.conf", "--port", "x"}, 1, `# Fatal config file error at /.*/good\.conf:3: `,
			`^\n\*\*\* FATAL CONFIG FILE ERROR \(Redis 7\.0\.15\) \*\*\*\nReading the configuration file, at line 3\n>>> 'port "x"'\n.+\n$`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runBin(t, dir, tc.args...)
			if code != tc.code {
				t.Errorf("exit code %d, want %d (stdout %q stderr %q)", code, tc.code, out, errs)
			}
			if !regexp.MustCompile(tc.stdout).MatchString(out) {
				t.Errorf("stdout %q does not match %q", out, tc.stdout)
			}
			if tc.stderrWant != "" && !regexp.MustCompile(tc.stderrWant).MatchString(errs) {
				t.Errorf("stderr = %q, want %q", errs, tc.stderrWant)
			}
			if tc.code == 0 && errs != "" {
				t.Errorf("stderr not empty: %q", errs)
			}
		})
	}
}

// TestRelativeConfigDirLogfile starts gosentinel the way test harnesses
// do: relative config path, `dir` elsewhere, `logfile` relative to dir, a
// pidfile; stdout and stderr stay empty, the rewrite goes to the original
// file, SIGTERM removes the pidfile.
func TestRelativeConfigDirLogfile(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	master := testutil.StartRedis(t)
	work := t.TempDir()
	os.Mkdir(filepath.Join(work, "data"), 0o755)
	port := testutil.FreePort(t)
	conf := "# my sentinel\nport " + strconv.Itoa(port) + "\nbind 127.0.0.1\ndir ./data\nlogfile \"log.txt\"\npidfile \"s.pid\"\n" +
		"sentinel monitor mym 127.0.0.1 " + strconv.Itoa(master.Port) + " 1\n"
	os.WriteFile(filepath.Join(work, "sentinel.conf"), []byte(conf), 0o644)
	cmd := exec.Command(bin, "sentinel.conf")
	cmd.Dir = work
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if err := testutil.WaitPing(addr, 10*time.Second, done); err != nil {
		t.Fatalf("no PONG: %v (stderr %q)", err, errb.String())
	}
	pidfile := filepath.Join(work, "data", "s.pid")
	testutil.WaitFor(t, 5*time.Second, "pidfile and myid written", func() bool {
		b, _ := os.ReadFile(filepath.Join(work, "sentinel.conf"))
		_, err := os.Stat(pidfile)
		return err == nil && regexp.MustCompile(`(?m)^sentinel myid [0-9a-f]{40}$`).Match(b)
	})
	// Log rotation without a signal: the next line creates a new file.
	logPath := filepath.Join(work, "data", "log.txt")
	if err := os.Rename(logPath, logPath+".1"); err != nil {
		t.Fatal(err)
	}
	sc := redisClient(t, addr)
	if err := sc.Do(context.Background(), "SENTINEL", "SET", "mym", "quorum", "1").Err(); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 5*time.Second, "+set logged into a new log.txt", func() bool {
		b, err := os.ReadFile(logPath)
		return err == nil && strings.Contains(string(b), "+set master mym")
	})
	// SIGHUP is ignored, like redis-server does.
	cmd.Process.Signal(syscall.SIGHUP)
	if err := testutil.Ping(addr); err != nil {
		t.Fatalf("no PONG after SIGHUP: %v", err)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after SIGTERM", code)
	}
	if out.Len() != 0 || errb.Len() != 0 {
		t.Errorf("stdout %q / stderr %q, want both empty", out.String(), errb.String())
	}
	if _, err := os.Stat(pidfile); !os.IsNotExist(err) {
		t.Errorf("pidfile still there after SIGTERM: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "data", "sentinel.conf")); !os.IsNotExist(err) {
		t.Errorf("config written into dir instead of the original path")
	}
	b, _ := os.ReadFile(filepath.Join(work, "sentinel.conf"))
	got := string(b)
	for _, want := range []string{"# my sentinel\n", "dir \"" + filepath.Join(work, "data") + "\"", "sentinel monitor mym 127.0.0.1 " + strconv.Itoa(master.Port) + " 1", "sentinel current-epoch 0"} {
		if !strings.Contains(got, want) {
			t.Errorf("rewritten config lacks %q:\n%s", want, got)
		}
	}
	log1, _ := os.ReadFile(logPath + ".1")
	log2, _ := os.ReadFile(logPath)
	log := append(log1, log2...)
	for _, want := range []string{"# +monitor master mym 127.0.0.1 " + strconv.Itoa(master.Port) + " quorum 1", "Sentinel ID is ", "# User requested shutdown...", "* Removing the pid file.", "bye bye"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// TestSymlinkedAsRedisSentinel: tools that exec "redis-sentinel" get
// gosentinel through a symlink.
func TestSymlinkedAsRedisSentinel(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "redis-sentinel")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(link, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "Redis server v=7.0.15") {
		t.Fatalf("redis-sentinel --version = %q, %v", out, err)
	}
}

func redisClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, Protocol: 2})
	t.Cleanup(func() { c.Close() })
	return c
}
