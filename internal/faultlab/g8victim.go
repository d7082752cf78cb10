package faultlab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
	"github.com/gosentinel/gosentinel/internal/resp"
)

// g8RoundTimeout bounds one victim round; a round that takes longer is an
// error (the victim was not served).
const g8RoundTimeout = 2 * time.Second

// g8Victim is G8's victim client: one connection, opened before the flood,
// on which it times PING + SENTINEL GET-MASTER-ADDR-BY-NAME, as
// bench/cmd/hostilelat's victim does. It runs in the lab's process, so its
// figures include this process's own scheduling (compare them with the
// baseline window before the flood).
type g8Victim struct {
	mu   sync.Mutex // one request on the connection at a time
	c    net.Conn
	r    *resp.Reader
	data struct {
		sync.Mutex
		rounds   []g8Round
		errs     int
		firstErr string
		master   string // "ip:port" of the last GET-MASTER-ADDR-BY-NAME reply
	}
}

// g8Round is one timed round of the victim.
type g8Round struct {
	at  time.Time
	dur time.Duration
}

func dialVictim(ctx context.Context, from *netlab.Host, addr string) (*g8Victim, error) {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := from.DialContext(dctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("victim: dial %s: %w", addr, err)
	}
	return &g8Victim{c: c, r: resp.NewReader(c)}, nil
}

func (v *g8Victim) close() { _ = v.c.Close() }

// do sends one command and reads its reply within timeout.
func (v *g8Victim) do(timeout time.Duration, args ...string) (resp.Value, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	_ = v.c.SetDeadline(time.Now().Add(timeout))
	buf := fmt.Appendf(nil, "*%d\r\n", len(args))
	for _, a := range args {
		buf = fmt.Appendf(buf, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := v.c.Write(buf); err != nil {
		return resp.Value{}, fmt.Errorf("write: %w", err)
	}
	val, err := v.r.ReadValue()
	if err != nil {
		return resp.Value{}, fmt.Errorf("read: %w", err)
	}
	if val.Kind == resp.KindError {
		return val, errors.New(val.Str)
	}
	return val, nil
}

var errVictimReply = errors.New("unexpected reply")

// round is one PING + GET-MASTER-ADDR-BY-NAME; it returns the master's
// "ip:port".
func (v *g8Victim) round(deadline time.Time) (string, error) {
	p, err := v.do(time.Until(deadline), "PING")
	if err != nil {
		return "", fmt.Errorf("PING: %w", err)
	}
	if p.Str != "PONG" {
		return "", fmt.Errorf("%w: PING answered %q", errVictimReply, p.Str)
	}
	a, err := v.do(time.Until(deadline), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MasterName)
	if err != nil {
		return "", fmt.Errorf("GET-MASTER-ADDR-BY-NAME: %w", err)
	}
	if a.Kind != resp.KindArray || len(a.Elems) != 2 {
		return "", fmt.Errorf("%w: GET-MASTER-ADDR-BY-NAME answered kind %v", errVictimReply, a.Kind)
	}
	return net.JoinHostPort(a.Elems[0].Str, a.Elems[1].Str), nil
}

// run times a round every period until ctx ends. After a failed round the
// connection is in an unknown state, so the victim stops counting rounds
// (every later instant is a failure too: the run fails on victim_errors).
func (v *g8Victim) run(ctx context.Context, period time.Duration) {
	for ctx.Err() == nil {
		start := time.Now()
		m, err := v.round(start.Add(g8RoundTimeout))
		d := time.Since(start)
		v.data.Lock()
		if err != nil {
			v.data.errs++
			if v.data.firstErr == "" {
				v.data.firstErr = fmt.Sprintf("%s after %v: %v", start.UTC().Format("15:04:05.000"), d.Round(time.Millisecond), err)
			}
		} else {
			v.data.rounds = append(v.data.rounds, g8Round{at: start, dur: d})
			v.data.master = m
		}
		v.data.Unlock()
		if err != nil && ctx.Err() == nil {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(period):
		}
	}
}

// info runs INFO section on the victim's connection (between two rounds).
func (v *g8Victim) info(ctx context.Context, section string) (string, error) {
	val, err := v.do(5*time.Second, "INFO", section)
	if err != nil {
		return "", fmt.Errorf("INFO %s: %w", section, err)
	}
	return val.Str, nil
}

func (v *g8Victim) master() string {
	v.data.Lock()
	defer v.data.Unlock()
	return v.data.master
}

func (v *g8Victim) errors() int {
	v.data.Lock()
	defer v.data.Unlock()
	return v.data.errs
}

func (v *g8Victim) firstError() string {
	v.data.Lock()
	defer v.data.Unlock()
	return v.data.firstErr
}

// g8Stats are a window's victim figures, in milliseconds.
type g8Stats struct {
	n             int
	p50, p99, max float64
	over10Pct     float64
}

// stats summarises the rounds that started in [from, to) (from zero: since
// the first).
func (v *g8Victim) stats(from, to time.Time) g8Stats {
	v.data.Lock()
	var ds []time.Duration
	for _, r := range v.data.rounds {
		if !r.at.Before(from) && r.at.Before(to) {
			ds = append(ds, r.dur)
		}
	}
	v.data.Unlock()
	return latencyStats(ds)
}

// latencyStats: nearest-rank p50 and p99, the maximum and the share of
// rounds over 10 ms (percent), in milliseconds rounded to 0.1 ms; zero for
// no rounds.
func latencyStats(ds []time.Duration) g8Stats {
	st := g8Stats{n: len(ds)}
	if len(ds) == 0 {
		return st
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	ms := func(d time.Duration) float64 {
		return float64(d.Round(100*time.Microsecond)) / float64(time.Millisecond)
	}
	rank := func(p float64) time.Duration {
		i := int(p*float64(len(ds))+0.999999) - 1
		return ds[max(0, min(i, len(ds)-1))]
	}
	st.p50, st.p99, st.max = ms(rank(0.50)), ms(rank(0.99)), ms(ds[len(ds)-1])
	over := 0
	for _, d := range ds {
		if d > 10*time.Millisecond {
			over++
		}
	}
	st.over10Pct = float64(over*10000/len(ds)) / 100
	return st
}
