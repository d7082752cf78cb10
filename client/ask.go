package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"
)

// queryResult is the outcome of one sentinel query of a resolution.
type queryResult struct {
	sentinel string
	answer   *masterAnswer
	err      error
}

// ask queries the sentinels in list order, SentinelQuorum of them at a time
// (a failed query is replaced by the next sentinel), until SentinelQuorum
// answered with an address, one answer is newer than anything the client
// knows (see newerThanKnown), or the list is exhausted. Running the queries
// side by side means a slow or black-holed sentinel costs nothing while
// another one answers.
//
// A query that has not answered within SentinelTimeout is slow: the next
// sentinel is asked beside it. When the client has a verified master it
// could keep (see keepLastKnown), a slow query counts as failed, as
// before. Otherwise (no master yet, the master fenced by an event, its
// connections failing, or resolutions failing: the start of a fleet, a
// failover) waiting is the only way to serve the command, and a slow
// query is still waited for, up
// to the resolution's deadline: the first answer, even a late one, is
// taken once every sentinel was asked. Under a fleet's load every
// sentinel answers late; giving up at SentinelTimeout failed the
// resolution, and every retry cost another round of queries (measured:
// 1000 clients starting together on the shared box did not all write
// within minutes).
func (r *resolver) ask(ctx context.Context) ([]*masterAnswer, []error, bool) {
	r.mu.Lock()
	order := append([]string(nil), r.sentinels...)
	cur, known := r.addr, r.epoch
	// A master whose connections just failed (suspect) is no master to
	// fall back on either: under a fleet's load every sentinel answers
	// late, and an impatient round after a SIGKILL failed for every
	// client with ErrNoSentinelReachable (three sentinel errors each)
	// and was followed by full rounds instead of the outage poll.
	patient := r.addr == "" || r.fenced || r.failStreak > 0 || r.suspect
	// After a fence (an event named the current master as the old one)
	// the sender of the event is first in the list: it is asked alone
	// first, and its answer is enough when it names a newer master (see
	// newerThanKnown) or the replica it is promoting as the failover
	// leader; otherwise the next sentinel is asked at once. A fleet
	// switching together sends half the queries.
	fencedFirst := r.fenced && r.addr != "" && r.epoch >= 0
	base := r.actCtxLocked()
	view := r.trustViewLocked()
	r.mu.Unlock()
	// Queries not needed any more (quorum reached, resolution abandoned)
	// finish in the background, bounded by their deadline (patient) or
	// SentinelTimeout, and give their connection back to the pool:
	// cutting them would cost a new connection (and TLS handshake) per
	// abandoned query. They end with the activation.
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(r.opt.DialTimeout)
	}
	results := make(chan queryResult, len(order))
	started := make(map[string]time.Time, len(order))
	next, pending := 0, 0
	slow := map[string]bool{}
	launch := func() {
		s := order[next]
		next++
		pending++
		started[s] = time.Now()
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			qctx, cancel := context.WithDeadline(base, dl)
			defer cancel()
			if patient {
				qctx = context.WithValue(qctx, patientKey{}, true)
			}
			a, err := r.queryMaster(qctx, s)
			results <- queryResult{sentinel: s, answer: a, err: err}
		}()
	}
	first := r.opt.SentinelQuorum
	if fencedFirst {
		first = 1
	}
	for pending < first && next < len(order) {
		launch()
	}
	// answers are the raw answers; usable is what screen keeps of them
	// (answers about masters the client left or claims about the current
	// one need corroboration, see leftmaster.go), and only usable answers
	// count towards SentinelQuorum.
	var answers, usable []*masterAnswer
	var trusts []trust
	var attempts []error
	notFound := false
	abandoned := false
	var slowTimer *time.Timer
	defer func() {
		if slowTimer != nil {
			slowTimer.Stop()
		}
	}()
	for pending > 0 && !abandoned {
		// Patient: the earliest query still in its SentinelTimeout
		// turns slow when it expires.
		var slowC <-chan time.Time
		if patient {
			first := time.Time{}
			for s, at := range started {
				if !slow[s] && (first.IsZero() || at.Before(first)) {
					first = at
				}
			}
			if !first.IsZero() {
				if slowTimer != nil {
					slowTimer.Stop()
				}
				slowTimer = time.NewTimer(time.Until(first.Add(r.opt.SentinelTimeout)))
				slowC = slowTimer.C
			}
		}
		var q queryResult
		select {
		case q = <-results:
		case <-slowC:
			for s, at := range started {
				if !slow[s] && time.Since(at) >= r.opt.SentinelTimeout {
					slow[s] = true
				}
			}
			for ctx.Err() == nil && pending-len(slow)+len(usable) < r.opt.SentinelQuorum && next < len(order) {
				launch()
			}
			if len(answers) > 0 && pending == len(slow) && next >= len(order) {
				abandoned = true // every sentinel asked: rank what answered
			}
			continue
		case <-ctx.Done():
			abandoned = true // (hint, shutdown, deadline)
			continue
		}
		pending--
		delete(started, q.sentinel)
		wasSlow := slow[q.sentinel]
		delete(slow, q.sentinel)
		s, a := q.sentinel, q.answer
		switch {
		case q.err != nil && ctx.Err() != nil:
			// Abandoned (hint, shutdown, deadline): says nothing about s.
			attempts = append(attempts, &SentinelError{Addr: s, Err: q.err})
		case q.err != nil:
			attempts = append(attempts, &SentinelError{Addr: s, Err: q.err})
			r.stats.sentinelErrors.Add(1)
			r.mu.Lock()
			r.sentinels.toBack(s)
			r.mu.Unlock()
		case a == nil:
			notFound = true
			attempts = append(attempts, &SentinelError{Addr: s, Err: errMasterUnknownHere})
			r.answered(s, nil)
		default:
			r.answered(s, a.sentinels)
			hadUsable := len(usable) > 0
			answers = append(answers, a)
			usable, trusts = view.screen(answers)
			r.mu.Lock()
			if !hadUsable && !wasSlow && trusts[len(trusts)-1] == trustOK {
				r.sentinels.toFront(s)
			}
			r.mu.Unlock()
		}
		trusted := a != nil && len(trusts) > 0 && trusts[len(trusts)-1] == trustOK && q.err == nil
		if len(usable) >= r.opt.SentinelQuorum || (trusted && newerThanKnown(a, cur, known)) ||
			(fencedFirst && trusted && a.promoting && a.addr != cur) {
			break
		}
		for ctx.Err() == nil && pending-len(slow)+len(usable) < r.opt.SentinelQuorum && next < len(order) {
			launch()
		}
		if len(answers) > 0 && pending == len(slow) && next >= len(order) {
			break // the others are slow: rank what answered
		}
	}
	// Answers that name a master the client left without corroboration
	// are not used; their sentinels go to the back of the list, so that
	// the next verification asks another one first.
	for i, a := range answers {
		if trusts[i] == trustDropped {
			attempts = append(attempts, &SentinelError{Addr: a.sentinel, Err: errLeftMaster})
			r.stats.untrustedAnswers.Add(1)
			r.mu.Lock()
			r.sentinels.toBack(a.sentinel)
			r.mu.Unlock()
			r.log(slog.LevelWarn, "a sentinel names a master the client left, and no other sentinel confirms it: ignored",
				"sentinel", a.sentinel, "named", a.addr, "epoch", a.epoch)
		}
	}
	answers = usable
	// Ties in the ranking go to the sentinel earlier in the list, not to
	// the faster one.
	pos := make(map[string]int, len(order))
	for i, s := range order {
		pos[s] = i
	}
	sort.SliceStable(answers, func(i, j int) bool { return pos[answers[i].sentinel] < pos[answers[j].sentinel] })
	for s := range slow {
		// Still slow when the round ended: a timed-out query, as when
		// it is not waited for.
		if len(answers) == 0 {
			attempts = append(attempts, &SentinelError{Addr: s, Err: errSentinelTimeout})
		}
		if ctx.Err() == nil {
			r.stats.sentinelErrors.Add(1)
			r.mu.Lock()
			r.sentinels.toBack(s)
			r.mu.Unlock()
		}
	}
	if ctx.Err() != nil && len(answers) == 0 {
		attempts = append(attempts, fmt.Errorf("resolution: %w", ctx.Err()))
	}
	r.prune(time.Now())
	return answers, attempts, notFound
}

