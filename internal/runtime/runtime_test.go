package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/gosentinel/gosentinel/internal/config"
	"github.com/gosentinel/gosentinel/internal/testutil"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// startRuntime loads conf (a sentinel.conf body) from a temp file and runs
// a Runtime on a free port until the test ends.
func startRuntime(t *testing.T, body string) (*Runtime, string, string) {
	t.Helper()
	r, addr, path, _ := startRuntimeDone(t, body)
	return r, addr, path
}

// startRuntimeDone is startRuntime that also returns a channel receiving
// Run's result.
func startRuntimeDone(t *testing.T, body string) (*Runtime, string, string, <-chan error) {
	t.Helper()
	dir := t.TempDir()
	port := testutil.FreePort(t)
	path := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(path, []byte("port "+strconv.Itoa(port)+"\nbind 127.0.0.1\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{ConfigPath: path, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	result := make(chan error, 1)
	go func() {
		err := r.Run(ctx)
		done <- err
		result <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if err := testutil.WaitPing(addr, 10*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	return r, addr, path, result
}

func client(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, Protocol: 2, PoolSize: 1})
	t.Cleanup(func() { c.Close() })
	return c
}

func TestRuntimeServesAndPersists(t *testing.T) {
	master := testutil.StartRedis(t)
	r, addr, path := startRuntime(t, fmt.Sprintf("sentinel monitor mym 127.0.0.1 %d 1\n", master.Port))
	c := client(t, addr)
	ctx := context.Background()

	tests := []struct {
		args []any
		want string // substring of the formatted reply
	}{
		{[]any{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym"}, fmt.Sprintf("[127.0.0.1 %d]", master.Port)},
		{[]any{"SENTINEL", "MYID"}, r.MyID()},
		{[]any{"ROLE"}, "[sentinel [mym]]"},
		{[]any{"SENTINEL", "MASTER", "nope"}, "ERR No such master with that name"},
		{[]any{"INFO", "sentinel"}, "sentinel_masters:1"},
	}
	for _, tc := range tests {
		v, err := c.Do(ctx, tc.args...).Result()
		got := fmt.Sprint(v)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%v = %q, want it to contain %q", tc.args, got, tc.want)
		}
	}
	// A SENTINEL SET is persisted to the original file before its +OK.
	if err := c.Do(ctx, "SENTINEL", "SET", "mym", "down-after-milliseconds", "4321").Err(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "sentinel down-after-milliseconds mym 4321") || !strings.Contains(string(b), "sentinel myid "+r.MyID()) {
		t.Errorf("config not rewritten before +OK:\n%s", b)
	}
	// Events are published on the server's pub/sub.
	sub := c.Subscribe(ctx, "+set")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	c2 := client(t, addr)
	if err := c2.Do(ctx, "SENTINEL", "SET", "mym", "quorum", "1").Err(); err != nil {
		t.Fatal(err)
	}
	msg, err := sub.ReceiveMessage(ctx)
	if err != nil || msg.Payload != fmt.Sprintf("master mym 127.0.0.1 %d quorum 1", master.Port) {
		t.Errorf("+set message = %v, %v", msg, err)
	}
}

// TestScriptExecution: the notification script is executed directly with
// the event as arguments, inherits the environment and gets no descriptor
// but stdio (even descriptors the test process inherited without
// FD_CLOEXEC from whoever started it).
func TestScriptExecution(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "script.out")
	script := filepath.Join(dir, "notify.sh")
	body := "#!/bin/sh\nprintf 'args=%s|%s\\nmarker=%s\\n' \"$1\" \"$2\" \"$GOSENTINEL_MARKER\" >> " + out +
		"\nexec /bin/ls -l /proc/self/fd >> " + out + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOSENTINEL_MARKER", "inherited")
	// A descriptor without FD_CLOEXEC in the sentinel must not leak.
	f, err := os.Open(script)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_SETFD, 0); errno != 0 {
		t.Fatal(errno)
	}
	master := testutil.StartRedis(t)
	startRuntime(t, fmt.Sprintf("sentinel monitor mym 127.0.0.1 %d 1\nsentinel notification-script mym %s\n", master.Port, script))
	var got string
	testutil.WaitFor(t, 10*time.Second, "notification script ran for +monitor", func() bool {
		b, _ := os.ReadFile(out)
		got = string(b)
		return strings.Contains(got, "/proc/")
	})
	want := fmt.Sprintf("args=+monitor|master mym 127.0.0.1 %d quorum 1\nmarker=inherited\n", master.Port)
	if !strings.HasPrefix(got, want) {
		t.Errorf("script saw:\n%s\nwant prefix:\n%s", got, want)
	}
	for _, line := range strings.Split(got, "\n") {
		i := strings.Index(line, " -> ")
		if i < 0 {
			continue
		}
		fields := strings.Fields(line[:i])
		fd, target := fields[len(fields)-1], line[i+4:]
		if fd != "0" && fd != "1" && fd != "2" && !(strings.HasPrefix(target, "/proc/") && strings.HasSuffix(target, "/fd")) {
			t.Errorf("script inherited fd %s -> %s", fd, target)
		}
	}
}

func TestShutdownCommand(t *testing.T) {
	master := testutil.StartRedis(t)
	_, addr, _, result := startRuntimeDone(t, fmt.Sprintf("sentinel monitor mym 127.0.0.1 %d 1\n", master.Port))
	c := client(t, addr)
	c.Do(context.Background(), "SHUTDOWN") // the connection closes without a reply
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("Run after SHUTDOWN: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after SHUTDOWN")
	}
	if err := testutil.Ping(addr); err == nil {
		t.Fatal("still answering PING after SHUTDOWN")
	}
}

// TestPersistFailure: when the config cannot be written, SENTINEL
// FLUSHCONFIG gets an error instead of +OK (the core turns the held reply
// into an error on a failed PersistDone) and the sentinel keeps serving.
func TestPersistFailure(t *testing.T) {
	master := testutil.StartRedis(t)
	_, addr, path := startRuntime(t, fmt.Sprintf("sentinel monitor mym 127.0.0.1 %d 1\n", master.Port))
	c := client(t, addr)
	ctx := context.Background()
	testutil.WaitFor(t, 5*time.Second, "first config flush (myid)", func() bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), "sentinel myid ")
	})
	if err := os.RemoveAll(filepath.Dir(path)); err != nil { // even root cannot write there now
		t.Fatal(err)
	}
	err := c.Do(ctx, "SENTINEL", "FLUSHCONFIG").Err()
	if err == nil {
		t.Fatal("SENTINEL FLUSHCONFIG answered +OK although the config could not be saved")
	}
	if v, err := c.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym").StringSlice(); err != nil || len(v) != 2 {
		t.Fatalf("not serving after a failed persist: %v %v", v, err)
	}
}
