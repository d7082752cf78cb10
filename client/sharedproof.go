package client

import (
	"sync"
	"sync/atomic"
	"time"
)

// Shared health checks (FailoverOptions.ShareHealthChecks, off by
// default; see docs/client.md, "One health check per sentinel per
// process").
//
// The primary subscription of every client sends a PING after 3/5 of
// VerifyInterval of silence, to prove that its sentinel still delivers
// events. A process running many clients (1000 in the fleet benchmark)
// then sent about 1 700 PINGs a second to the same three sentinels, each
// a timer, a write, a read and a goroutine wake-up: under CPU starvation
// the fleet spent on them the CPU its failover needed. A frame read on a
// primary subscription now proves, for the whole process, that its
// sentinel delivers (sentinelProof): a primary subscription whose own
// silence reaches the PING threshold while another one to the same
// sentinel (same address and dial path) was heard from within that
// threshold takes that proof instead of sending its own PING. Its own
// connection is still checked, every ownCheckEvery of silence, so that
// a connection that stops delivering alone (a stalled proxy or NAT
// flow) is found; a process with one client, or clients of distinct
// sentinels, behaves as before.

// proofKey identifies one sentinel reached over one kind of path.
type proofKey struct {
	addr string
	tls  bool
}

// sentinelProof is the process-wide health of one sentinel, shared by
// the primary subscriptions to it.
type sentinelProof struct {
	heard   atomic.Int64 // unix ns of the last frame read on one of them
	pinging atomic.Int64 // unix ns of the last PING one of them sent in the shared turn
}

// sentinelProofs maps proofKey to *sentinelProof.
var sentinelProofs sync.Map

// sentinelProof returns the process-wide proof of sentinel addr, or nil
// when the client does not share health checks (ShareHealthChecks off,
// the default) or dials its sentinels with its own Dialer (its path may
// differ from another client's to the same address).
func (r *resolver) sentinelProof(addr string) *sentinelProof {
	if !r.opt.ShareHealthChecks || r.sentinelDialer() != nil {
		return nil
	}
	k := proofKey{addr: addr, tls: r.sentinelTLS() != nil}
	v, ok := sentinelProofs.Load(k)
	if !ok {
		v, _ = sentinelProofs.LoadOrStore(k, &sentinelProof{})
	}
	return v.(*sentinelProof)
}

// prove records a frame read from the sentinel at now.
func (p *sentinelProof) prove(now time.Time) {
	if p == nil {
		return
	}
	ns := now.UnixNano()
	for {
		old := p.heard.Load()
		if old >= ns || p.heard.CompareAndSwap(old, ns) {
			return
		}
	}
}

// since returns when the sentinel was last heard from on a primary
// subscription of the process (zero if never, or p is nil).
func (p *sentinelProof) since() time.Time {
	if p == nil {
		return time.Time{}
	}
	if ns := p.heard.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// takeTurn reports whether the caller should send the PING that will
// prove the sentinel live for the process: nobody did within answer
// (then the caller's turn is recorded), or p is nil. Otherwise it returns
// when the PING in flight is due to be answered.
func (p *sentinelProof) takeTurn(now time.Time, answer time.Duration) (mine bool, due time.Time) {
	if p == nil {
		return true, time.Time{}
	}
	for {
		old := p.pinging.Load()
		if old != 0 && now.Sub(time.Unix(0, old)) < answer {
			return false, time.Unix(0, old).Add(answer)
		}
		if p.pinging.CompareAndSwap(old, now.UnixNano()) {
			return true, time.Time{}
		}
	}
}

// ownCheckEvery is how long a primary subscription that relies on the
// process-wide proof may stay silent before it sends its own PING.
func (r *resolver) ownCheckEvery() time.Duration {
	return max(10*r.pingAfter(true), 5*time.Second)
}
