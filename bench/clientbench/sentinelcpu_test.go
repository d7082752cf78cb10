package clientbench

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// clockTick is the kernel's USER_HZ (the unit of utime/stime in
// /proc/<pid>/stat), 100 on every Linux this bench runs on.
const clockTick = 10 * time.Millisecond

// sentinelCPU sums the CPU time (user + system) the sentinel processes
// used so far: what a fleet costs the sentinels in processing, not only
// in commands (-1 when /proc cannot be read).
func sentinelCPU(c *testutil.SentinelCluster) time.Duration {
	var total time.Duration
	for _, s := range c.Sentinels {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.PID()))
		if err != nil {
			return -1
		}
		// The fields after the command name (which is in parentheses
		// and may hold spaces): state is field 3, utime 14, stime 15.
		rest := string(b)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		f := strings.Fields(rest)
		if len(f) < 13 {
			return -1
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		total += time.Duration(ut+st) * clockTick
	}
	return total
}

// failoverSteps are the sentinel log events of a failover, in order.
var failoverSteps = []string{"+sdown master", "+odown", "+try-failover", "+elected-leader", "+selected-slave", "+promoted-slave", "+switch-master", "-failover-abort"}

// sentinelSteps returns, per failover step, the earliest time any
// sentinel logged it after kill (from the sentinels' log files, whose
// timestamps have millisecond precision): how long the sentinels' own
// failover took under the fleet's load, and where it stopped when it did
// not finish.
func sentinelSteps(c *testutil.SentinelCluster, kill time.Time) string {
	first := map[string]time.Duration{}
	for _, s := range c.Sentinels {
		for _, l := range strings.Split(s.Log(), "\n") {
			// "pid:X 03 Dec 2026 17:05:15.123 # +odown master ..."
			parts := strings.SplitN(l, " ", 7)
			if len(parts) < 7 {
				continue
			}
			at, err := time.ParseInLocation("02 Jan 2006 15:04:05.000", strings.Join(parts[1:5], " "), time.Local)
			if err != nil || at.Before(kill.Truncate(time.Millisecond)) {
				continue
			}
			for _, step := range failoverSteps {
				if strings.HasPrefix(parts[6], step) {
					d := at.Sub(kill)
					if old, ok := first[step]; !ok || d < old {
						first[step] = d
					}
				}
			}
		}
	}
	var out []string
	for _, step := range failoverSteps {
		if d, ok := first[step]; ok {
			out = append(out, fmt.Sprintf("%s %v", step, d.Round(time.Millisecond)))
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "; ")
}

// startBurners starts GOSENTINEL_BENCH_BURN busy-loop processes (nice 19,
// with this process's CPU affinity: run the bench under `taskset -c 0` to
// put them, the servers, the sentinels and the clients on one core), so
// that the fleet runs on a machine as loaded as the shared box at its
// worst (load 20–150), reproducibly. They are killed when the test ends.
func startBurners(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("GOSENTINEL_BENCH_BURN"))
	if err != nil || n <= 0 {
		return
	}
	for i := 0; i < n; i++ {
		cmd := exec.Command("nice", "-n", "19", "sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatalf("start busy loop: %v", err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
	t.Logf("%d busy-loop processes started (GOSENTINEL_BENCH_BURN)", n)
}
