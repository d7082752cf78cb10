package runtime

import (
	"context"
	"net"
	"sync"
	"time"
)

// Name-resolution timing (resolve-hostnames yes).
const (
	// dnsSyncWait bounds how long a lookup of a name without a cached
	// address blocks the caller (the loop goroutine).
	dnsSyncWait = 500 * time.Millisecond
	// dnsTTL is the age after which a cached address is refreshed in the
	// background; the cached address is still returned at once.
	dnsTTL = time.Second
	// dnsLookupTimeout bounds one lookup (foreground or background).
	dnsLookupTimeout = 5 * time.Second
)

// dnsCache resolves hostnames for the core without stalling the loop on a
// slow DNS server: a name with a cached address answers at once and is
// refreshed in the background when older than ttl; a name never resolved
// waits at most syncWait for its first lookup (which keeps running in the
// background and fills the cache when it completes late). A failed
// lookup keeps the old address, like the core's reresolve. Safe for
// concurrent use; the lookups run on goroutines that close() waits for.
type dnsCache struct {
	lookup   func(ctx context.Context, host string) ([]string, error)
	ttl      time.Duration
	syncWait time.Duration
	timeout  time.Duration

	ctx    context.Context // cancelled by close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	entries map[string]*dnsEntry
}

// dnsEntry is one name's cached address and its in-flight lookup.
type dnsEntry struct {
	ip   string        // last good address ("" if never resolved)
	at   time.Time     // when ip was last resolved
	done chan struct{} // closed when the in-flight lookup ends; nil if none
}

// newDNSCache returns a cache using the system resolver.
func newDNSCache() *dnsCache {
	return newDNSCacheWith(net.DefaultResolver.LookupHost, dnsTTL, dnsSyncWait, dnsLookupTimeout)
}

// newDNSCacheWith returns a cache using lookup (tests pass a fake).
func newDNSCacheWith(lookup func(context.Context, string) ([]string, error), ttl, syncWait, timeout time.Duration) *dnsCache {
	ctx, cancel := context.WithCancel(context.Background())
	return &dnsCache{
		lookup: lookup, ttl: ttl, syncWait: syncWait, timeout: timeout,
		ctx: ctx, cancel: cancel, entries: make(map[string]*dnsEntry),
	}
}

// resolve returns host's address (the core's Config.ResolveIP).
func (c *dnsCache) resolve(host string) (string, bool) {
	c.mu.Lock()
	e := c.entries[host]
	if e == nil {
		e = &dnsEntry{}
		c.entries[host] = e
	}
	if e.ip != "" {
		if e.done == nil && time.Since(e.at) >= c.ttl {
			c.startLocked(host, e)
		}
		ip := e.ip
		c.mu.Unlock()
		return ip, true
	}
	if e.done == nil {
		c.startLocked(host, e)
	}
	done := e.done
	c.mu.Unlock()

	t := time.NewTimer(c.syncWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-c.ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return e.ip, e.ip != ""
}

// startLocked starts a lookup of host into e; c.mu must be held.
func (c *dnsCache) startLocked(host string, e *dnsEntry) {
	if c.ctx.Err() != nil {
		return // closed: no new goroutines
	}
	done := make(chan struct{})
	e.done = done
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
		ips, err := c.lookup(ctx, host)
		cancel()
		c.mu.Lock()
		if err == nil && len(ips) > 0 && ips[0] != "" {
			e.ip, e.at = ips[0], time.Now()
		} // else keep the old address
		e.done = nil
		close(done)
		c.mu.Unlock()
	}()
}

// close cancels the lookups in flight and waits for their goroutines.
func (c *dnsCache) close() {
	c.mu.Lock()
	c.cancel()
	c.mu.Unlock()
	c.wg.Wait()
}
