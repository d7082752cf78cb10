package client

import "time"

// sentinelList is the ordered in-memory list of sentinel addresses. The
// first responder moves to the front (guidelines, step 1); a sentinel that
// failed moves to the back so that black-holed sentinels stop costing a
// timeout on every resolution; sentinels learnt from SENTINEL SENTINELS are
// appended. The caller holds resolver.mu.
type sentinelList []string

func (l sentinelList) index(addr string) int {
	for i, a := range l {
		if a == addr {
			return i
		}
	}
	return -1
}

// toFront moves addr to position 0.
func (l sentinelList) toFront(addr string) {
	i := l.index(addr)
	if i <= 0 {
		return
	}
	copy(l[1:i+1], l[:i])
	l[0] = addr
}

// toBack moves addr to the last position.
func (l sentinelList) toBack(addr string) {
	i := l.index(addr)
	if i < 0 || i == len(l)-1 {
		return
	}
	copy(l[i:], l[i+1:])
	l[len(l)-1] = addr
}

// add appends the addresses not yet present and reports how many were new.
func (l *sentinelList) add(addrs []string) int {
	n := 0
	for _, a := range addrs {
		if l.index(a) < 0 {
			*l = append(*l, a)
			n++
		}
	}
	return n
}

// sentinelMeta is what the client knows about one sentinel of its list.
type sentinelMeta struct {
	seed bool      // given in SentinelAddrs: never pruned
	seen time.Time // last time it answered, or was listed by a sentinel that answered
	// peersAsked is when it was last asked SENTINEL SENTINELS.
	peersAsked time.Time
}

// answered records that sentinel s answered a query and listed the
// sentinels peers (SENTINEL SENTINELS): new ones join the list (up to
// maxSentinels), listed ones are kept alive.
func (r *resolver) answered(s string, peers []string) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kept = false // a sentinel answers again: the next resolution asks
	r.touchLocked(s, now)
	for _, p := range peers {
		if r.sentinels.index(p) < 0 {
			if len(r.sentinels) >= maxSentinels {
				continue
			}
			r.sentinels.add([]string{p})
			r.stats.sentinelsDiscovered.Add(1)
		}
		r.touchLocked(p, now)
	}
}

func (r *resolver) touchLocked(s string, now time.Time) {
	m := r.meta[s]
	if m == nil {
		m = &sentinelMeta{}
		r.meta[s] = m
	}
	m.seen = now
}

// prune drops discovered sentinels that neither answered nor were listed
// by a sentinel that answered for SentinelPruneAfter (e.g. removed with
// SENTINEL RESET, or moved to another address). Seeds are never pruned.
func (r *resolver) prune(now time.Time) {
	if r.opt.SentinelPruneAfter < 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.sentinels[:0]
	for _, s := range r.sentinels {
		m := r.meta[s]
		if m != nil && !m.seed && now.Sub(m.seen) > r.opt.SentinelPruneAfter {
			delete(r.meta, s)
			r.stats.sentinelsPruned.Add(1)
			continue
		}
		kept = append(kept, s)
	}
	clear(r.sentinels[len(kept):])
	r.sentinels = kept
}
