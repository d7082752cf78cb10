package faultlab

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/gosentinel/gosentinel/internal/faultlab/netlab"
)

// g8SlowPrefix starts the slowloris connections' command: a PING whose
// 4096-byte argument is announced, then sent one byte a second, so it is
// never complete within a run (~70 bytes a minute).
const g8SlowPrefix = "*2\r\n$4\r\nPING\r\n$4096\r\n"

// g8Refusal is the reply of Redis (networking.c acceptCommonHandler) and
// gosentinel to a connection beyond maxclients.
const g8Refusal = "-ERR max number of clients reached"

// g8Flood holds the connections of G8's flood on one sentinel.
type g8Flood struct {
	from *netlab.Host
	addr string

	mu       sync.Mutex
	idle     []net.Conn
	slow     []net.Conn
	slowSent []int  // bytes sent on each slowloris connection
	slowDead []bool // a write failed: the server closed it
	dialErr  string
}

// dialMany opens n connections to f.addr from f.from, workers at a time,
// each worker a thread in the host's namespace dialling one after another
// (netlab's DialContext would start a thread per dial). It returns the
// connections opened and how many dials failed.
func (f *g8Flood) dialMany(ctx context.Context, n, workers int) ([]net.Conn, int) {
	workers = max(1, min(workers, n))
	var mu sync.Mutex
	var out []net.Conn
	errs := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		share := n / workers
		if w < n%workers {
			share++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []net.Conn
			failed := 0
			err := f.from.InNetns(func() error {
				d := net.Dialer{Timeout: 5 * time.Second}
				for i := 0; i < share && ctx.Err() == nil; i++ {
					c, err := d.DialContext(ctx, "tcp", f.addr)
					if err != nil {
						failed++
						f.noteErr(err)
						if failed > 20 && len(mine) == 0 {
							return err
						}
						continue
					}
					mine = append(mine, c)
				}
				return nil
			})
			if err != nil {
				f.noteErr(err)
			}
			mu.Lock()
			out = append(out, mine...)
			errs += failed
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out, errs
}

func (f *g8Flood) noteErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dialErr == "" {
		f.dialErr = err.Error()
	}
}

func (f *g8Flood) firstErr() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.dialErr
}

// openIdle opens n connections that never send anything; it returns how
// many it opened and how many dials failed.
func (f *g8Flood) openIdle(ctx context.Context, n, workers int) (int, int) {
	cs, errs := f.dialMany(ctx, n, workers)
	f.mu.Lock()
	f.idle = append(f.idle, cs...)
	f.mu.Unlock()
	return len(cs), errs
}

// openSlowloris opens n connections and sends each the first byte of its
// command.
func (f *g8Flood) openSlowloris(ctx context.Context, n int) error {
	cs, errs := f.dialMany(ctx, n, 1)
	if len(cs) < n {
		for _, c := range cs {
			_ = c.Close()
		}
		return fmt.Errorf("slowloris: %d of %d dials failed: %s", errs, n, f.firstErr())
	}
	f.mu.Lock()
	f.slow = cs
	f.slowSent = make([]int, n)
	f.slowDead = make([]bool, n)
	f.mu.Unlock()
	for i := range cs {
		f.drip(i)
	}
	return nil
}

// drip sends the next byte of slowloris connection i.
func (f *g8Flood) drip(i int) {
	f.mu.Lock()
	if f.slowDead[i] {
		f.mu.Unlock()
		return
	}
	c, k := f.slow[i], f.slowSent[i]
	f.mu.Unlock()
	b := byte('x')
	if k < len(g8SlowPrefix) {
		b = g8SlowPrefix[k]
	}
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, err := c.Write([]byte{b})
	f.mu.Lock()
	if err != nil {
		f.slowDead[i] = true
	} else {
		f.slowSent[i]++
	}
	f.mu.Unlock()
}

// dripSlowloris sends one byte a second on every slowloris connection,
// spread evenly over the second, until ctx ends.
func (f *g8Flood) dripSlowloris(ctx context.Context) {
	f.mu.Lock()
	n := len(f.slow)
	f.mu.Unlock()
	if n == 0 {
		return
	}
	tick := time.NewTicker(time.Second / time.Duration(n))
	defer tick.Stop()
	for i := 0; ; i = (i + 1) % n {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			f.drip(i)
		}
	}
}

// slowOpen is the number of slowloris connections still open (no write
// failed).
func (f *g8Flood) slowOpen() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, d := range f.slowDead {
		if !d {
			n++
		}
	}
	return n
}

// overflow dials n more connections once maxclients is reached and reads
// each one's first reply for up to 3 s: it returns how many were refused
// with g8Refusal and a description of every other outcome (accepted, other
// reply, dial error). Every connection is closed.
func (f *g8Flood) overflow(ctx context.Context, n int) (int, []string) {
	cs, errs := f.dialMany(ctx, n, 1)
	var other []string
	if errs > 0 {
		other = append(other, fmt.Sprintf("%d dials failed: %s", errs, f.firstErr()))
	}
	results := make([]string, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
			line, err := bufio.NewReader(c).ReadString('\n')
			switch {
			case strings.TrimRight(line, "\r\n") == g8Refusal:
				results[i] = ""
			case err != nil && line == "":
				results[i] = "no reply (" + err.Error() + ")"
			default:
				results[i] = fmt.Sprintf("reply %q", strings.TrimRight(line, "\r\n"))
			}
		}()
	}
	wg.Wait()
	refused := 0
	for _, r := range results {
		if r == "" {
			refused++
		} else if len(other) < 5 {
			other = append(other, r)
		}
	}
	return refused, other
}

// close closes every connection of the flood.
func (f *g8Flood) close() {
	f.mu.Lock()
	cs := append(f.idle, f.slow...)
	f.idle, f.slow = nil, nil
	for i := range f.slowDead {
		f.slowDead[i] = true
	}
	f.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
	}
}