// newerThanKnown reports whether an answer names another address than the
// current one with a config epoch above the one that backs the current
// address: a lagging sentinel cannot produce it, so waiting for a second
// answer to rank it would only delay the switch.
func newerThanKnown(a *masterAnswer, cur string, known int64) bool {
	return cur != "" && known >= 0 && a.addr != cur && rawEpoch(a) > known
}

// rawEpoch is the config epoch a sentinel reported (without the ranking
// bonus of a failover leader's promoted answer).
func rawEpoch(a *masterAnswer) int64 {
	if a.promoting {
		return a.epoch - 1
	}
	return a.epoch
}

// noAnswerErr builds the DiscoveryError for a resolution with no answer.
func (r *resolver) noAnswerErr(attempts []error, notFound bool) error {
	return &DiscoveryError{Kind: noAnswerKind(attempts, notFound), Master: r.opt.MasterName, Attempts: attempts}
}

// noAnswerKind is the Kind of a resolution in which no sentinel named a
// master: ErrMasterNotFound when one knew nothing of the name, else
// ErrAuth when a sentinel refused the credentials (the likely cause, and
// not fixed by waiting), else ErrNotSentinel when every address that
// answered is not a sentinel, else ErrNoSentinelReachable.
func noAnswerKind(attempts []error, notFound bool) error {
	if notFound {
		return ErrMasterNotFound
	}
	auth, notSentinel, other := 0, 0, 0
	for _, a := range attempts {
		switch {
		case errors.Is(a, ErrAuth):
			auth++
		case errors.Is(a, ErrNotSentinel):
			notSentinel++
		default:
			other++
		}
	}
	switch {
	case auth > 0:
		return ErrAuth
	case notSentinel > 0 && other == 0:
		return ErrNotSentinel
	}
	return ErrNoSentinelReachable
}

