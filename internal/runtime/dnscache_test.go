package runtime

import (
	"context"
	"errors"
	"testing"
	"time"
)

// fakeLookup is a resolver the test answers call by call.
type fakeLookup struct {
	calls chan fakeCall
}

type fakeCall struct {
	host  string
	reply chan fakeAnswer
}

type fakeAnswer struct {
	ips []string
	err error
}

func newFakeLookup() *fakeLookup { return &fakeLookup{calls: make(chan fakeCall)} }

func (f *fakeLookup) lookup(ctx context.Context, host string) ([]string, error) {
	c := fakeCall{host: host, reply: make(chan fakeAnswer, 1)}
	select {
	case f.calls <- c:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case a := <-c.reply:
		return a.ips, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// next waits for the resolver's next call.
func (f *fakeLookup) next(t *testing.T) fakeCall {
	t.Helper()
	select {
	case c := <-f.calls:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no lookup started")
		return fakeCall{}
	}
}

// resolveNow runs c.resolve(host) and fails the test if it does not
// return while the resolver is held (a cached lookup must never block).
func resolveNow(t *testing.T, c *dnsCache, host string) (string, bool) {
	t.Helper()
	type res struct {
		ip string
		ok bool
	}
	ch := make(chan res, 1)
	go func() { ip, ok := c.resolve(host); ch <- res{ip, ok} }()
	select {
	case r := <-ch:
		return r.ip, r.ok
	case <-time.After(10 * time.Second):
		t.Fatal("cached lookup blocked on the resolver")
		return "", false
	}
}

// waitIdle waits until host has no lookup in flight.
func waitIdle(t *testing.T, c *dnsCache, host string) {
	t.Helper()
	c.mu.Lock()
	var done chan struct{}
	if e := c.entries[host]; e != nil {
		done = e.done
	}
	c.mu.Unlock()
	if done != nil {
		<-done
	}
}

func TestDNSCacheCachedLookupNeverBlocks(t *testing.T) {
	f := newFakeLookup()
	// ttl 0: every cached lookup is stale and triggers a refresh.
	c := newDNSCacheWith(f.lookup, 0, time.Hour, time.Hour)
	defer c.close()

	// First lookup of a name: waits (bounded) for the answer.
	first := make(chan string, 1)
	go func() { ip, _ := c.resolve("db1"); first <- ip }()
	call := f.next(t)
	if call.host != "db1" {
		t.Fatalf("lookup of %q, want db1", call.host)
	}
	call.reply <- fakeAnswer{ips: []string{"10.0.0.1"}}
	if ip := <-first; ip != "10.0.0.1" {
		t.Fatalf("first lookup = %q, want 10.0.0.1", ip)
	}

	// Stale entry: the cached address comes back at once while the
	// refresh hangs in the resolver.
	if ip, ok := resolveNow(t, c, "db1"); !ok || ip != "10.0.0.1" {
		t.Fatalf("cached lookup = %q %v, want 10.0.0.1 true", ip, ok)
	}
	refresh := f.next(t)
	// A second lookup while the refresh is in flight starts no other one.
	if ip, ok := resolveNow(t, c, "db1"); !ok || ip != "10.0.0.1" {
		t.Fatalf("cached lookup = %q %v, want 10.0.0.1 true", ip, ok)
	}
	select {
	case extra := <-f.calls:
		t.Fatalf("second refresh of %q started while one is in flight", extra.host)
	default:
	}

	// A failed refresh keeps the old address.
	refresh.reply <- fakeAnswer{err: errors.New("i/o timeout")}
	waitIdle(t, c, "db1")
	if ip, ok := resolveNow(t, c, "db1"); !ok || ip != "10.0.0.1" {
		t.Fatalf("after failed refresh = %q %v, want 10.0.0.1 true", ip, ok)
	}

	// A successful refresh replaces it (the instance moved).
	f.next(t).reply <- fakeAnswer{ips: []string{"10.0.0.2"}}
	waitIdle(t, c, "db1")
	if ip, ok := resolveNow(t, c, "db1"); !ok || ip != "10.0.0.2" {
		t.Fatalf("after refresh = %q %v, want 10.0.0.2 true", ip, ok)
	}
	f.next(t).reply <- fakeAnswer{ips: []string{"10.0.0.2"}}
	waitIdle(t, c, "db1")
}

func TestDNSCacheFreshEntryNoRefresh(t *testing.T) {
	f := newFakeLookup()
	c := newDNSCacheWith(f.lookup, time.Hour, time.Hour, time.Hour)
	defer c.close()
	first := make(chan string, 1)
	go func() { ip, _ := c.resolve("db1"); first <- ip }()
	f.next(t).reply <- fakeAnswer{ips: []string{"10.0.0.1"}}
	if ip := <-first; ip != "10.0.0.1" {
		t.Fatalf("first lookup = %q, want 10.0.0.1", ip)
	}
	if ip, ok := resolveNow(t, c, "db1"); !ok || ip != "10.0.0.1" {
		t.Fatalf("cached lookup = %q %v", ip, ok)
	}
	select {
	case extra := <-f.calls:
		t.Fatalf("refresh of fresh entry %q", extra.host)
	default:
	}
}

func TestDNSCacheSlowFirstLookupCompletesLater(t *testing.T) {
	f := newFakeLookup()
	// The first lookup waits only 1 ms; the resolver answers later.
	c := newDNSCacheWith(f.lookup, time.Hour, time.Millisecond, time.Hour)
	defer c.close()
	if ip, ok := c.resolve("db2"); ok {
		t.Fatalf("unanswered first lookup = %q, want unresolved", ip)
	}
	f.next(t).reply <- fakeAnswer{ips: []string{"10.0.0.3"}}
	waitIdle(t, c, "db2")
	if ip, ok := resolveNow(t, c, "db2"); !ok || ip != "10.0.0.3" {
		t.Fatalf("after late answer = %q %v, want 10.0.0.3 true", ip, ok)
	}
}

func TestDNSCacheCloseStopsLookups(t *testing.T) {
	f := newFakeLookup()
	c := newDNSCacheWith(f.lookup, 0, time.Millisecond, time.Hour)
	if _, ok := c.resolve("db3"); ok { // lookup left hanging in the fake
		t.Fatal("unanswered lookup resolved")
	}
	c.close() // cancels the hanging lookup and waits for it
	if _, ok := c.resolve("db3"); ok {
		t.Fatal("lookup after close resolved")
	}
	select {
	case extra := <-f.calls:
		t.Fatalf("lookup of %q started after close", extra.host)
	default:
	}
}
