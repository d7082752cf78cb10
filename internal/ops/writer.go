package ops

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// drillKeyTTL bounds how long drill keys stay in the database.
const drillKeyTTL = 10 * time.Minute

// writeRec is the outcome of one drill write.
type writeRec struct {
	key   string
	start time.Time
	end   time.Time
	ok    bool
	role  string // ROLE of the node that acknowledged (ok writes)
	node  string // its address as it sees itself (CLIENT INFO laddr)
	err   string
}

// writer issues one write at a time, every interval, each to a unique key,
// as MULTI / SET key seq EX ttl / ROLE / CLIENT INFO / EXEC: the ROLE and
// CLIENT INFO replies tell, for the same node and atomically with the write,
// whether a master acknowledged it and which node it was.
type writer struct {
	c        *redis.Client
	prefix   string
	interval time.Duration
	timeout  time.Duration

	mu   sync.Mutex
	recs []writeRec
	okN  int
	cond chan struct{} // closed and replaced after every recorded write
}

func newWriter(c *redis.Client, prefix string, interval, timeout time.Duration) *writer {
	return &writer{c: c, prefix: prefix, interval: interval, timeout: timeout, cond: make(chan struct{})}
}

// run writes until ctx is done.
func (w *writer) run(ctx context.Context) {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for seq := 0; ; seq++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		w.record(w.writeOne(ctx, seq))
	}
}

func (w *writer) writeOne(ctx context.Context, seq int) writeRec {
	r := writeRec{key: w.prefix + strconv.Itoa(seq), start: time.Now()}
	wctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	var role *redis.Cmd
	var info *redis.Cmd
	_, err := w.c.TxPipelined(wctx, func(p redis.Pipeliner) error {
		p.Set(wctx, r.key, seq, drillKeyTTL)
		role = p.Do(wctx, "ROLE")
		info = p.Do(wctx, "CLIENT", "INFO")
		return nil
	})
	r.end = time.Now()
	if err != nil {
		r.err = err.Error()
		return r
	}
	r.ok = true
	if v, err := role.Slice(); err == nil && len(v) > 0 {
		r.role = replyString(v[0])
	}
	if v, err := info.Text(); err == nil {
		r.node = laddr(v)
	}
	return r
}

func (w *writer) record(r writeRec) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.recs = append(w.recs, r)
	if r.ok {
		w.okN++
	}
	close(w.cond)
	w.cond = make(chan struct{})
}

// waitOK waits until pred (called under the lock with the records) is true.
func (w *writer) waitOK(ctx context.Context, pred func(recs []writeRec) bool) error {
	for {
		w.mu.Lock()
		done, ch := pred(w.recs), w.cond
		w.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for writes: %w", ctx.Err())
		case <-ch:
		}
	}
}

// snapshot returns a copy of the records.
func (w *writer) snapshot() []writeRec {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]writeRec(nil), w.recs...)
}

// laddr extracts laddr=... from a CLIENT INFO line.
func laddr(info string) string {
	for _, f := range strings.Fields(info) {
		if v, ok := strings.CutPrefix(f, "laddr="); ok {
			return v
		}
	}
	return ""
}

// okCount returns how many writes were acknowledged so far.
func (w *writer) okCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.okN
}