// candidates orders the distinct advertised addresses by the highest config
// epoch that backs them (then by how many sentinels advertise them).
func candidates(answers []*masterAnswer) []string {
	type cand struct {
		addr  string
		epoch int64
		votes int
		first int
	}
	byAddr := map[string]*cand{}
	var list []*cand
	for i, a := range answers {
		c := byAddr[a.addr]
		if c == nil {
			c = &cand{addr: a.addr, epoch: a.epoch, first: i}
			byAddr[a.addr] = c
			list = append(list, c)
		}
		c.votes++
		if a.epoch > c.epoch {
			c.epoch = a.epoch
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].epoch != list[j].epoch {
			return list[i].epoch > list[j].epoch
		}
		if list[i].votes != list[j].votes {
			return list[i].votes > list[j].votes
		}
		return list[i].first < list[j].first
	})
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = c.addr
	}
	return out
}

// patientKey marks the context of a sentinel query that is waited for
// until the context's deadline rather than SentinelTimeout (see ask).
type patientKey struct{}

// queryDeadline is when a caller stops waiting for a sentinel query:
// SentinelTimeout from now, or the context's deadline for a patient query.
func (r *resolver) queryDeadline(ctx context.Context) time.Time {
	if ctx.Value(patientKey{}) != nil {
		if dl, ok := ctx.Deadline(); ok {
			return dl
		}
	}
	return deadlineFor(ctx, r.opt.SentinelTimeout)
}
