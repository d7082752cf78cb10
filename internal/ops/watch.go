package ops

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Watch subscribes (PSUBSCRIBE *) to every sentinel in o and calls sink for
// each event, serialised (sink is never called concurrently) in arrival
// order, each stamped with its local receive time and source sentinel. A
// sentinel whose link drops is retried with a capped back-off; the drop
// (once per outage, also when the first attempt fails) and the recovery are
// reported to sink as Meta events "link-down"/"link-up".
//
// The returned ready channel is closed once every sentinel was subscribed
// or failed its first attempt; Watch returns (after all goroutines ended)
// when ctx is done.
func Watch(ctx context.Context, o *ConnOptions, sink func(Event)) (ready <-chan struct{}, done <-chan struct{}, err error) {
	addrs, err := o.sentinels()
	if err != nil {
		return nil, nil, err
	}
	if _, err := o.TLSConfig(); err != nil {
		return nil, nil, err
	}
	var mu sync.Mutex
	emit := func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		sink(e)
	}
	readyCh, doneCh := make(chan struct{}), make(chan struct{})
	var first, all sync.WaitGroup
	for _, a := range addrs {
		first.Add(1)
		all.Add(1)
		go func() {
			defer all.Done()
			watchOne(ctx, o, a, emit, first.Done)
		}()
	}
	go func() { first.Wait(); close(readyCh) }()
	go func() { all.Wait(); close(doneCh) }()
	return readyCh, doneCh, nil
}

// watchOne keeps one sentinel subscribed until ctx is done. firstDone is
// called exactly once, after the first subscription attempt.
func watchOne(ctx context.Context, o *ConnOptions, addr string, emit func(Event), firstDone func()) {
	var once sync.Once
	defer once.Do(firstDone)
	backoff := 100 * time.Millisecond
	down := false // a link-down was reported and no link-up since
	for ctx.Err() == nil {
		err := subscribeLoop(ctx, o, addr, emit, func() {
			once.Do(firstDone)
			backoff = 100 * time.Millisecond
			if down {
				down = false
				emit(Event{Time: time.Now(), Source: addr, Type: "link-up", Payload: "resubscribed", Meta: true})
			}
		})
		once.Do(firstDone)
		if ctx.Err() != nil {
			return
		}
		if !down {
			// Reported once per outage, not on every failed retry.
			down = true
			emit(Event{Time: time.Now(), Source: addr, Type: "link-down", Payload: err.Error(), Meta: true})
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff): // reconnect pacing; there is no event to await
		}
		backoff = min(backoff*2, 2*time.Second)
	}
}

// errNotSubscribed is returned when a sentinel answers but refuses to
// subscribe.
var errNotSubscribed = errors.New("psubscribe not confirmed")

// subscribeLoop subscribes once and relays messages until an error.
func subscribeLoop(ctx context.Context, o *ConnOptions, addr string, emit func(Event), subscribed func()) error {
	c, err := o.SentinelClient(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	ps := c.PSubscribe(ctx)
	defer ps.Close()
	if err := ps.PSubscribe(ctx, "*"); err != nil {
		return fmt.Errorf("psubscribe %s: %w", addr, err)
	}
	// The first reply must be the subscription confirmation.
	msg, err := ps.ReceiveTimeout(ctx, o.timeout())
	if err != nil {
		return fmt.Errorf("psubscribe %s: %w", addr, err)
	}
	if _, ok := msg.(*redis.Subscription); !ok {
		return fmt.Errorf("sentinel %s: %w (got %T)", addr, errNotSubscribed, msg)
	}
	subscribed()
	idle := 0
	for {
		msg, err := ps.ReceiveTimeout(ctx, time.Second)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if isNetTimeout(err) && idle < 2 {
				// Quiet sentinel: probe the link so that a dead peer is noticed.
				idle++
				if perr := ps.Ping(ctx); perr != nil {
					return fmt.Errorf("ping %s: %w", addr, perr)
				}
				continue
			}
			return fmt.Errorf("receive from %s: %w", addr, err)
		}
		idle = 0
		switch m := msg.(type) {
		case *redis.Message:
			emit(ParseEvent(time.Now(), addr, m.Channel, m.Payload))
		case *redis.Pong, *redis.Subscription:
		}
	}
}
