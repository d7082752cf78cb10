package sim

import "container/heap"

// item is one scheduled action of the simulation.
type item struct {
	at  int64  // virtual time, ms
	seq uint64 // insertion order, breaks ties deterministically
	fn  func()
}

// queue is the discrete-event queue, ordered by (at, seq).
type queue []*item

// Len, Less, Swap, Push and Pop implement heap.Interface.
func (q queue) Len() int { return len(q) }

// Less orders by time, then by insertion.
func (q queue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}

// Swap swaps two items.
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }

// Push appends an item.
func (q *queue) Push(x any) { *q = append(*q, x.(*item)) }

// Pop removes the last item.
func (q *queue) Pop() any {
	old := *q
	n := len(old)
	it := old[n-1]
	old[n-1] = nil
	*q = old[:n-1]
	return it
}

// scheduler owns the virtual clock and the event queue.
type scheduler struct {
	now int64
	seq uint64
	q   queue
}

// at schedules fn at virtual time t (never in the past).
func (s *scheduler) at(t int64, fn func()) {
	if t < s.now {
		t = s.now
	}
	s.seq++
	heap.Push(&s.q, &item{at: t, seq: s.seq, fn: fn})
}

// after schedules fn d ms from now.
func (s *scheduler) after(d int64, fn func()) { s.at(s.now+d, fn) }

// next pops the earliest item and advances the clock to it; ok is false
// when the queue is empty or the next item is later than limit.
func (s *scheduler) next(limit int64) (fn func(), ok bool) {
	if len(s.q) == 0 || s.q[0].at > limit {
		return nil, false
	}
	it := heap.Pop(&s.q).(*item)
	s.now = it.at
	return it.fn, true
}
