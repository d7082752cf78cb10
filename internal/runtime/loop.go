package runtime

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/link"
	"github.com/gosentinel/gosentinel/internal/resp"
)

// Tick pacing: real Sentinel runs its timer every 50–100 ms (hz 10–19).
const (
	minTick = 50 * time.Millisecond
	maxTick = 100 * time.Millisecond
)

// Run serves until ctx is cancelled, the SHUTDOWN command is received
// (both return nil) or the core asks the process to exit ([*ExitError]).
// On return the listener, the links, the persister and the scripts are
// stopped and every goroutine the runtime started has returned.
func (r *Runtime) Run(ctx context.Context) error {
	if len(r.srv.Addrs()) == 0 {
		if err := r.Start(); err != nil {
			r.links.Shutdown()
			r.dns.close()
			return err
		}
	}
	r.log.Log(ctx, LevelNotice, "Sentinel ID is "+r.core.MyID())
	r.wg.Add(1)
	go r.persister()
	err := r.loop(ctx)
	r.stop()
	return err
}

// stop tears everything down and waits for the goroutines.
func (r *Runtime) stop() {
	r.stopOnce.Do(func() { close(r.stopped) })
	for id, ch := range r.replies {
		ch <- resp.Error("ERR server is shutting down")
		delete(r.replies, id)
	}
	_ = r.srv.Close()
	r.links.Shutdown()
	r.scrMu.Lock()
	for _, p := range r.scripts {
		_ = p.Kill()
	}
	r.scrMu.Unlock()
	r.dns.close()
	r.wg.Wait()
}

func (r *Runtime) now() core.Millis { return time.Since(r.start).Milliseconds() + 1 }

func (r *Runtime) loop(ctx context.Context) error {
	jitter := func() time.Duration {
		return minTick + time.Duration(r.opts.Rand.Int64N(int64(maxTick-minTick)))
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		var ev core.Event
		select {
		case <-ctx.Done():
			return nil
		case <-r.shutdown:
			return nil
		case <-timer.C:
			// Replies already read from the network are older than this
			// tick: feed them first, as Redis' event loop handles file
			// events before its timer. Otherwise, under CPU starvation,
			// a tick could judge instances silent while their replies
			// wait in the channel (false SDOWN; fault lab B9).
			if err := r.drainLinkEvents(); err != nil {
				return err
			}
			ev = core.Tick{}
		case lev := <-r.links.Events():
			ev = r.linkEvent(lev)
		case req := <-r.requests:
			if req.fn != nil {
				req.fn()
				continue
			}
			r.nextReq++
			r.replies[r.nextReq] = req.reply
			ev = core.Request{ID: r.nextReq, Args: req.args}
		case iev := <-r.internal:
			ev = iev
		}
		if ev != nil {
			if err := r.step(ev); err != nil {
				return err
			}
		}
		if _, isTick := ev.(core.Tick); isTick {
			now := r.now()
			wait := jitter()
			if d := time.Duration(r.core.NextDeadline(now)-now) * time.Millisecond; d < wait {
				wait = max(d, time.Millisecond)
			}
			timer.Reset(wait)
		}
	}
}

// maxDrain bounds how many queued link events a tick lets go first, so a
// flood of peer messages cannot hold back the timer.
const maxDrain = 4096

