package redissuite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// Scripts of TestScriptRetry: each run appends a line, then fails in its
// own way (exit 1 is retried, exit 2 is not, a runaway is killed).
var retryScripts = map[string]string{
	"retry.sh": "#!/bin/sh\necho \"$1\" >> retry.out\nexit 1\n",
	"error.sh": "#!/bin/sh\necho \"$1\" >> error.out\nexit 2\n",
	"slow.sh":  "#!/bin/sh\necho \"$1\" >> slow.out\nexec sleep 30\n",
}

// TestScriptRetry covers sentinel-reference §18 (sentinelRunPendingScripts,
// sentinelCollectTerminatedScripts, sentinelKillTimedoutScripts), driven by
// SENTINEL DEBUG as the Tcl suite drives timers: a script exiting 1 runs
// SENTINEL_SCRIPT_MAX_RETRY (10) times in all, one exiting 2 runs once
// (-script-error), one running past script-max-runtime is killed
// (-script-timeout) and rescheduled.
func TestScriptRetry(t *testing.T) {
	t.Parallel()
	s := newBareSuite(t, 1)
	master := testutil.StartRedis(t)
	dir := filepath.Join(s.sentinels[0].cwd, "sentinel_0")
	for name, body := range retryScripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lines := func(name string) int {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		return strings.Count(string(b), "\n")
	}
	s.S(0, "SENTINEL", "MONITOR", masterName, "127.0.0.1", master.Port, 1)
	sub := s.sentinels[0].cli().Subscribe(context.Background(), "-script-error", "-script-timeout")
	t.Cleanup(func() { sub.Close() })
	if _, err := sub.Receive(context.Background()); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	events := sub.Channel()
	awaitEvent := func(channel, payload string) {
		t.Helper()
		deadline := time.After(20 * time.Second)
		for {
			select {
			case m := <-events:
				t.Logf("%s %s", m.Channel, m.Payload)
				if m.Channel == channel && strings.Contains(m.Payload, payload) {
					return
				}
			case <-deadline:
				t.Fatalf("no %s event with %q", channel, payload)
			}
		}
	}

	s.step("A script exiting 1 is retried, 10 runs in all", func() {
		s.S(0, "SENTINEL", "DEBUG", "script-retry-delay", 1)
		// The +set of this SENTINEL SET is the WARNING event that runs it.
		s.S(0, "SENTINEL", "SET", masterName, "notification-script", "./retry.sh")
		s.waitFor(30*time.Second, "10 runs of retry.sh", func() bool { return lines("retry.out") >= 10 })
		// Delays are 1, 2, 4 … 512 ms: an 11th run would come within ~1 s.
		s.holds(2*time.Second, "no 11th run", func() bool { return lines("retry.out") == 10 })
	})

	s.step("A script exiting 2 is not retried (-script-error)", func() {
		s.S(0, "SENTINEL", "SET", masterName, "notification-script", "./error.sh")
		awaitEvent("-script-error", "./error.sh 0 2")
		s.holds(time.Second, "error.sh runs once", func() bool { return lines("error.out") == 1 })
	})

	s.step("A script running past script-max-runtime is killed and rescheduled", func() {
		s.S(0, "SENTINEL", "DEBUG", "script-max-runtime", 500, "script-retry-delay", 60000)
		start := time.Now()
		s.S(0, "SENTINEL", "SET", masterName, "notification-script", "./slow.sh")
		awaitEvent("-script-timeout", "./slow.sh")
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("slow.sh killed after %v, want ~500 ms", d)
		}
		s.waitFor(10*time.Second, "slow.sh scheduled for a retry", func() bool {
			v, err := s.try(0, "SENTINEL", "PENDING-SCRIPTS")
			if err != nil {
				return false
			}
			for _, j := range v.([]any) {
				d := dict(j)
				if strings.Contains(d["argv"], "slow.sh") {
					return d["flags"] == "scheduled" && d["retry-num"] == "1"
				}
			}
			return false
		})
		if n := lines("slow.out"); n != 1 {
			t.Fatalf("slow.sh ran %d times, want 1", n)
		}
	})
}
