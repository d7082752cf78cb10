package ops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// ErrFailoverIncomplete is returned (with the report) when no
// +switch-master was seen before the drill's timeout.
var ErrFailoverIncomplete = errors.New("failover did not complete")

// ErrNoMaster is returned when no sentinel can name the master.
var ErrNoMaster = errors.New("no sentinel returned an address for the master")

// DrillOptions configures a failover drill.
type DrillOptions struct {
	Conn   *ConnOptions
	Master string
	Kill   bool // kill the master process instead of SENTINEL FAILOVER
	// Coordinated sends SENTINEL FAILOVER <master> COORDINATED (Valkey 9
	// semantics, gosentinel): the primary hands over with FAILOVER TO.
	Coordinated bool
	PID         int           // with Kill: this PID instead of the one found by port
	KillFunc    func() error  // with Kill: custom kill (demo: its own child process)
	Timeout     time.Duration // wait this long for +switch-master (default 60 s)
	Settle      time.Duration // keep writing this long after the first ok write after the switch (default 1 s)
	Interval    time.Duration // between writes (default 1 ms)
	Progress    io.Writer     // progress lines (nil: none)
	MaxLost     int           // fail the drill when more acknowledged writes are lost (-1: never)
	// NewClient builds the client the writes go through (default:
	// DefaultClientFactory).
	NewClient ClientFactory
	// OnEvent, when set, sees every sentinel event (e.g. to print it). It
	// is never called concurrently with itself or with progress output, so
	// both may share a writer.
	OnEvent func(Event)

	outMu *sync.Mutex
}

// DrillReport is the result of a drill: the checks a failover drill is
// judged by (addresses before and after, pool rebuilds, recovery time).
type DrillReport struct {
	Master       string     `json:"master"`
	Mode         string     `json:"mode"` // "sentinel-failover" or "kill"
	Client       string     `json:"client"`
	Before       string     `json:"before"`
	After        string     `json:"after"`
	AfterRole    string     `json:"after_role"` // ROLE of After, checked directly
	KilledPID    int        `json:"killed_pid,omitempty"`
	TriggeredVia string     `json:"triggered_via,omitempty"` // sentinel that accepted SENTINEL FAILOVER
	Trigger      time.Time  `json:"trigger"`
	Completed    bool       `json:"completed"`
	SdownMs      float64    `json:"sdown_ms"`  // trigger -> first +sdown of the master (-1 not seen)
	OdownMs      float64    `json:"odown_ms"`  // trigger -> first +odown (-1 not seen)
	SwitchMs     float64    `json:"switch_ms"` // trigger -> first +switch-master (-1 not seen)
	Writes       WriteStats `json:"writes"`
	LostChecked  int        `json:"lost_checked"` // acknowledged keys looked up on the new master
	Lost         int        `json:"lost"`
	LostSample   []string   `json:"lost_sample,omitempty"`
	LostError    string     `json:"lost_error,omitempty"`
	PoolFlushes  int        `json:"pool_flushes"` // -1 when the client does not expose it
	Timeline     *Failover  `json:"timeline,omitempty"`
	LinkNotices  []Event    `json:"link_notices,omitempty"`
	Problems     []string   `json:"problems"` // why the drill failed, empty when it passed
}

// Passed reports whether the failover completed and the checks hold.
func (r *DrillReport) Passed() bool { return len(r.Problems) == 0 }

func (d *DrillOptions) progress(format string, args ...any) {
	if d.Progress != nil {
		d.outMu.Lock()
		defer d.outMu.Unlock()
		fmt.Fprintf(d.Progress, time.Now().Format("15:04:05.000")+"  "+format+"\n", args...)
	}
}

