package client

import (
	"bufio"
	"context"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// TestDerivedClientsOutliveTheOriginal: a client derived with WithTimeout
// keeps working (new connections, Conn, pipelines, Pub/Sub, StatsOf) after
// the *redis.Client that NewFailoverClient returned is unreachable and
// collected, and closing the derived client releases everything. Before,
// the resolver shut down when the original was collected and every new
// connection failed with "client: closed"; StatsOf knew nothing.
func TestDerivedClientsOutliveTheOriginal(t *testing.T) {
	// Not parallel: goleak looks at every goroutine of the process.
	c := testutil.StartSentinelCluster(t, "mymaster", 1, 1, 1, 5000, 10000)
	ignore := goleak.IgnoreCurrent()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// collected is closed once the original *redis.Client has been
	// garbage-collected: without it the test would pass just as well if
	// something kept the original reachable.
	collected := make(chan struct{})
	derived := func() *redis.Client {
		orig := NewFailoverClient(&FailoverOptions{MasterName: c.Name, SentinelAddrs: c.SentinelAddrs()})
		runtime.AddCleanup(orig, func(ch chan struct{}) { close(ch) }, collected)
		return orig.WithTimeout(2 * time.Second)
	}()
	for round := 0; round < 3; round++ {
		runtime.GC()
		runtime.GC()
		if round == 0 {
			testutil.WaitFor(t, 5*time.Second, "the original client collected", func() bool {
				runtime.GC()
				select {
				case <-collected:
					return true
				default:
					return false
				}
			})
		}
		// An ephemeral Conn dials a new connection each time.
		cn := derived.EphemeralConn()
		if err := cn.Set(ctx, "life", round, 0).Err(); err != nil {
			t.Fatalf("round %d: SET on a new connection of the derived client: %v", round, err)
		}
		cn.Close()
	}
	if _, err := derived.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Incr(ctx, "life")
		p.Incr(ctx, "life")
		return nil
	}); err != nil {
		t.Fatalf("pipeline: %v", err)
	}
	ps := derived.Subscribe(ctx, "life-news")
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	runtime.GC()
	if err := derived.Publish(ctx, "life-news", "hi").Err(); err != nil {
		t.Fatalf("publish: %v", err)
	}
	if m, err := ps.ReceiveMessage(ctx); err != nil || m.Payload != "hi" {
		t.Fatalf("message %v, %v", m, err)
	}
	ps.Close()
	st, ok := StatsOf(derived)
	if !ok || st.Dials < 3 || st.CurrentAddr != c.Top.Master.Addr() {
		t.Fatalf("StatsOf(derived) = %+v, %v; want ≥ 3 dials on %s", st, ok, c.Top.Master.Addr())
	}
	if err := derived.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := goleak.Find(ignore); err != nil {
		t.Fatalf("goroutines left after closing the derived client: %v", err)
	}
}

// recordingHook records the commands that go through go-redis's hooks (what
// redisotel or redisprometheus would see).
type recordingHook struct {
	mu   sync.Mutex
	cmds []string
}

func (h *recordingHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *recordingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.mu.Lock()
		h.cmds = append(h.cmds, cmd.Name())
		h.mu.Unlock()
		return next(ctx, cmd)
	}
}

func (h *recordingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.mu.Lock()
		for _, c := range cmds {
			h.cmds = append(h.cmds, "pipeline:"+c.Name())
		}
		h.mu.Unlock()
		return next(ctx, cmds)
	}
}

func (h *recordingHook) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.cmds
	h.cmds = nil
	return out
}

// monitor runs MONITOR on addr and collects the lines it prints.
type monitor struct {
	c     net.Conn
	mu    sync.Mutex
	lines []string
	done  chan struct{}
}

func startMonitor(t *testing.T, addr string) *monitor {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	br := bufio.NewReader(c)
	if _, err := c.Write([]byte("MONITOR\r\n")); err != nil {
		t.Fatalf("MONITOR: %v", err)
	}
	if l, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(l, "+OK") {
		t.Fatalf("MONITOR: %q %v", l, err)
	}
	m := &monitor{c: c, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return
			}
			m.mu.Lock()
			m.lines = append(m.lines, strings.TrimSpace(l))
			m.mu.Unlock()
		}
	}()
	t.Cleanup(m.stop)
	return m
}

func (m *monitor) stop() {
	m.c.Close()
	<-m.done
}

// from returns the monitored lines not sent by the given connections
// (addresses as MONITOR prints them).
func (m *monitor) except(skip map[string]bool) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, l := range m.lines {
		i, j := strings.Index(l, "["), strings.Index(l, "]")
		if i < 0 || j < i {
			continue
		}
		f := strings.Fields(l[i+1 : j])
		if len(f) == 2 && skip[f[1]] {
			continue
		}
		out = append(out, l)
	}
	return out
}

// sentinelConns returns the addresses of the sentinels' connections to the
// Redis instance at addr (CLIENT LIST names sentinel-<id>-cmd/-pubsub).
func sentinelConns(t *testing.T, addr string) map[string]bool {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	list, err := c.ClientList(context.Background()).Result()
	if err != nil {
		t.Fatalf("CLIENT LIST: %v", err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(list, "\n") {
		var a, name string
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "addr="); ok {
				a = v
			}
			if v, ok := strings.CutPrefix(f, "name="); ok {
				name = v
			}
		}
		if strings.HasPrefix(name, "sentinel-") {
			out[a] = true
		}
	}
	return out
}

// TestIdleClientIsSilent: an idle client sends nothing that users' hooks
// (tracers, metrics) or MONITOR on the data node would see, including
// across a reconciliation (1 s here) and the verification loop. Before,
// the close detection ran a PING with a cancelled context every second
// through every hook.
func TestIdleClientIsSilent(t *testing.T) {
	t.Parallel()
	c := testutil.StartSentinelCluster(t, "mymaster", 1, 3, 2, 5000, 10000)
	rec := &recordingHook{}
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: c.SentinelAddrs(), ReconcileInterval: time.Second})
	rdb.AddHook(rec)
	ctx := context.Background()
	if err := rdb.Set(ctx, "idle", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	// go-redis's own connection handshake (HELLO, CLIENT SETINFO) also
	// goes through the hooks, as with any go-redis client.
	if got := rec.take(); len(got) == 0 || got[0] != "set" {
		t.Fatalf("hook saw %q for one SET", got)
	}
	mon := startMonitor(t, c.Top.Master.Addr())
	window := time.NewTimer(3 * time.Second) // the idle period observed
	<-window.C
	mon.stop()
	st, _ := StatsOf(rdb)
	if st.Reconciles == 0 {
		t.Fatalf("no reconciliation in the idle window (stats %+v): the test would not cover it", st)
	}
	if got := rec.take(); len(got) != 0 {
		t.Errorf("hook saw %d commands the user did not issue in 3 s idle: %q", len(got), got)
	}
	if got := mon.except(sentinelConns(t, c.Top.Master.Addr())); len(got) != 0 {
		t.Errorf("MONITOR on the master saw %d commands from the idle client: %q", len(got), got)
	}
}
