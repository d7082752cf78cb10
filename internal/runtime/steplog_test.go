package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/config"
	"github.com/gosentinel/gosentinel/internal/testutil"
)

// heldLog is a StepLog and log writer like cmd/gosentinel's logFile:
// lines written between Hold and Release are held until Flush.
type heldLog struct {
	mu      sync.Mutex
	held    bool
	buf     []byte
	written strings.Builder // what a file would hold
	writes  []string        // each Flush with lines
}

func (h *heldLog) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held {
		h.buf = append(h.buf, p...)
	} else {
		h.written.Write(p)
	}
	return len(p), nil
}

func (h *heldLog) Hold() { h.mu.Lock(); h.held = true; h.mu.Unlock() }

func (h *heldLog) Flush() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.buf) > 0 {
		h.written.Write(h.buf)
		h.writes = append(h.writes, string(h.buf))
		h.buf = h.buf[:0]
	}
}

func (h *heldLog) Release() { h.Flush(); h.mu.Lock(); h.held = false; h.mu.Unlock() }

func (h *heldLog) has(line string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Contains(h.written.String(), line)
}

// TestStepLogLinesBeforePublish: with a StepLog (cmd/gosentinel's log
// file) a SENTINEL RESET of 50 masters writes its 50 +reset-master lines
// in one write, and publishes each event only after its line is written:
// a subscriber never sees an event that is not in the log yet, as with
// Redis' serverLog before its publish (docs/security.md, "Latency under
// these loads").
func TestStepLogLinesBeforePublish(t *testing.T) {
	dir := t.TempDir()
	port := testutil.FreePort(t)
	var conf strings.Builder
	fmt.Fprintf(&conf, "port %d\nbind 127.0.0.1\n", port)
	for i := range 50 {
		fmt.Fprintf(&conf, "sentinel monitor m%02d 127.0.0.1 %d 1\n", i, testutil.FreePort(t))
	}
	path := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(path, []byte(conf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	hl := &heldLog{}
	r, err := New(Options{ConfigPath: path, Config: cfg, StepLog: hl, Logger: slog.New(NewRedisHandler(hl, LevelNotice))})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu        sync.Mutex
		published int
		early     []string
	)
	pub := r.publish
	r.publish = func(channel, message string) int { // on the loop goroutine
		if channel == "+reset-master" {
			mu.Lock()
			published++
			if !hl.has(channel + " " + message + "\n") {
				early = append(early, message)
			}
			mu.Unlock()
		}
		return pub(channel, message)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
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
	c := client(t, addr)
	n, err := c.Do(context.Background(), "SENTINEL", "RESET", "*").Int()
	if err != nil || n != 50 {
		t.Fatalf("RESET * = %d, %v", n, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if published != 50 || len(early) > 0 {
		t.Fatalf("%d +reset-master published, %d of them before their log line: %q", published, len(early), early)
	}
	hl.mu.Lock()
	defer hl.mu.Unlock()
	// Ticks and link events make steps of their own; the RESET's 50
	// lines are one write.
	var resets []int
	for _, w := range hl.writes {
		if n := strings.Count(w, " +reset-master "); n > 0 {
			resets = append(resets, n)
		}
	}
	if len(resets) != 1 || resets[0] != 50 {
		t.Fatalf("the 50 +reset-master lines of one RESET came in writes of %v lines, want one write", resets)
	}
}
