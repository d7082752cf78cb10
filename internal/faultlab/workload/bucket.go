package workload

import (
	"context"
	"time"
)

// bucket is a token bucket: rate tokens per second, burst 1, so a stalled
// writer does not catch up with a burst when the cluster comes back.
type bucket struct {
	every time.Duration
	next  time.Time
}

func newBucket(rate int) *bucket {
	if rate <= 0 {
		rate = 1
	}
	return &bucket{every: time.Second / time.Duration(rate)}
}

// wait reserves the next token at now and returns how long to wait for it
// (false once ctx ended). It is called
// by several workers; callers serialise it with their own mutex.
func (b *bucket) wait(ctx context.Context, now time.Time) (time.Duration, bool) {
	if b.next.Before(now) {
		b.next = now
	}
	d := b.next.Sub(now)
	b.next = b.next.Add(b.every)
	return d, ctx.Err() == nil
}