// RunDrill performs a controlled failover of d.Master while writing through
// a Sentinel-aware client, and reports what the client saw. It returns the
// report together with ErrFailoverIncomplete when no switch happened; other
// errors mean the drill could not be run (nothing was triggered).
func RunDrill(ctx context.Context, d DrillOptions) (*DrillReport, error) {
	d.defaults()
	o := d.Conn
	rep := &DrillReport{Master: d.Master, Mode: "sentinel-failover", SdownMs: -1, OdownMs: -1, SwitchMs: -1, PoolFlushes: -1, Problems: []string{}}
	if d.Kill {
		rep.Mode = "kill"
	} else if d.Coordinated {
		rep.Mode = "sentinel-failover-coordinated"
	}
	before, err := ResolveMaster(ctx, o, d.Master)
	if err != nil {
		return nil, err
	}
	rep.Before = before
	d.progress("master %s is at %s", d.Master, before)
	kill, err := d.killer(before, rep)
	if err != nil {
		return nil, err
	}

	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	tl := NewTimeline()
	switched := make(chan struct{})
	var switchedAt time.Time
	ready, watchDone, err := Watch(wctx, o, func(e Event) {
		if d.OnEvent != nil {
			d.outMu.Lock()
			d.OnEvent(e)
			d.outMu.Unlock()
		}
		if e.Meta {
			rep.LinkNotices = append(rep.LinkNotices, e)
			return
		}
		if _, f, ok := tl.Add(e); ok && f.Complete && f.Master == d.Master && switchedAt.IsZero() {
			switchedAt = e.Time
			close(switched)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("drill: watch: %w", err)
	}
	defer func() { stopWatch(); <-watchDone }()
	select {
	case <-ready:
	case <-ctx.Done():
		return nil, fmt.Errorf("drill: %w", ctx.Err())
	}

	cl, err := d.NewClient(d.Master, o)
	if err != nil {
		return nil, fmt.Errorf("drill: client: %w", err)
	}
	defer cl.Client.Close()
	rep.Client = cl.Name
	w := newWriter(cl.Client, "sentinelctl:drill:"+strconv.FormatInt(time.Now().UnixNano(), 36)+":", d.Interval, 500*time.Millisecond)
	wrCtx, stopWrites := context.WithCancel(ctx)
	writerDone := make(chan struct{})
	go func() { defer close(writerDone); w.run(wrCtx) }()
	stopWriter := func() { stopWrites(); <-writerDone }
	defer stopWriter()

	warm, cancelWarm := context.WithTimeout(ctx, 5*time.Second)
	err = w.waitOK(warm, func(recs []writeRec) bool { return w.okN >= 50 })
	cancelWarm()
	if err != nil {
		recs := w.snapshot()
		last := "no write attempted"
		if n := len(recs); n > 0 {
			last = recs[n-1].err
		}
		return nil, fmt.Errorf("drill: the client cannot write to %s before the failover (%s): %w", d.Master, last, err)
	}
	d.progress("client writes ok (%d so far); triggering %s", w.okCount(), rep.Mode)

	rep.Trigger = time.Now()
	if err := kill(ctx); err != nil {
		return nil, fmt.Errorf("drill: trigger: %w", err)
	}
	timer := time.NewTimer(d.Timeout)
	defer timer.Stop()
	select {
	case <-switched:
		rep.Completed = true
		d.progress("+switch-master after %.0f ms", ms(switchedAt.Sub(rep.Trigger)))
		// Keep writing until the client wrote to the new master, then settle.
		sctx, cancel := context.WithTimeout(ctx, d.Timeout)
		err := w.waitOK(sctx, func(recs []writeRec) bool {
			n := len(recs)
			return n > 0 && movedOn(recs[n-1], switchedAt, rep.Before)
		})
		cancel()
		if err != nil {
			rep.Problems = append(rep.Problems, "the client did not write successfully to another node than the old master after the switch: "+err.Error())
		} else {
			d.progress("client writes again; settling %v", d.Settle)
			select {
			case <-time.After(d.Settle):
			case <-ctx.Done():
			}
		}
	case <-timer.C:
		rep.Problems = append(rep.Problems, fmt.Sprintf("no +switch-master within %v", d.Timeout))
	case <-ctx.Done():
		rep.Problems = append(rep.Problems, "interrupted: "+ctx.Err().Error())
	}
	stopWriter()
	stopWatch()
	<-watchDone
	if f, ok := drillFailover(tl.Failovers(), d.Master); ok {
		rep.Timeline = &f
		rep.SdownMs = stepSince(f, "+sdown", rep.Trigger)
		rep.OdownMs = stepSince(f, "+odown", rep.Trigger)
		rep.SwitchMs = stepSince(f, "+switch-master", rep.Trigger)
	}
	recs := w.snapshot()
	rep.Writes = analyzeWrites(recs, rep.Trigger)
	if rep.Timeline != nil {
		st, ok := rep.Timeline.StepAt("+failover-state-wait-promotion")
		if !ok {
			st, ok = rep.Timeline.StepAt("+promoted-slave")
		}
		if ok {
			rep.Writes.StaleAcks = staleAcks(recs, rep.Before, st.At)
		}
	}
	if cl.PoolFlushes != nil {
		rep.PoolFlushes = cl.PoolFlushes()
	}
	d.finish(context.WithoutCancel(ctx), rep, recs)
	if !rep.Completed {
		return rep, ErrFailoverIncomplete
	}
	return rep, nil
}

func (d *DrillOptions) defaults() {
	d.outMu = &sync.Mutex{}
	if d.Timeout <= 0 {
		d.Timeout = 60 * time.Second
	}
	if d.Settle <= 0 {
		d.Settle = time.Second
	}
	if d.Interval <= 0 {
		d.Interval = time.Millisecond
	}
	if d.NewClient == nil {
		d.NewClient = DefaultClientFactory
	}
}

// killer returns the trigger function, resolving the PID to kill up front so
// that nothing is triggered when it cannot be found.
func (d *DrillOptions) killer(before string, rep *DrillReport) (func(context.Context) error, error) {
	if !d.Kill {
		return func(ctx context.Context) error {
			var opts []string
			if d.Coordinated {
				opts = append(opts, "COORDINATED")
			}
			via, err := SentinelFailover(ctx, d.Conn, d.Master, opts...)
			rep.TriggeredVia = via
			return err
		}, nil
	}
	if d.KillFunc != nil {
		return func(context.Context) error { return d.KillFunc() }, nil
	}
	pid := d.PID
	if pid == 0 {
		host, portStr, err := net.SplitHostPort(before)
		if err != nil {
			return nil, fmt.Errorf("drill: master address %q: %w", before, err)
		}
		if !IsLocalHost(host) {
			return nil, fmt.Errorf("drill --kill: master %s: %w; give --pid or run on the master's host", before, ErrNotLocal)
		}
		port, _ := strconv.Atoi(portStr)
		if pid, err = FindListenerPID(port); err != nil {
			return nil, fmt.Errorf("drill --kill: %w", err)
		}
	}
	d.progress("will kill PID %d", pid)
	rep.KilledPID = pid
	return func(context.Context) error {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			return fmt.Errorf("kill %d: %w", pid, err)
		}
		return nil
	}, nil
}

func stepSince(f Failover, typ string, t0 time.Time) float64 {
	if s, ok := f.StepAt(typ); ok {
		return ms(s.At.Sub(t0))
	}
	return -1
}

// movedOn reports whether r is an acknowledged write, issued after the
// switch, by a node other than the old master. (When the node sees itself
// under another address than the sentinels announce, e.g. behind NAT, any
// node differs from old and this reduces to "acknowledged after the switch".)
func movedOn(r writeRec, switchedAt time.Time, old string) bool {
	return r.ok && r.start.After(switchedAt) && r.node != old
}

// drillFailover picks the failover of master the drill caused: the first
// completed one, else the first one still open.
func drillFailover(fo []Failover, master string) (Failover, bool) {
	var open *Failover
	for i := range fo {
		if fo[i].Master != master {
			continue
		}
		if fo[i].Complete {
			return fo[i], true
		}
		if open == nil {
			open = &fo[i]
		}
	}
	if open != nil {
		return *open, true
	}
	return Failover{}, false
}
