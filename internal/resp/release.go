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

// acquire gives a Reader without a buffer (new or released) one of its
// initial size, from the pool when it has one.
func (r *Reader) acquire() {
	if r.pool == nil {
		r.pool = poolFor(r.size)
	}
	if h, _ := r.pool.Get().(*[]byte); h != nil {
		r.buf, r.bufHandle = *h, h
		return
	}
	r.buf = make([]byte, r.size)
}

// Shrink releases the read buffer like Release and drops the buffers that
// hold the arguments of the last command, so that a Reader between
// commands holds only itself. The next command allocates them again; a
// server calls it for a connection it found idle, not after every command.
// The slices returned by the last ReadCommand must not be used after it.
func (r *Reader) Shrink() {
	r.Release()
	r.args, r.argOffs, r.argbuf = nil, nil, nil
}
