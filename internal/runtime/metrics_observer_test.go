package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/config"
	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/testutil"
)

// recorder is an Observer that remembers what it saw; waiters are woken
// on every call (the loop never blocks on it).
type recorder struct {
	mu      sync.Mutex
	events  []string
	rtts    map[core.Role]int
	lost    map[string]int // "<role> <cmd|pubsub>"
	failed  map[string]int
	changed chan struct{}
}

func newRecorder() *recorder {
	return &recorder{rtts: map[core.Role]int{}, lost: map[string]int{}, failed: map[string]int{}, changed: make(chan struct{}, 1)}
}

func (r *recorder) update(f func()) {
	r.mu.Lock()
	f()
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) Event(e core.Emit) { r.update(func() { r.events = append(r.events, e.Type) }) }
func (r *recorder) LinkRTT(role core.Role, d time.Duration) {
	r.update(func() {
		if d > 0 {
			r.rtts[role]++
		}
	})
}
func (r *recorder) LinkDisconnected(role core.Role, typ core.ConnType) {
	r.update(func() { r.lost[fmt.Sprint(role, " ", typ == core.ConnPubSub)]++ })
}
func (r *recorder) LinkFailed(role core.Role, typ core.ConnType) {
	r.update(func() { r.failed[fmt.Sprint(role, " ", typ == core.ConnPubSub)]++ })
}

// await waits until cond (called under the lock) holds.
func (r *recorder) await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		ok := cond()
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestObserverAndSnapshot runs a Runtime with an Observer over a real
// master: PING round trips and events are reported, MetricsSnapshot reads
// the core, a killed master shows as a lost link then failed reconnects,
// and a stopped runtime answers ErrStopped.
func TestObserverAndSnapshot(t *testing.T) {
	master := testutil.StartRedis(t)
	dir := t.TempDir()
	port := testutil.FreePort(t)
	path := filepath.Join(dir, "sentinel.conf")
	body := fmt.Sprintf("port %d\nbind 127.0.0.1\nsentinel monitor mym 127.0.0.1 %d 1\n", port, master.Port)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	timing := core.DefaultTiming()
	timing.PingPeriod = 100 // PINGs every 100 ms: the test needs a few
	r, err := New(Options{ConfigPath: path, Config: cfg, Observer: rec, Timing: timing})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		}
	}
	t.Cleanup(stop)
	if err := testutil.WaitPing("127.0.0.1:"+strconv.Itoa(port), 10*time.Second, nil); err != nil {
		t.Fatal(err)
	}

	rec.await(t, "+monitor and 2 PING round trips to the master", func() bool {
		return len(rec.events) > 0 && rec.events[0] == "+monitor" && rec.rtts[core.RoleMaster] >= 2
	})
	s, err := r.MetricsSnapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Masters) != 1 || s.Masters[0].Name != "mym" || s.Masters[0].Quorum != 1 || s.MyID != r.MyID() || s.ScriptsRunning+s.ScriptsQueued != 0 {
		t.Errorf("snapshot = %+v", s)
	}

	master.Kill()
	rec.await(t, "command and pub/sub links to the master lost", func() bool {
		return rec.lost["master false"] >= 1 && rec.lost["master true"] >= 1
	})
	rec.await(t, "a failed reconnection to the master", func() bool { return rec.failed["master false"] >= 1 })

	stop()
	if _, err := r.MetricsSnapshot(context.Background()); !errors.Is(err, ErrStopped) {
		t.Errorf("snapshot after stop: %v, want ErrStopped", err)
	}
}

// TestObserverRenamedPing: PING round trips are measured when the master
// renamed PING (sentinel rename-command): the runtime knows a PING by the
// Send's kind, not by its name.
func TestObserverRenamedPing(t *testing.T) {
	master := testutil.StartRedis(t, "rename-command PING GS-PING-7")
	body := fmt.Sprintf("port %d\nbind 127.0.0.1\nsentinel monitor mym 127.0.0.1 %d 1\nsentinel rename-command mym PING GS-PING-7\n", testutil.FreePort(t), master.Port)
	rec := newRecorder()
	timing := core.DefaultTiming()
	timing.PingPeriod = 100
	runConfOpts(t, body, Options{Observer: rec, Timing: timing})
	rec.await(t, "2 round trips of the renamed PING to the master", func() bool {
		return rec.rtts[core.RoleMaster] >= 2
	})
}
