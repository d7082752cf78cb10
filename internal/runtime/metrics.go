package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/resp"
)

// Observer receives what the metrics need from the loop. Its methods are
// called on the loop goroutine, so they must be quick and never block
// (counter increments, a histogram observation).
type Observer interface {
	// Event is called once for every Sentinel event (§10) the core emits,
	// debug-level ones included.
	Event(e core.Emit)
	// LinkRTT reports the round-trip time of a PING answered on the
	// command connection of a link to an instance of the given role.
	LinkRTT(role core.Role, rtt time.Duration)
	// LinkDisconnected reports that an established connection (command
	// or pub/sub) to an instance of the given role was lost (not closed
	// by the core).
	LinkDisconnected(role core.Role, typ core.ConnType)
	// LinkFailed reports a connection attempt that failed before the
	// connection was established.
	LinkFailed(role core.Role, typ core.ConnType)
}

// Snapshot is what a metrics scrape reads from a running sentinel.
type Snapshot struct {
	MyID         string
	CurrentEpoch uint64
	Tilt         bool
	// Durable is false while the config cannot be saved (INFO
	// sentinel_config_save_status:err): no votes, no failovers.
	Durable bool
	// Masters are the core's views, sorted by name.
	Masters []core.MasterView
	// ScriptsRunning and ScriptsQueued count the script jobs of SENTINEL
	// PENDING-SCRIPTS by flag (running / scheduled).
	ScriptsRunning int
	ScriptsQueued  int
	// ConnectedClients is INFO's connected_clients (read from the server,
	// not the loop).
	ConnectedClients int
}

// MetricsSnapshot reads a [Snapshot] through the loop goroutine: the core
// is only touched there, for the time of one copy of the master views and
// one SENTINEL PENDING-SCRIPTS request. It returns ctx's error when the
// loop does not answer in time and [ErrStopped] once the runtime stopped.
func (r *Runtime) MetricsSnapshot(ctx context.Context) (Snapshot, error) {
	var s Snapshot
	done := make(chan struct{})
	fn := func() {
		// Runs on the loop; s is read by the caller only after done.
		s = Snapshot{
			MyID:         r.core.MyID(),
			CurrentEpoch: r.core.CurrentEpoch(),
			Tilt:         r.core.InTilt(),
			Durable:      r.core.Durable(),
			Masters:      r.core.Masters(),
		}
		close(done)
	}
	select {
	case r.requests <- request{fn: fn}:
	case <-ctx.Done():
		return Snapshot{}, fmt.Errorf("runtime: metrics snapshot: %w", ctx.Err())
	case <-r.stopped:
		return Snapshot{}, ErrStopped
	}
	select {
	case <-done:
	case <-ctx.Done():
		return Snapshot{}, fmt.Errorf("runtime: metrics snapshot: %w", ctx.Err())
	case <-r.stopped:
		return Snapshot{}, ErrStopped
	}
	v := r.Command(ctx, nil, [][]byte{[]byte("SENTINEL"), []byte("PENDING-SCRIPTS")})
	if v.Kind == resp.KindError {
		return Snapshot{}, fmt.Errorf("runtime: metrics snapshot: pending-scripts: %s", v.Str)
	}
	s.ScriptsRunning, s.ScriptsQueued = countScripts(v)
	s.ConnectedClients = r.srv.NumClients()
	return s, nil
}

// countScripts counts the running and scheduled jobs of a PENDING-SCRIPTS
// reply (an array of maps with a "flags" field).
func countScripts(v resp.Value) (running, queued int) {
	for _, job := range v.Elems {
		for i := 0; i+1 < len(job.Elems); i += 2 {
			if job.Elems[i].Str != "flags" {
				continue
			}
			if job.Elems[i+1].Str == "running" {
				running++
			} else {
				queued++
			}
		}
	}
	return running, queued
}

// observeEffect is called by the loop for every effect before it runs.
func (r *Runtime) observeEffect(eff core.Effect) {
	obs := r.opts.Observer
	if obs == nil {
		return
	}
	switch e := eff.(type) {
	case core.Send:
		if c, ok := r.conns[e.Conn]; ok && e.Kind == core.SendPing {
			if c.pings == nil {
				c.pings = make(map[core.Tag]time.Time)
			}
			c.pings[e.Tag] = time.Now()
		}
	case core.Emit:
		obs.Event(e)
	}
}

// observeClosed reports a lost connection, or one that never came up.
func (r *Runtime) observeClosed(c *connInfo) {
	if obs := r.opts.Observer; obs != nil {
		if c.up {
			obs.LinkDisconnected(c.role, c.typ)
		} else {
			obs.LinkFailed(c.role, c.typ)
		}
	}
}

// observeReply reports the round trip of an answered PING.
func (r *Runtime) observeReply(c *connInfo, tag core.Tag) {
	if t, ok := c.pings[tag]; ok {
		delete(c.pings, tag)
		if obs := r.opts.Observer; obs != nil {
			obs.LinkRTT(c.role, time.Since(t))
		}
	}
}
