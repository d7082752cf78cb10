package hostile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gosentinel/gosentinel/bench/harness"
)

// The victim client (the prober) times one PING plus one SENTINEL
// GET-MASTER-ADDR-BY-NAME every Interval over one persistent connection,
// and watches +sdown on a second one. It runs in a process of its own
// (the bench binary started again with probeEnv set), so that the load
// goroutines of the bench process never delay its reads: what it
// measures is the sentinel and the machine's scheduler, not the Go
// scheduler of the load generator.
//
// It writes one line per event to its output:
//
//	r                        ready (both connections set up)
//	s <start-ns> <dur-ns> <0|1>   one round: wall-clock start, duration, ok
//	d <ns>                   the +sdown of the victim master was received
//
// and stops when its context ends (the subprocess: when its stdin closes).

// probeEnv carries "addr\tvictim\tinterval" to the prober subprocess.
const probeEnv = "GOSENTINEL_HOSTILELAT_PROBE"

// roundTimeout bounds one request of the victim: a sentinel that holds a
// round longer counts it as failed, with this duration.
const roundTimeout = 3 * time.Second

// Probe runs the victim client against the sentinel at addr until ctx ends,
// writing the lines described above to w.
func Probe(ctx context.Context, addr, victim string, interval time.Duration, w io.Writer) error {
	bw := bufio.NewWriter(w)
	var mu sync.Mutex
	emit := func(flush bool, format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(bw, format+"\n", args...)
		if flush {
			_ = bw.Flush()
		}
	}
	defer func() {
		mu.Lock()
		_ = bw.Flush()
		mu.Unlock()
	}()
	sub, err := harness.Dial(addr, 5*time.Second)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	defer sub.Close()
	if _, err := sub.Do(5*time.Second, "SUBSCRIBE", "+sdown"); err != nil {
		return fmt.Errorf("probe: subscribe: %w", err)
	}
	_ = sub.SetDeadline(time.Time{})
	want := "master " + victim + " "
	go func() {
		for {
			v, err := sub.Read()
			if err != nil {
				return
			}
			now := time.Now()
			if m, ok := v.([]any); ok && len(m) == 3 && m[0] == "message" {
				if p, _ := m[2].(string); strings.HasPrefix(p, want) {
					emit(true, "d %d", now.UnixNano())
				}
			}
		}
	}()
	go func() {
		<-ctx.Done()
		_ = sub.Close()
	}()
	c, err := harness.Dial(addr, 5*time.Second)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	defer func() {
		if c != nil {
			_ = c.Close()
		}
	}()
	emit(true, "r")
	next := time.Now()
	for ctx.Err() == nil {
		if d := time.Until(next); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C:
			}
		}
		start := time.Now()
		err := round(c, victim)
		dur := time.Since(start)
		ok := 1
		if err != nil {
			ok = 0
			_ = c.Close()
			if c, err = harness.Dial(addr, roundTimeout); err != nil {
				// Keep trying: a sentinel that cannot even accept is
				// what the measurement is about.
				c = nil
			}
		}
		emit(false, "s %d %d %d", start.UnixNano(), dur.Nanoseconds(), ok)
		for c == nil && ctx.Err() == nil {
			time.Sleep(interval)
			c, _ = harness.Dial(addr, roundTimeout)
		}
		// The next round starts at the next multiple of interval after
		// the previous start that is not in the past: a slow round is
		// one sample, not a burst of catching-up rounds.
		next = next.Add(interval)
		if now := time.Now(); next.Before(now) {
			next = now.Add(interval - now.Sub(next)%interval)
		}
	}
	return nil
}

