package client

import (
	"context"
	"errors"
	"fmt"
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
func (r *resolver) ask(ctx context.Context) ([]*masterAnswer, []error, bool) {
	r.mu.Lock()
	order := append([]string(nil), r.sentinels...)
	cur, known := r.addr, r.epoch
	r.mu.Unlock()
	// Queries not needed any more (quorum reached, resolution abandoned)
	// finish in the background, bounded by SentinelTimeout, and give
	// their connection back to the pool: cutting them would cost a new
	// connection (and TLS handshake) per abandoned query.
	qctx := context.WithoutCancel(ctx)
	results := make(chan queryResult, len(order))
	next, pending := 0, 0
	launch := func() {
		s := order[next]
		next++
		pending++
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			a, err := r.queryMaster(qctx, s)
			results <- queryResult{sentinel: s, answer: a, err: err}
		}()
	}
	for pending < r.opt.SentinelQuorum && next < len(order) {
		launch()
	}
	var answers []*masterAnswer
	var attempts []error
	notFound := false
	abandoned := false
	for pending > 0 && !abandoned {
		var q queryResult
		select {
		case q = <-results:
		case <-ctx.Done():
			abandoned = true // (hint, shutdown, deadline)
			continue
		}
		pending--
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
			r.mu.Lock()
			if len(answers) == 0 {
				r.sentinels.toFront(s)
			}
			r.mu.Unlock()
			r.answered(s, a.sentinels)
			answers = append(answers, a)
		}
		if len(answers) >= r.opt.SentinelQuorum || (a != nil && newerThanKnown(a, cur, known)) {
			break
		}
		for ctx.Err() == nil && pending+len(answers) < r.opt.SentinelQuorum && next < len(order) {
			launch()
		}
	}
	// Ties in the ranking go to the sentinel earlier in the list, not to
	// the faster one.
	pos := make(map[string]int, len(order))
	for i, s := range order {
		pos[s] = i
	}
	sort.SliceStable(answers, func(i, j int) bool { return pos[answers[i].sentinel] < pos[answers[j].sentinel] })
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

// answerEpoch is the highest config epoch reported with addr.
func answerEpoch(answers []*masterAnswer, addr string) int64 {
	e := int64(-1)
	for _, a := range answers {
		if a.addr == addr {
			e = max(e, rawEpoch(a))
		}
	}
	return e
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
