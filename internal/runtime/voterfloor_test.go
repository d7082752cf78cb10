package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/config"
	"github.com/gosentinel/gosentinel/internal/testutil"
)

// runFrom runs a Runtime on the config file at path until stop is called
// (or the test ends) and returns its address.
func runFrom(t *testing.T, path string) (addr string, stop func()) {
	t.Helper()
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
	go func() { done <- r.Run(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}
	t.Cleanup(stop)
	addr = "127.0.0.1:" + strconv.Itoa(cfg.Server.Port)
	if err := testutil.WaitPing(addr, 10*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	return addr, stop
}

// TestVoterFloorAcrossRestart (sim finding F13): after SENTINEL RESET made
// gosentinel forget its two peers, the next config write saves the voter
// floor as a gosentinel.voter-floor line with the part of its window
// left; a gosentinel restarted from that file still needs 2 of 3 votes
// (CKQUORUM's majority) and writes back no more than was left.
func TestVoterFloorAcrossRestart(t *testing.T) {
	master := testutil.StartRedis(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "sentinel.conf")
	p1, p2 := testutil.FreePort(t), testutil.FreePort(t) // peers that never answer
	body := fmt.Sprintf(`port %d
bind 127.0.0.1
sentinel monitor mym 127.0.0.1 %d 1
sentinel down-after-milliseconds mym 60000
sentinel failover-timeout mym 120000
sentinel known-sentinel mym 127.0.0.1 %d %s
sentinel known-sentinel mym 127.0.0.1 %d %s
`, testutil.FreePort(t), master.Port, p1, strings.Repeat("b", 40), p2, strings.Repeat("c", 40))
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	addr, stop := runFrom(t, path)
	c := client(t, addr)
	before := time.Now().UnixMilli()
	if err := c.Do(ctx, "SENTINEL", "RESET", "mym").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, "SENTINEL", "SET", "mym", "parallel-syncs", "2").Err(); err != nil {
		t.Fatal(err)
	}
	after := time.Now().UnixMilli()
	floorLine := regexp.MustCompile(`(?m)^gosentinel\.voter-floor mym 3 (\d+)$`)
	b, _ := os.ReadFile(path)
	mt := floorLine.FindSubmatch(b)
	if mt == nil || strings.Contains(string(b), "known-sentinel") {
		t.Fatalf("no floor line, or peers still listed, after RESET and a write:\n%s", b)
	}
	left, _ := strconv.ParseInt(string(mt[1]), 10, 64)
	const window = 60000 + 2*120000
	if left > window || left < window-(after-before)-1 {
		t.Fatalf("floor with %d ms left, want the %d ms window less the time from RESET to the write (at most %d ms)",
			left, window, after-before)
	}
	stop()

	// Restart from the file: no peer is known, the floor still counts.
	restart := time.Now().UnixMilli()
	addr, _ = runFrom(t, path)
	c = client(t, addr)
	if v, err := c.Do(ctx, "SENTINEL", "CKQUORUM", "mym").Text(); err == nil || !strings.Contains(err.Error(), "NOQUORUM 1 usable") {
		t.Fatalf("CKQUORUM after the restart: %q %v (the floor was lost: its own vote is a majority of 1)", v, err)
	}
	if err := c.Do(ctx, "SENTINEL", "SET", "mym", "parallel-syncs", "3").Err(); err != nil {
		t.Fatal(err)
	}
	since := time.Now().UnixMilli() - restart
	b, _ = os.ReadFile(path)
	mt = floorLine.FindSubmatch(b)
	if mt == nil {
		t.Fatalf("no floor line after the restart's write:\n%s", b)
	}
	if again, _ := strconv.ParseInt(string(mt[1]), 10, 64); again > left || again < left-since-1 {
		t.Fatalf("floor with %d ms left after the restart's write, want %d less at most the %d ms since the restart", again, left, since)
	}
}
