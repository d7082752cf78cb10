package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"time"
)

// backoff returns the jittered wait before attempt n (0-based) of the
// "start again from the first sentinel" loop: equal jitter over an
// exponential ramp from MinRoleBackoff to MaxRoleBackoff.
func backoff(n int, lo, hi time.Duration) time.Duration {
	d := lo
	for i := 0; i < n && d < hi; i++ {
		d *= 2
	}
	if d > hi {
		d = hi
	}
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}

// sleep waits d, or until a resolution ends or a hint arrives (so dialers
// react at once to +switch-master), or ctx / the client ends.
func (r *resolver) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	w := r.wake
	r.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-w:
	case <-ctx.Done():
		return ctx.Err()
	case <-r.ctx.Done():
		return ErrClientClosed
	}
	return nil
}

// sleepUntilHint waits d, or until a hint arrives (the end of a resolution
// does not cut it), or ctx / the client ends.
func (r *resolver) sleepUntilHint(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	r.mu.Lock()
	seq := r.hintSeq
	for {
		w := r.wake
		r.mu.Unlock()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-r.ctx.Done():
			return ErrClientClosed
		case <-w:
		}
		r.mu.Lock()
		if r.hintSeq != seq {
			r.mu.Unlock()
			return nil
		}
	}
}

// dial is the go-redis Dialer: it resolves (cache or sentinels), dials,
// verifies the role on the fresh connection, and on any failure starts
// again from the first sentinel until ctx (DialTimeout, or the caller's
// deadline) expires. After a failed resolution it goes straight back to the
// resolver, which paces the resolutions and wakes every waiting dialer the
// moment one ends or a hint arrives; only a failure after a successful
// resolution (the verified address then failed) sleeps a jittered backoff,
// cut short by the end of any resolution or a hint.
func (r *resolver) dial(ctx context.Context, _, _ string) (_ net.Conn, err error) {
	end := r.beginDial()
	defer func() { end(err != nil) }()
	var lastErr error
	if r.invalid != nil {
		return nil, &dialError{r.invalid}
	}
	for attempt := 0; ; attempt++ {
		if r.closed() {
			return nil, &dialError{ErrClientClosed}
		}
		if r.opt.FailFast {
			if err := r.noMasterKnown(); err != nil {
				return nil, &dialError{err}
			}
		}
		addr, gen, fresh, err := r.target(ctx)
		resolved := err == nil
		if err == nil {
			c := r.takeSpare(addr, gen)
			if c == nil {
				c, err = r.dialVerify(ctx, addr, r.want)
			}
			if err == nil && r.want == roleMaster && r.generation() != gen {
				// The master changed while we dialled: start again.
				c.Close()
				continue
			}
			if err == nil {
				r.startBackground()
				return r.track(c, gen, addr), nil
			}
			r.invalidate(gen)
			r.dropReplica(addr)
		}
		// A timeout cut short by the deadline says less than the error
		// seen before it (a role mismatch, a refused connection).
		if lastErr == nil || !isTimeout(err) {
			lastErr = err
		}
		if ctx.Err() != nil {
			return nil, &dialError{fmt.Errorf("%w (then: %v)", lastErr, ctx.Err())}
		}
		if permanent(err) {
			return nil, &dialError{err}
		}
		if r.opt.FailFast && !resolved {
			return nil, &dialError{fmt.Errorf("%w: %w", ErrFailoverInProgress, err)}
		}
		if fresh || (!resolved && r.lastFailed()) {
			// The cached address failed: re-resolve at once. Or the
			// resolution failed: the resolver paces the next one.
			continue
		}
		if serr := r.sleep(ctx, backoff(attempt, r.opt.MinRoleBackoff, r.opt.MaxRoleBackoff)); serr != nil {
			return nil, &dialError{fmt.Errorf("%w (while waiting: %v)", lastErr, serr)}
		}
	}
}

// noMasterKnown returns ErrFailoverInProgress (wrapping the last
// resolution error) while the last resolution failed or a fence retired
// the current master without a new one verified, and starts a resolution
// so that the client learns the outcome without a caller waiting for it.
func (r *resolver) noMasterKnown() error {
	r.mu.Lock()
	last, fenced, valid := r.lastErr, r.fenced, r.valid
	r.mu.Unlock()
	switch {
	case fenced:
		r.ensureResolution()
		return fmt.Errorf("%w: the sentinels announced a switch away from the current master", ErrFailoverInProgress)
	case last != nil && !valid && !permanent(last):
		r.ensureResolution()
		return fmt.Errorf("%w: %w", ErrFailoverInProgress, last)
	}
	return nil
}

// ensureResolution makes sure a resolution runs or is scheduled (paced
// as for waiting dialers), without waiting for it.
func (r *resolver) ensureResolution() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inflight != nil || r.closed() {
		return
	}
	wait := time.Duration(0)
	if r.lastErr != nil && !r.forced {
		wait = jitter(r.failGap()) - time.Since(r.lastEnd)
	}
	if wait > 0 {
		r.scheduleLocked(wait)
	} else {
		r.startLocked()
	}
}

// lastFailed reports whether the last resolution ended in an error (the
// resolver then paces the next one).
func (r *resolver) lastFailed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastErr != nil
}

// target returns the address a new connection should use.
func (r *resolver) target(ctx context.Context) (addr string, gen uint64, fresh bool, err error) {
	if r.want == roleSlave {
		return r.replicaTarget(ctx)
	}
	addr, gen, fresh = r.current()
	if fresh {
		return addr, gen, true, nil
	}
	if err := r.resolveShared(ctx); err != nil {
		return "", 0, false, err
	}
	r.mu.Lock()
	addr, gen = r.addr, r.gen
	r.mu.Unlock()
	return addr, gen, false, nil
}

// dialError marks an error that happened while opening a connection: the
// command that needed the connection was never sent.
type dialError struct{ err error }

func (e *dialError) Error() string {
	return "client: new connection: " + strings.TrimPrefix(e.err.Error(), "client: ")
}
func (e *dialError) Unwrap() error { return e.err }

// permanent reports discovery failures that waiting will not fix within one
// dial: no sentinel answered, or none knows the master name. They are
// returned at once instead of being retried until DialTimeout.
func permanent(err error) bool {
	return errors.Is(err, ErrNoSentinelReachable) || errors.Is(err, ErrMasterNotFound) ||
		errors.Is(err, ErrClientClosed) || errors.Is(err, ErrAuth) || errors.Is(err, ErrNotSentinel) ||
		errors.Is(err, ErrFailoverInProgress) || errors.Is(err, ErrInvalidOptions)
}

// isTimeout reports deadline and I/O timeout errors.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
