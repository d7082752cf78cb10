package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestTiltAfterStall: a sentinel whose process was frozen for more than
// tilt-trigger (2 s) must enter TILT (the runtime's clock is monotonic and
// real stalls show up as a tick gap), and leave it after tilt-period.
func TestTiltAfterStall(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	master := testutil.StartRedis(t)
	dir := t.TempDir()
	port := testutil.FreePort(t)
	conf := filepath.Join(dir, "sentinel.conf")
	log := filepath.Join(dir, "sentinel.log")
	body := "port " + strconv.Itoa(port) + "\nbind 127.0.0.1\nlogfile " + strconv.Quote(log) +
		"\nsentinel monitor mym 127.0.0.1 " + strconv.Itoa(master.Port) + " 1\n"
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s := testutil.StartSentinelConf(t, bin, conf, port, log)
	if err := redisClient(t, s.Addr()).Do(context.Background(), "SENTINEL", "DEBUG", "tilt-period", "1000").Err(); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	time.Sleep(2500 * time.Millisecond) // the stall itself is the stimulus
	s.Cont()
	testutil.WaitFor(t, 5*time.Second, "+tilt then -tilt in the log", func() bool {
		l := s.Log()
		i := strings.Index(l, "+tilt #tilt mode entered")
		return i >= 0 && strings.Contains(l[i:], "-tilt #tilt mode exited")
	})
}
