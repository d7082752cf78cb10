package runtime

import (
	"context"

	"github.com/gosentinel/gosentinel/internal/resp"
	"github.com/gosentinel/gosentinel/internal/server"
)

var _ server.Backend = (*Runtime)(nil)

// Command implements server.Backend: SENTINEL, ROLE and PUBLISH become a
// core Request on the loop goroutine; the core's Respond is the reply.
func (r *Runtime) Command(ctx context.Context, _ *server.ClientInfo, args [][]byte) resp.Value {
	if name, ok := cacheableName(args); ok && !r.opts.NoQueryCache {
		if v, ok := r.qcache.get(name); ok {
			return v // the core's own reply, state unchanged since (querycache.go)
		}
	}
	reply, refused, ok := r.enqueue(ctx, args)
	if !ok {
		return refused
	}
	// Once queued, the loop always answers (stop answers what is left), so
	// waiting on reply alone cannot hang; ctx only shortens the wait.
	select {
	case v := <-reply:
		return v
	case <-ctx.Done():
		return resp.Error("ERR client gone")
	}
}

// CommandAsync implements server.PipelinedBackend: the command is queued
// to the loop now (so a client's pipelined commands reach the core in
// order, and the votes of one burst share a config save), and wait
// returns its reply. It does not use the query cache: the commands
// queued before it may change what the cached reply shows.
func (r *Runtime) CommandAsync(ctx context.Context, _ *server.ClientInfo, args [][]byte) func() resp.Value {
	reply, refused, ok := r.enqueue(ctx, args)
	if !ok {
		return func() resp.Value { return refused }
	}
	return func() resp.Value {
		select {
		case v := <-reply:
			return v
		case <-ctx.Done():
			return resp.Error("ERR client gone")
		}
	}
}

// enqueue queues a client's command to the loop and returns the channel
// its reply comes on; when it cannot be queued (the client is gone, the
// loop stopped) ok is false and refused is the error reply.
func (r *Runtime) enqueue(ctx context.Context, args [][]byte) (reply chan resp.Value, refused resp.Value, ok bool) {
	sargs := make([]string, len(args))
	for i, a := range args {
		sargs[i] = string(a)
	}
	reply = make(chan resp.Value, 1)
	select {
	case r.requests <- request{args: sargs, reply: reply}:
		return reply, resp.Value{}, true
	case <-ctx.Done():
		return nil, resp.Error("ERR client gone"), false
	case <-r.stopped:
		return nil, resp.Error("ERR server is shutting down"), false
	}
}

// CachedMasterAddr implements server.AddrCache: the query cache's reply
// for SENTINEL GET-MASTER-ADDR-BY-NAME name (querycache.go).
func (r *Runtime) CachedMasterAddr(name []byte) (resp.Value, bool) {
	if r.opts.NoQueryCache {
		return resp.Value{}, false
	}
	return r.qcache.get(name)
}

// InfoSentinel implements server.Backend: the "# Sentinel" INFO section.
func (r *Runtime) InfoSentinel() string {
	var s string
	if err := r.call(func() { s = r.core.InfoSection(r.now()) }); err != nil {
		return ""
	}
	return s
}

// Shutdown implements server.Backend (the SHUTDOWN command): Run returns.
func (r *Runtime) Shutdown() {
	r.shutOnce.Do(func() { close(r.shutdown) })
}