// round sends the victim's PING and GET-MASTER-ADDR-BY-NAME.
func round(c *harness.Conn, victim string) error {
	v, err := c.Do(roundTimeout, "PING")
	if err != nil {
		return err
	}
	if v != "PONG" {
		return fmt.Errorf("%w: PING answered %v", errBadReply, v)
	}
	v, err = c.Do(roundTimeout, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", victim)
	if err != nil {
		return err
	}
	if a, ok := v.([]any); !ok || len(a) != 2 {
		return fmt.Errorf("%w: GET-MASTER-ADDR-BY-NAME answered %v", errBadReply, v)
	}
	return nil
}

var errBadReply = errors.New("unexpected reply")

// ProbeMain runs the prober when the process was started as one (by a
// subprocess prober) and exits; otherwise it returns at once. Commands
// using a subprocess prober call it first thing in main.
func ProbeMain() {
	spec, ok := os.LookupEnv(probeEnv)
	if !ok {
		return
	}
	f := strings.Split(spec, "\t")
	if len(f) != 3 {
		fmt.Fprintf(os.Stderr, "probe: bad %s %q\n", probeEnv, spec)
		os.Exit(2)
	}
	iv, err := time.ParseDuration(f[2])
	if err != nil {
		fmt.Fprintf(os.Stderr, "probe: %v\n", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin) // EOF: the parent is done
		cancel()
	}()
	if err := Probe(ctx, f[0], f[1], iv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// sample is one timed round of the victim.
type sample struct {
	start time.Time
	dur   time.Duration
	ok    bool
}

// prober is a running victim client, in this process or another.
type prober struct {
	mu      sync.Mutex
	samples []sample
	sdown   time.Time
	sdownCh chan struct{} // closed at the first +sdown
	ready   chan struct{}
	done    chan struct{} // closed when the output has been read to the end
	stop    func()        // ends the prober
	errMu   sync.Mutex
	err     error
}

// startProber starts the victim client; subprocess selects a process of
// its own (see ProbeMain), otherwise a goroutine of this process.
func startProber(env *harness.Env, addr, victim string, interval time.Duration, subprocess bool) (*prober, error) {
	p := &prober{sdownCh: make(chan struct{}), ready: make(chan struct{}), done: make(chan struct{})}
	pr, pw := io.Pipe()
	var out io.Reader = pr
	if subprocess {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("prober: %w", err)
		}
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), probeEnv+"="+addr+"\t"+victim+"\t"+interval.String())
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return nil, fmt.Errorf("prober: %w", err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, fmt.Errorf("prober: %w", err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("prober: %w", err)
		}
		out = stdout
		exited := make(chan struct{})
		p.stop = func() {
			_ = stdin.Close()
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill() // by PID: our own child
				<-exited
			}
		}
		go func() {
			<-p.done
			if err := cmd.Wait(); err != nil {
				p.fail(fmt.Errorf("prober: %w: %s", err, strings.TrimSpace(stderr.String())))
			}
			close(exited)
		}()
		_ = pw.Close()
	} else {
		ctx, cancel := context.WithCancel(context.Background())
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			err := Probe(ctx, addr, victim, interval, pw)
			if err != nil {
				p.fail(err)
			}
			_ = pw.CloseWithError(err)
		}()
		p.stop = func() { cancel(); <-finished }
	}
	env.Cleanup(p.stop)
	go p.read(out)
	select {
	case <-p.ready:
		return p, nil
	case <-p.done:
		p.stop()
		return nil, fmt.Errorf("prober did not start: %w", p.error())
	case <-time.After(15 * time.Second):
		p.stop()
		return nil, fmt.Errorf("prober: not ready within 15 s")
	}
}

func (p *prober) fail(err error) {
	p.errMu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.errMu.Unlock()
}

func (p *prober) error() error {
	p.errMu.Lock()
	defer p.errMu.Unlock()
	return p.err
}

// read parses the prober's lines until EOF.
func (p *prober) read(r io.Reader) {
	defer close(p.done)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "r":
			close(p.ready)
		case "d":
			if len(f) != 2 {
				continue
			}
			ns, _ := strconv.ParseInt(f[1], 10, 64)
			p.mu.Lock()
			if p.sdown.IsZero() {
				p.sdown = time.Unix(0, ns)
				close(p.sdownCh)
			}
			p.mu.Unlock()
		case "s":
			if len(f) != 4 {
				continue
			}
			st, _ := strconv.ParseInt(f[1], 10, 64)
			d, _ := strconv.ParseInt(f[2], 10, 64)
			p.mu.Lock()
			p.samples = append(p.samples, sample{start: time.Unix(0, st), dur: time.Duration(d), ok: f[3] == "1"})
			p.mu.Unlock()
		}
	}
}

// finish stops the prober and returns every round and the +sdown time.
func (p *prober) finish() ([]sample, time.Time) {
	p.stop()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.samples, p.sdown
}