// drainLinkEvents steps the link events already queued, without waiting.
func (r *Runtime) drainLinkEvents() error {
	for range maxDrain {
		select {
		case lev := <-r.links.Events():
			ev := r.linkEvent(lev)
			if ev == nil {
				continue
			}
			if err := r.step(ev); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// step feeds ev and everything it causes to the core, executing effects
// in order.
func (r *Runtime) step(ev core.Event) error {
	defer r.links.Flush() // the step's sends: one write per connection
	if sl := r.opts.StepLog; sl != nil {
		sl.Hold()
		defer sl.Release()
		defer r.flushEvents() // before Release: the order of defers
	}
	r.queue = append(r.queue, ev)
	for len(r.queue) > 0 {
		ev := r.queue[0]
		r.queue = r.queue[1:]
		r.fillID, r.fillName = 0, ""
		name, query := cacheableRequest(ev)
		if query {
			r.fillID, r.fillName = ev.(core.Request).ID, name
		}
		effs := r.core.Step(r.now(), ev)
		if !query {
			// The core may have changed state: before anything of it
			// is seen (the effects below), drop what the query cache
			// would now answer differently (querycache.go).
			r.qcache.revalidate(r.core.MasterAddr)
		}
		for _, eff := range effs {
			if err := r.execute(eff); err != nil {
				return err
			}
		}
	}
	r.fillID, r.fillName = 0, ""
	return nil
}

// flushEvents writes the log lines held in this step (StepLog.Flush)
// and then publishes the events they log, in order: a subscriber never
// sees an event before its line is in the log file, and a SENTINEL RESET
// of hundreds of masters writes its hundreds of lines at once.
func (r *Runtime) flushEvents() {
	sl := r.opts.StepLog
	if sl == nil {
		return
	}
	sl.Flush()
	for i, e := range r.pubs {
		r.publish(e.Type, e.Msg)
		r.pubs[i] = core.Emit{}
	}
	r.pubs = r.pubs[:0]
}

// visibleEffect reports whether a client or a script could see the effect
// (a reply, a persisted config, a script, an exit): the step's held log
// lines and events go out before it (flushEvents). Connects, sends,
// closes and log lines are not ordered with the events.
func visibleEffect(eff core.Effect) bool {
	switch eff.(type) {
	case core.Connect, core.Send, core.Close, core.Log, core.Emit:
		return false
	}
	return true
}

func (r *Runtime) execute(eff core.Effect) error {
	r.observeEffect(eff) // metrics.go
	if len(r.pubs) > 0 && visibleEffect(eff) {
		r.flushEvents()
	}
	switch e := eff.(type) {
	case core.Connect:
		r.connect(e)
	case core.Send:
		r.send(e)
	case core.Close:
		delete(r.conns, e.Conn)
		r.links.Close(link.ConnID(e.Conn))
	case core.Emit:
		r.logEvent(e) // metrics_event.go: plain line, or with fields for JSON
		if e.Level != core.LevelDebug {
			if r.opts.StepLog != nil {
				r.pubs = append(r.pubs, e) // after the line is written (flushEvents)
			} else {
				r.publish(e.Type, e.Msg)
			}
		}
	case core.Log:
		r.log.Log(context.Background(), coreLevel(e.Level), e.Msg)
	case core.Persist:
		r.persists <- e // the core keeps at most one Persist outstanding
	case core.Respond:
		if ch, ok := r.replies[e.ID]; ok {
			delete(r.replies, e.ID)
			v := respValue(e.Value)
			if e.ID == r.fillID {
				host, port, ok := r.core.MasterAddr(r.fillName)
				r.qcache.fill(r.fillName, v, host, port, ok) // querycache.go
			}
			ch <- v // buffered: never blocks
		}
	case core.RunScript:
		r.runScript(e)
	case core.KillScript:
		r.killScript(e)
	case core.Exit:
		r.log.Log(context.Background(), LevelWarning, "Exiting with code "+strconv.Itoa(e.Code)+" as requested")
		return &ExitError{Code: e.Code}
	}
	return nil
}

func (r *Runtime) connect(e core.Connect) {
	host := e.Addr.IP
	if host == "" {
		host = e.Addr.Host
	}
	kind := link.Cmd
	if e.Type == core.ConnPubSub {
		kind = link.PubSub
	}
	c := &connInfo{link: e.Link, typ: e.Type, role: e.Role}
	r.conns[e.Conn] = c
	if err := r.links.Dial(link.ConnID(e.Conn), net.JoinHostPort(host, strconv.Itoa(e.Addr.Port)), kind); err != nil {
		delete(r.conns, e.Conn)
		r.observeClosed(c) // metrics.go
		r.queue = append(r.queue, core.LinkClosed{Link: e.Link, Conn: e.Conn, Err: fmt.Errorf("runtime: connect: %w", err)})
	}
}

func (r *Runtime) send(e core.Send) {
	if _, ok := r.conns[e.Conn]; !ok {
		return // closed already: the core sees (or saw) its LinkClosed
	}
	flags := link.Deferred // written by step's Flush
	if e.Kind == core.SendSubscribe {
		flags |= link.CloseOnError
	}
	r.links.Send(link.ConnID(e.Conn), link.Tag(e.Tag), e.Args, flags)
}

// linkEvent converts a link event; events of connections the core closed
// are dropped (nil).
func (r *Runtime) linkEvent(ev link.Event) core.Event {
	switch e := ev.(type) {
	case link.Connected:
		if ci, ok := r.conns[core.ConnID(e.Conn)]; ok {
			ci.up = true
			return core.LinkConnected{Link: ci.link, Conn: core.ConnID(e.Conn), LocalIP: e.LocalIP}
		}
	case link.Closed:
		if ci, ok := r.conns[core.ConnID(e.Conn)]; ok {
			delete(r.conns, core.ConnID(e.Conn))
			r.observeClosed(ci) // metrics.go
			r.log.Log(context.Background(), LevelDebug, "link closed: "+e.Err.Error())
			return core.LinkClosed{Link: ci.link, Conn: core.ConnID(e.Conn), Err: e.Err}
		}
	case link.Reply:
		if ci, ok := r.conns[core.ConnID(e.ID)]; ok {
			r.observeReply(ci, core.Tag(e.Conn)) // metrics.go
			return core.Reply{Link: ci.link, Conn: core.ConnID(e.ID), Tag: core.Tag(e.Conn), Value: coreValue(e.Value)}
		}
	case link.Message:
		if ci, ok := r.conns[core.ConnID(e.ID)]; ok {
			return core.Message{Link: ci.link, Conn: core.ConnID(e.ID), Channel: e.Conn, Payload: e.Payload}
		}
	}
	return nil
}

// call runs fn on the loop goroutine and waits for it.
func (r *Runtime) call(fn func()) error {
	done := make(chan struct{})
	select {
	case r.requests <- request{fn: func() { fn(); close(done) }}:
	case <-r.stopped:
		return ErrStopped
	}
	select {
	case <-done:
		return nil
	case <-r.stopped:
		return ErrStopped
	}
}
