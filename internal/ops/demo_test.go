package ops

import (
	"bytes"
	"context"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// cancelOn is a progress writer that cancels a context when a line
// containing marker is written.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if strings.Contains(string(p), c.marker) {
		c.cancel()
	}
	return len(p), nil
}

// TestDemoTearsDownOnCancel interrupts the demo (as Ctrl-C does) once every
// process runs, and checks that all of them are gone and the temp dir is
// removed.
func TestDemoTearsDownOnCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOn{marker: "started sentinel3", cancel: cancel}
	rep, err := RunDemo(ctx, DemoOptions{SentinelBin: testutil.Binary(t, "redis-sentinel"), Out: out, Wait: 30 * time.Second, Events: true})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RunDemo after cancel: %v, want context.Canceled\n%s", err, out.buf.String())
	}
	pids := regexp.MustCompile(`\(PID (\d+)\)`).FindAllStringSubmatch(out.buf.String(), -1)
	if len(pids) != 6 {
		t.Fatalf("want 6 started processes in the progress, got %d:\n%s", len(pids), out.buf.String())
	}
	for _, m := range pids {
		pid, _ := strconv.Atoi(m[1])
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("PID %d still exists after the demo returned (kill 0: %v)", pid, err)
		}
	}
	if _, err := os.Stat(rep.Dir); !os.IsNotExist(err) {
		t.Errorf("demo dir %s not removed: %v", rep.Dir, err)
	}
}

func TestDemoReportsBrokenSentinelBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	t.Parallel()
	var out bytes.Buffer
	// /bin/false exits at once: the demo must say so, not hang or fake figures.
	rep, err := RunDemo(context.Background(), DemoOptions{SentinelBin: "/bin/false", Out: &out})
	if err == nil || !errors.Is(err, ErrProcessExited) || rep.Drill != nil {
		t.Fatalf("RunDemo with /bin/false: %v (drill %v)\n%s", err, rep.Drill, out.String())
	}
}
