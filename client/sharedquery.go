package client

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"
)

// Shared sentinel queries (see docs/client.md, "One query in flight per
// sentinel per process").
//
// The clients of one process that ask the same sentinel the same thing
// (GET-MASTER-ADDR-BY-NAME and MASTER) in a resolution that waits for
// slow sentinels (no master to fall back on: a fence, an outage, a
// failover; see ask) share one query: at most one is in flight per sentinel, question and credentials,
// and the clients that ask while it is in flight share the next one,
// sent as soon as it ends. A client only ever gets the answer to a query
// sent after it asked, so a resolution started after a hint still hears
// what the sentinel said after the hint. 1000 clients hit by the same
// SIGKILL asked each sentinel about 4 000 times in one failover window,
// for the same answer.

// queryKey identifies one question to one sentinel.
type queryKey struct {
	addr, user, pass string
	tls              bool
	cmds             string
}

// queryFlight is one shared query.
type queryFlight struct {
	done   chan struct{}
	rs     []reply
	err    error
	sentAt time.Time    // zero until sent (guarded by sharedQueries.mu)
	next   *queryFlight // gathering the clients that asked while this one was in flight
	leader *resolver    // the client whose connection carries it
}

var sharedQueries = struct {
	mu sync.Mutex
	m  map[queryKey]*queryFlight
}{m: map[queryKey]*queryFlight{}}

// sharedDo is sentinelDo for a question any client of the process may
// share (see the file comment). A client with its own Dialer does not
// share (its path to the sentinel may differ).
func (r *resolver) sharedDo(ctx context.Context, addr string, cmds ...[]string) ([]reply, error) {
	if r.sentinelDialer() != nil || ctx.Value(patientKey{}) == nil {
		// Not shared: an impatient query (SentinelTimeout) could not
		// wait for the query in flight to end before its own is sent.
		return r.sentinelDo(ctx, addr, cmds...)
	}
	var b strings.Builder
	for _, c := range cmds {
		b.WriteString(strings.Join(c, " "))
		b.WriteByte('\n')
	}
	k := queryKey{addr: addr, user: r.opt.SentinelUsername, pass: r.opt.SentinelPassword,
		tls: r.sentinelTLS() != nil, cmds: b.String()}
	now := time.Now()
	sharedQueries.mu.Lock()
	cur := sharedQueries.m[k]
	var f, after *queryFlight
	lead := true
	switch {
	case cur == nil || now.Sub(cur.sentAt) >= r.opt.SentinelTimeout:
		// None in flight, or a slow one: it is not waited for (a
		// stuck connection must not hold every client's query).
		f = &queryFlight{done: make(chan struct{}), leader: r, sentAt: now}
		sharedQueries.m[k] = f
	case cur.next != nil:
		f, lead = cur.next, false // gathering: sent after cur, so after this call
	default:
		f = &queryFlight{done: make(chan struct{}), leader: r}
		cur.next, after = f, cur
	}
	sharedQueries.mu.Unlock()
	if lead {
		r.runFlight(k, f, after, addr, cmds)
	}
	wait := time.NewTimer(time.Until(r.queryDeadline(ctx)))
	defer wait.Stop()
	select {
	case <-f.done:
		if f.err != nil && f.leader != r && (errors.Is(f.err, ErrClientClosed) || errors.Is(f.err, context.Canceled)) {
			// The client that carried it was closed: ask ourselves.
			return r.sentinelDo(ctx, addr, cmds...)
		}
		return f.rs, f.err
	case <-wait.C:
		return nil, errSentinelTimeout
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// runFlight sends flight f over this client's connection to addr once
// flight after (if any) ended or turned slow, without the caller's
// deadline (every client waiting for it has its own), bounded by the
// client's lifetime.
func (r *resolver) runFlight(k queryKey, f, after *queryFlight, addr string, cmds [][]string) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		if after != nil {
			slow := time.NewTimer(time.Until(after.sentAt.Add(r.opt.SentinelTimeout)))
			select {
			case <-after.done:
			case <-slow.C:
			case <-r.ctx.Done():
			}
			slow.Stop()
			sharedQueries.mu.Lock()
			f.sentAt = time.Now()
			sharedQueries.m[k] = f
			sharedQueries.mu.Unlock()
		}
		var rs []reply
		err := ErrClientClosed
		if r.ctx.Err() == nil {
			ctx, cancel := context.WithTimeout(r.ctx, r.opt.DialTimeout)
			rs, err = r.sentinelDo(context.WithValue(ctx, patientKey{}, true), addr, cmds...)
			cancel()
		}
		sharedQueries.mu.Lock()
		f.rs, f.err = rs, err
		close(f.done)
		if sharedQueries.m[k] == f && f.next == nil {
			delete(sharedQueries.m, k)
		}
		sharedQueries.mu.Unlock()
	}()
}
