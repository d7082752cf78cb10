package server

import (
	"net"
)

// outBlockSize is the size of one output block, Redis' PROTO_REPLY_CHUNK_BYTES.
const outBlockSize = 16 << 10

// outBlock is one output block; mapped blocks are outside the Go heap.
type outBlock struct {
	b      []byte
	mapped bool
}

// outQueue is a client's unsent output as a list of fixed-size blocks, like
// Redis' reply list: appending never copies what is already queued and
// never doubles an array, so a queue of n bytes holds at most n plus one
// block. Blocks live outside the Go heap (outblock_unix.go): a subscriber
// that stops reading grows the queue up to its output limit, and on the
// heap that would also raise the garbage collector's target (twice the
// live heap) by as much again; off the heap, a dropped queue's memory goes
// back to the system at once, as with Redis' malloc.
type outQueue struct {
	blocks []*outBlock
	size   int // queued bytes
	// inflight is the bytes of the block a writer took and has not
	// released yet (its write may be blocked on a peer that stopped
	// reading). The output limits count them, as Redis counts the
	// partly written head of its reply list: a writer that takes output
	// off the queue must not make the client look drained while the
	// bytes are still unsent. A writer takes one block at a time
	// (maxWriteBatch), so the count is exact to within one block, like
	// Redis'.
	inflight int
}

// maxWriteBatch bounds the blocks one write takes off the queue: one
// 16 KiB block, so the bytes in flight are counted by the limits to
// within a block (see inflight). Taking the whole queue let a subscriber
// that read a little and stopped make the server hold its queue in
// flight plus a new queue up to the limit, and let the soft limit's
// timer restart while the kernel's buffers were full.
const maxWriteBatch = 1

// used returns the output the client holds, queued plus in flight: what
// the output limits and CLIENT LIST omem count.
func (q *outQueue) used() int { return q.size + q.inflight }

// append copies b to the end of the queue.
func (q *outQueue) append(b []byte) {
	q.size += len(b)
	for len(b) > 0 {
		if n := len(q.blocks); n > 0 {
			last := q.blocks[n-1]
			if free := cap(last.b) - len(last.b); free > 0 {
				k := min(free, len(b))
				last.b = append(last.b, b[:k]...)
				b = b[k:]
				continue
			}
		}
		q.blocks = append(q.blocks, getBlock())
	}
}

// take removes and returns every queued block.
func (q *outQueue) take() []*outBlock {
	bs := q.blocks
	q.blocks, q.size = nil, 0
	return bs
}

// takeBatch removes up to maxWriteBatch blocks from the front of the queue
// for a writer and counts them in flight until done is called with the
// returned byte count.
func (q *outQueue) takeBatch() ([]*outBlock, int) {
	if len(q.blocks) <= maxWriteBatch {
		n := q.size
		q.inflight += n
		return q.take(), n
	}
	bs := q.blocks[:maxWriteBatch:maxWriteBatch]
	n := 0
	for _, b := range bs {
		n += len(b.b)
	}
	q.blocks = q.blocks[maxWriteBatch:]
	q.size -= n
	q.inflight += n
	return bs, n
}

// done ends the in-flight accounting of a batch of n bytes from takeBatch.
func (q *outQueue) done(n int) { q.inflight -= n }

// reset drops the queued output.
func (q *outQueue) reset() { releaseBlocks(q.take()) }

// releaseBlocks frees blocks; the caller must not use them afterwards.
func releaseBlocks(bs []*outBlock) {
	for _, b := range bs {
		putBlock(b)
	}
}

// writeBlocks writes the blocks to conn in one writev where the connection
// supports it, and returns the bytes written.
func writeBlocks(conn net.Conn, bs []*outBlock) (int64, error) {
	bufs := make(net.Buffers, len(bs))
	for i, b := range bs {
		bufs[i] = b.b
	}
	return bufs.WriteTo(conn)
}
