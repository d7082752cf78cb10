package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// subConn is a subscription connection to one sentinel. In RESP3 (HELLO
// 3 accepted) a subscribed connection may run any command: pushes
// ('>' frames) are the events and subscription confirmations, every
// other frame is the reply to the oldest command still waiting. The
// client then sends its sentinel queries over the subscription instead
// of a second connection to the same sentinel (one connection per
// sentinel per client; see docs/client.md, "Sentinel connections"). In
// RESP2 (a sentinel that refuses HELLO 3) only PING is sent on it and
// queries use the query pool.
type subConn struct {
	rc    *respConn
	addr  string
	resp3 bool

	wmu sync.Mutex // one writer at a time; the pending order is the write order

	mu        sync.Mutex
	pending   []*subReq
	dead      bool // the reader ended: nothing is answered any more
	unhealthy bool // its health check is unanswered for long: queries use the pool
}

// subReq is a command (or pipeline) written on a subConn whose replies
// have not all been read.
type subReq struct {
	want int
	got  []reply
	done chan exchange // nil for the health check's PING
}

// errSubClosed ends the queries waiting on a subscription that failed.
var errSubClosed = errors.New("subscription connection closed")

// send writes cmds as one pipeline and registers their replies (done nil:
// they are read and dropped). It reports false when the connection cannot
// take queries (dead, or unhealthy and done != nil).
func (sc *subConn) send(deadline time.Time, done chan exchange, cmds ...[]string) (bool, error) {
	return sc.write(deadline, done, false, cmds)
}

// sendAnyway is send on an unhealthy (but not dead) subscription.
func (sc *subConn) sendAnyway(deadline time.Time, done chan exchange, cmds ...[]string) (bool, error) {
	return sc.write(deadline, done, true, cmds)
}

func (sc *subConn) write(deadline time.Time, done chan exchange, anyway bool, cmds [][]string) (bool, error) {
	var buf []byte
	for _, c := range cmds {
		buf = appendCommand(buf, c...)
	}
	sc.wmu.Lock()
	defer sc.wmu.Unlock()
	sc.mu.Lock()
	if sc.dead || (done != nil && sc.unhealthy && !anyway) {
		sc.mu.Unlock()
		return false, nil
	}
	sc.pending = append(sc.pending, &subReq{want: len(cmds), done: done})
	sc.mu.Unlock()
	if err := sc.rc.SetWriteDeadline(deadline); err != nil {
		sc.rc.Close()
		return true, fmt.Errorf("set deadline: %w", err)
	}
	if _, err := sc.rc.Write(buf); err != nil {
		// The reader fails every pending request when it sees the
		// closed connection.
		sc.rc.Close()
		return true, fmt.Errorf("write: %w", err)
	}
	return true, nil
}

// deliver hands a non-push frame to the oldest pending request. It
// reports false for a frame nobody waits for (a protocol error).
func (sc *subConn) deliver(rp reply) bool {
	sc.mu.Lock()
	if len(sc.pending) == 0 {
		sc.mu.Unlock()
		return false
	}
	p := sc.pending[0]
	p.got = append(p.got, rp)
	if len(p.got) < p.want {
		sc.mu.Unlock()
		return true
	}
	sc.pending = sc.pending[1:]
	sc.mu.Unlock()
	if p.done != nil {
		p.done <- exchange{rs: p.got} // buffered: the caller may have given up
	}
	return true
}

// fail ends every pending request with err and refuses new ones.
func (sc *subConn) fail(err error) {
	sc.mu.Lock()
	sc.dead = true
	ps := sc.pending
	sc.pending = nil
	sc.mu.Unlock()
	for _, p := range ps {
		if p.done != nil {
			p.done <- exchange{err: err}
		}
	}
}

// errSubStuck is a query not sent because the subscription to its
// sentinel has an unanswered health check (see subDo).
var errSubStuck = errors.New("subscription health check unanswered: sentinel skipped")

func (sc *subConn) isUnhealthy() bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.unhealthy && !sc.dead
}

func (sc *subConn) isDead() bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.dead
}

func (sc *subConn) setUnhealthy(v bool) {
	sc.mu.Lock()
	sc.unhealthy = v
	sc.mu.Unlock()
}

// subDo runs cmds over the RESP3 subscription to addr when there is a
// usable one; ok is false when there is none (the caller uses the query
// pool). The caller waits at most SentinelTimeout (or ctx); a reply that
// comes later is read and dropped by the subscription's reader.
func (r *resolver) subDo(ctx context.Context, addr string, cmds [][]string) (rs []reply, ok bool, err error) {
	r.mu.Lock()
	sc := r.subBy[addr]
	r.mu.Unlock()
	if sc == nil || !sc.resp3 {
		return nil, false, nil
	}
	deadline := r.queryDeadline(ctx)
	patient := ctx.Value(patientKey{}) != nil
	if !patient && sc.isUnhealthy() {
		// Its health check has been unanswered for stuckAfter: the
		// sentinel is loaded (or the connection stopped delivering).
		// The caller asks the next sentinel instead of dialling a
		// second connection to this one (under a fleet's load that
		// was one new connection per client and query). A patient
		// query (no master to fall back on) still waits on the
		// subscription: its caller asks the next sentinel beside it
		// after SentinelTimeout.
		return nil, true, &SentinelError{Addr: addr, Err: errSubStuck}
	}
	done := make(chan exchange, 1)
	sent, err := sc.send(deadline, done, cmds...)
	if !sent && patient && !sc.isDead() {
		// Unhealthy and patient: queue behind the health check.
		sent, err = sc.sendAnyway(deadline, done, cmds...)
	}
	if !sent {
		return nil, false, nil
	}
	r.stats.sentinelCommands.Add(uint64(len(cmds)))
	if err != nil {
		return nil, true, err
	}
	wait := time.NewTimer(time.Until(deadline))
	defer wait.Stop()
	start := time.Now()
	select {
	case x := <-done:
		if x.err == nil {
			r.noteReply(time.Since(start))
		}
		return x.rs, true, x.err
	case <-wait.C:
		// The reply is read (and dropped) by the subscriber when it
		// comes; the subscription stays in use, as a pooled connection
		// whose reply is drained in the background (a slow sentinel
		// must not make every client dial a second connection).
		return nil, true, errSentinelTimeout
	case <-ctx.Done():
		return nil, true, ctx.Err()
	}
}

// resp3Sub reports whether a RESP3 subscription to addr is up.
func (r *resolver) resp3Sub(addr string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	sc := r.subBy[addr]
	return sc != nil && sc.resp3
}

// hello3 is the RESP3 handshake of a subscription: HELLO 3 with the
// sentinel credentials and ClientName (one command instead of AUTH and
// CLIENT SETNAME).
func (r *resolver) hello3() []string {
	cmd := []string{"HELLO", "3"}
	if r.opt.SentinelPassword != "" {
		user := r.opt.SentinelUsername
		if user == "" {
			user = "default"
		}
		cmd = append(cmd, "AUTH", user, r.opt.SentinelPassword)
	}
	if r.opt.ClientName != "" {
		cmd = append(cmd, "SETNAME", r.opt.ClientName)
	}
	return cmd
}

// authRefused reports whether an error reply to HELLO (or AUTH) refuses
// the credentials, rather than the command or the protocol version.
func authRefused(rp reply) bool {
	s := strings.ToUpper(rp.str)
	return strings.HasPrefix(s, "WRONGPASS") || strings.HasPrefix(s, "NOAUTH") ||
		strings.Contains(s, "INVALID PASSWORD") || strings.Contains(s, "INVALID USERNAME")
}
