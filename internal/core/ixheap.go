package core

// ixHeap is a binary min-heap of master groups that knows each element's
// index (for fix and remove in O(log n)); container/heap is not on the
// core's import list.
type ixHeap struct {
	items []*instance
	key   func(*instance) int64
	idx   func(*instance) *int
}

func (h *ixHeap) len() int           { return len(h.items) }
func (h *ixHeap) top() *instance     { return h.items[0] }
func (h *ixHeap) less(a, b int) bool { return h.key(h.items[a]) < h.key(h.items[b]) }

func (h *ixHeap) swap(a, b int) {
	h.items[a], h.items[b] = h.items[b], h.items[a]
	*h.idx(h.items[a]) = a
	*h.idx(h.items[b]) = b
}

func (h *ixHeap) up(k int) {
	for k > 0 {
		p := (k - 1) / 2
		if !h.less(k, p) {
			return
		}
		h.swap(k, p)
		k = p
	}
}

func (h *ixHeap) down(k int) {
	n := len(h.items)
	for {
		c := 2*k + 1
		if c >= n {
			return
		}
		if c+1 < n && h.less(c+1, c) {
			c++
		}
		if !h.less(c, k) {
			return
		}
		h.swap(k, c)
		k = c
	}
}

// push adds m, which must not be in the heap.
func (h *ixHeap) push(m *instance) {
	h.items = append(h.items, m)
	*h.idx(m) = len(h.items) - 1
	h.up(len(h.items) - 1)
}

// pop removes and returns the smallest element.
func (h *ixHeap) pop() *instance {
	m := h.items[0]
	last := len(h.items) - 1
	h.swap(0, last)
	h.items[last] = nil
	h.items = h.items[:last]
	*h.idx(m) = -1
	if last > 0 {
		h.down(0)
	}
	return m
}

// fix restores the order after m's key changed; m is pushed if it is not
// in the heap.
func (h *ixHeap) fix(m *instance) {
	k := *h.idx(m)
	if k < 0 || k >= len(h.items) || h.items[k] != m {
		h.push(m)
		return
	}
	h.up(k)
	h.down(*h.idx(m))
}

// reset empties the heap.
func (h *ixHeap) reset() {
	for k, m := range h.items {
		*h.idx(m) = -1
		h.items[k] = nil
	}
	h.items = h.items[:0]
}

// init replaces the content with ms (heapified in O(n)).
func (h *ixHeap) init(ms []*instance) {
	h.reset()
	h.items = append(h.items, ms...)
	for k, m := range h.items {
		*h.idx(m) = k
	}
	for k := len(h.items)/2 - 1; k >= 0; k-- {
		h.down(k)
	}
}
