package resp

import "sync"

// bufPools holds the read buffers of idle Readers, one pool (of *[]byte)
// per buffer size, shared by every Reader of the process.
var bufPools struct {
	sync.Mutex
	m map[int]*sync.Pool
}

// poolFor returns the pool of buffers of the given size.
func poolFor(size int) *sync.Pool {
	bufPools.Lock()
	defer bufPools.Unlock()
	if bufPools.m == nil {
		bufPools.m = map[int]*sync.Pool{}
	}
	p := bufPools.m[size]
	if p == nil {
		p = new(sync.Pool)
		bufPools.m[size] = p
	}
	return p
}

// Release gives the read buffer back to a pool shared by all Readers when
// it holds no unread bytes and has its initial size; the next read takes
// one from the pool again. A server calls it before waiting for a
// client's next command, so an idle connection holds no read buffer, as
// Redis frees an idle client's query buffer (clientsCronResizeQueryBuffer).
func (r *Reader) Release() {
	if r.buf == nil || r.r != r.w || len(r.buf) != r.size {
		return
	}
	h := r.bufHandle
	if h == nil {
		h = new([]byte)
	}
	*h = r.buf
	if r.pool == nil {
		r.pool = poolFor(r.size)
	}
	r.pool.Put(h)
	r.buf, r.bufHandle = nil, nil
	r.r, r.w = 0, 0
}

// acquire gives a released Reader a buffer of its initial size again.
func (r *Reader) acquire() {
	if r.pool != nil {
		if h, _ := r.pool.Get().(*[]byte); h != nil {
			r.buf, r.bufHandle = *h, h
			return
		}
	}
	r.buf = make([]byte, r.size)
}
