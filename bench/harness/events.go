package harness

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Event is one Pub/Sub message published by a sentinel, stamped when the
// harness received it.
type Event struct {
	Sentinel int    // index of the sentinel in the watched list
	Type     string // channel, e.g. "+switch-master"
	Payload  string
	At       time.Time
}

// Watcher subscribes to every channel (PSUBSCRIBE *) of several sentinels
// and records their events.
type Watcher struct {
	mu      sync.Mutex
	events  []Event
	changed chan struct{} // closed and replaced on every new event
	conns   []*Conn
	wg      sync.WaitGroup
}

// Watch subscribes to all events of the sentinels at addrs. It returns once
// every subscription is confirmed, so no event published afterwards is
// missed. Close stops it.
func Watch(addrs []string) (*Watcher, error) {
	w := &Watcher{changed: make(chan struct{})}
	for i, a := range addrs {
		c, err := Dial(a, time.Second)
		if err != nil {
			w.Close()
			return nil, err
		}
		w.conns = append(w.conns, c)
		v, err := c.Do(2*time.Second, "PSUBSCRIBE", "*")
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("watch %s: %w", a, err)
		}
		if msg, ok := v.([]any); !ok || len(msg) != 3 || msg[0] != "psubscribe" {
			w.Close()
			return nil, fmt.Errorf("watch %s: %w: %v", a, ErrUnexpectedReply, v)
		}
		_ = c.SetDeadline(time.Time{})
		w.wg.Add(1)
		go w.read(i, c)
	}
	return w, nil
}

func (w *Watcher) read(idx int, c *Conn) {
	defer w.wg.Done()
	for {
		v, err := c.Read()
		if err != nil {
			return // connection closed by Close, or the sentinel died
		}
		at := time.Now()
		msg, ok := v.([]any)
		if !ok || len(msg) != 4 || msg[0] != "pmessage" {
			continue
		}
		ch, ok1 := msg[2].(string)
		payload, ok2 := msg[3].(string)
		if !ok1 || !ok2 {
			continue
		}
		w.mu.Lock()
		w.events = append(w.events, Event{Sentinel: idx, Type: ch, Payload: payload, At: at})
		close(w.changed)
		w.changed = make(chan struct{})
		w.mu.Unlock()
	}
}

// Close unsubscribes (closes the connections) and waits for the readers.
func (w *Watcher) Close() {
	for _, c := range w.conns {
		_ = c.Close()
	}
	w.wg.Wait()
}

// Events returns a copy of the events received so far.
func (w *Watcher) Events() []Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Event(nil), w.events...)
}

// Match selects events.
type Match func(Event) bool

// TypeFor matches events of type typ whose payload starts with prefix.
func TypeFor(typ, prefix string) Match {
	return func(e Event) bool { return e.Type == typ && strings.HasPrefix(e.Payload, prefix) }
}

// First returns the earliest received event matching m, if any.
func First(events []Event, m Match) (Event, bool) {
	for _, e := range events {
		if m(e) {
			return e, true
		}
	}
	return Event{}, false
}

// FirstPerSentinel returns, for each sentinel index 0..n-1, its first event
// matching m (zero Event where there is none) and how many were found.
func FirstPerSentinel(events []Event, n int, m Match) ([]Event, int) {
	out := make([]Event, n)
	found := 0
	for _, e := range events {
		if e.Sentinel < 0 || e.Sentinel >= n || !out[e.Sentinel].At.IsZero() || !m(e) {
			continue
		}
		out[e.Sentinel] = e
		found++
	}
	return out, found
}

// WaitUntil blocks until cond holds on the events received so far or the
// deadline passes; it reports whether cond held. It wakes on every event,
// never polls.
func (w *Watcher) WaitUntil(deadline time.Time, cond func([]Event) bool) bool {
	for {
		w.mu.Lock()
		ok := cond(w.events)
		ch := w.changed
		w.mu.Unlock()
		if ok {
			return true
		}
		d := time.Until(deadline)
		if d <= 0 {
			return false
		}
		t := time.NewTimer(d)
		select {
		case <-ch:
			t.Stop()
		case <-t.C:
			return cond(w.Events())
		}
	}
}
