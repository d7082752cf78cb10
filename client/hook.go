package client

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// errClass says how a failed command may be handled.
type errClass int

const (
	classFinal     errClass = iota // return to the caller
	classNotSent                   // provably not executed: retry
	classMoved                     // READONLY / MASTERDOWN: not executed, re-resolve, retry
	classBusy                      // LOADING / TRYAGAIN / pool timeout: not executed, retry later
	classAmbiguous                 // network failure after the command may have been sent
)

// classify sorts a command error. READONLY, MASTERDOWN, LOADING, TRYAGAIN
// and NOREPLICAS are rejections: Redis did not execute the command.
func classify(err error) errClass {
	var de *dialError
	switch {
	case err == nil, errors.Is(err, redis.Nil), errors.Is(err, redis.ErrClosed), permanent(err),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded) && !errors.As(err, &de):
		return classFinal
	case errors.Is(err, ErrStaleConnection), errors.As(err, &de):
		return classNotSent
	case errors.Is(err, ErrMasterChanged):
		return classAmbiguous // sent to the old master; cut while waiting
	case redis.IsReadOnlyError(err), redis.IsMasterDownError(err):
		return classMoved
	case redis.IsLoadingError(err), redis.IsTryAgainError(err), redis.IsNoReplicasError(err),
		errors.Is(err, redis.ErrPoolTimeout):
		return classBusy
	}
	var rerr redis.Error
	if errors.As(err, &rerr) {
		return classFinal // any other server reply: the command ran (or was refused for good)
	}
	var ne net.Error
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) || errors.As(err, &ne) {
		return classAmbiguous
	}
	return classFinal
}

// readOnlyCommands may be resent after an ambiguous failure: running them
// twice has no effect on data.
var readOnlyCommands = map[string]bool{
	"get": true, "mget": true, "exists": true, "ttl": true, "pttl": true, "type": true,
	"strlen": true, "getrange": true, "hget": true, "hmget": true, "hgetall": true,
	"hexists": true, "hlen": true, "hkeys": true, "hvals": true, "hstrlen": true,
	"llen": true, "lrange": true, "lindex": true, "scard": true, "smembers": true,
	"sismember": true, "smismember": true, "srandmember": true, "zcard": true, "zscore": true,
	"zmscore": true, "zrange": true, "zrangebyscore": true, "zrevrange": true, "zrank": true,
	"zrevrank": true, "zcount": true, "xrange": true, "xrevrange": true, "xlen": true,
	"scan": true, "sscan": true, "hscan": true, "zscan": true, "keys": true, "dbsize": true,
	"ping": true, "echo": true, "info": true, "time": true, "role": true, "bitcount": true,
	"getbit": true, "pfcount": true, "geopos": true, "geodist": true, "dump": true,
	"object": true, "randomkey": true, "lpos": true, "sinter": true, "sunion": true, "sdiff": true,
}

// hook is the go-redis hook that implements the retry policy and turns
// failover-shaped errors into (single-flight) re-resolutions.
type hook struct{ r *resolver }

var _ redis.Hook = hook{}

// DialHook passes dials through (the Dialer does the work).
func (h hook) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook retries a single command when that is safe.
func (h hook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		for attempt := 0; ; attempt++ {
			gen := h.r.generation()
			err := next(ctx, cmd)
			if err == nil {
				return nil
			}
			retry := h.after(ctx, err, gen, readOnlyCommands[strings.ToLower(cmd.Name())])
			if !retry || attempt >= h.r.opt.MaxRetries || h.r.closed() {
				return err
			}
			if !errors.Is(err, ErrStaleConnection) && h.wait(ctx, attempt) != nil {
				return err
			}
			h.r.stats.retries.Add(1)
			cmd.SetErr(nil)
		}
	}
}

// ProcessPipelineHook retries a pipeline only when it provably did not
// reach the server (stale connection, failed dial); READONLY and friends
// trigger a re-resolution but the pipeline is returned as is, because some of
// its commands may have run.
func (h hook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for attempt := 0; ; attempt++ {
			gen := h.r.generation()
			err := next(ctx, cmds)
			if err == nil {
				return nil
			}
			notSent := classify(err) == classNotSent
			for _, c := range cmds {
				if c.Err() != nil {
					h.after(ctx, c.Err(), gen, false)
					if classify(c.Err()) != classNotSent {
						notSent = false
					}
				}
			}
			if !notSent || attempt >= h.r.opt.MaxRetries || h.r.closed() {
				return err
			}
			// A connection retired by a master change: retry at once (the
			// new connection waits for the resolution anyway).
			if !errors.Is(err, ErrStaleConnection) && h.wait(ctx, attempt) != nil {
				return err
			}
			h.r.stats.retries.Add(1)
			for _, c := range cmds {
				c.SetErr(nil)
			}
		}
	}
}

// after reacts to a failed command and reports whether it may be retried.
func (h hook) after(ctx context.Context, err error, gen uint64, readOnly bool) bool {
	switch classify(err) {
	case classNotSent, classBusy:
		return true
	case classMoved:
		// One re-resolution per generation, however many pooled
		// connections hit READONLY at the same time.
		_ = h.r.refresh(ctx, gen)
		return true
	case classAmbiguous:
		h.r.invalidate(gen)
		return readOnly || h.r.opt.RetryAmbiguousWrites
	}
	return false
}

// wait sleeps the retry backoff before retry n+1 (n counts from 0, as
// attempt does; go-redis numbers its first retry 1); a hint (the master
// moved) ends it at once.
func (h hook) wait(ctx context.Context, n int) error {
	return h.r.sleepUntilHint(ctx, retryBackoff(n+1, h.r.opt.MinRetryBackoff, h.r.opt.MaxRetryBackoff))
}

// retryBackoff is go-redis v9.23's internal.RetryBackoff, so that
// MinRetryBackoff and MaxRetryBackoff mean what they mean there: 0 when
// lo is 0 (-1 in the options), else lo plus a random part of lo << retry,
// capped at hi.
func retryBackoff(retry int, lo, hi time.Duration) time.Duration {
	if lo <= 0 {
		return 0
	}
	d := lo << uint(retry)
	if d < lo {
		return hi
	}
	d = lo + time.Duration(rand.Int64N(int64(d)))
	if d > hi || d < lo {
		d = hi
	}
	return d
}
