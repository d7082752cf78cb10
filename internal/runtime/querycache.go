package runtime

import (
	"strings"
	"sync/atomic"
	"time"

	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/resp"
)

// queryCache lets server goroutines answer SENTINEL GET-MASTER-ADDR-BY-NAME
// without entering the loop, with no second copy of the decision: every
// cached reply is a reply the core itself gave, and after every event it
// is kept only if the core would still give exactly that reply.
//
//   - A miss goes through the loop as usual; the core's Respond is stored
//     under the master name (fill), with the address it shows
//     (core.MasterAddr).
//   - After the core took any event other than such a query (tick, link
//     reply, hello, other command, persist done...) and before the loop
//     executes any of that event's effects (a reply, a published event,
//     a log line), the loop checks every cached name against the core's
//     new state (revalidate): an entry whose address changed, or that no
//     reader used for a second, is dropped. So a reply is only served
//     from state S while the core is still in S or computing the next
//     state, none of whose effects anyone has seen yet: a reader is
//     answered as if its query had been processed just before the event.
//
// Until 2026-12-04 the cache was emptied *before* every such event, so a
// query arriving while the loop worked through a long step (SENTINEL
// RESET * of 200 masters: 200 events logged and published) always
// queued behind it (docs/security.md, "Latency under these loads").
//
// Only the loop writes; a generation is an immutable map behind an atomic
// pointer (copy on fill and on a drop; a revalidation that changes nothing
// allocates nothing). At most maxCachedNames names are cached, so the
// check after each event stays a handful of map lookups whatever names
// clients ask for.
type queryCache struct {
	cur atomic.Pointer[map[string]*cacheEntry]
}

// cacheEntry is one cached reply; only used changes after it is made.
type cacheEntry struct {
	v    resp.Value
	host string // core.MasterAddr when filled
	port int
	ok   bool
	used atomic.Int64 // UnixNano of the last fill or hit
}

// maxCachedNames bounds the cache (names asked within unusedAfter).
const maxCachedNames = 16

// unusedAfter: an entry not read for this long is dropped at the next
// revalidation.
const unusedAfter = int64(time.Second)

// get returns the cached reply for master name, if any.
func (q *queryCache) get(name []byte) (resp.Value, bool) {
	m := q.cur.Load()
	if m == nil {
		return resp.Value{}, false
	}
	e, ok := (*m)[string(name)]
	if !ok {
		return resp.Value{}, false
	}
	e.used.Store(time.Now().UnixNano())
	return e.v, true
}

// invalidate drops every cached reply (loop only).
func (q *queryCache) invalidate() {
	if m := q.cur.Load(); m != nil && len(*m) > 0 {
		q.cur.Store(nil)
	}
}

// fill stores the core's reply v for name, which shows host:port (ok:
// a known master) (loop only). A full cache takes no new name.
func (q *queryCache) fill(name string, v resp.Value, host string, port int, ok bool) {
	old := q.cur.Load()
	n := 1
	if old != nil {
		if _, had := (*old)[name]; !had && len(*old) >= maxCachedNames {
			return
		}
		n += len(*old)
	}
	m := make(map[string]*cacheEntry, n)
	if old != nil {
		for k, x := range *old {
			m[k] = x
		}
	}
	e := &cacheEntry{v: v, host: host, port: port, ok: ok}
	e.used.Store(time.Now().UnixNano())
	m[name] = e
	q.cur.Store(&m)
}

// revalidate keeps the entries whose reply the core would still give,
// by addr (core.MasterAddr), and that were used within unusedAfter
// (loop only, after a state-changing event and before its effects).
func (q *queryCache) revalidate(addr func(name string) (string, int, bool)) {
	old := q.cur.Load()
	if old == nil || len(*old) == 0 {
		return
	}
	now := time.Now().UnixNano()
	keep := func(name string, e *cacheEntry) bool {
		if now-e.used.Load() > unusedAfter {
			return false
		}
		host, port, ok := addr(name)
		return ok == e.ok && port == e.port && host == e.host
	}
	drop := 0
	for name, e := range *old {
		if !keep(name, e) {
			drop++
		}
	}
	if drop == 0 {
		return
	}
	if drop == len(*old) {
		q.cur.Store(nil)
		return
	}
	m := make(map[string]*cacheEntry, len(*old)-drop)
	for name, e := range *old {
		if keep(name, e) {
			m[name] = e
		}
	}
	q.cur.Store(&m)
}

// isAddrQuery is the one predicate of the cache: a command whose reply
// depends only on the core's state (not on time or the client), SENTINEL
// GET-MASTER-ADDR-BY-NAME <name>.
func isAddrQuery(n int, cmd, sub string) bool {
	return n == 3 && strings.EqualFold(cmd, "sentinel") && strings.EqualFold(sub, "get-master-addr-by-name")
}

// cacheableName returns the master name of a cacheable query as the
// server received it (server side).
func cacheableName(args [][]byte) ([]byte, bool) {
	if len(args) != 3 || !isAddrQuery(len(args), string(args[0]), string(args[1])) {
		return nil, false
	}
	return args[2], true
}

// cacheableRequest is cacheableName for a core Request (loop side).
func cacheableRequest(ev core.Event) (string, bool) {
	req, ok := ev.(core.Request)
	if !ok || len(req.Args) != 3 || !isAddrQuery(len(req.Args), req.Args[0], req.Args[1]) {
		return "", false
	}
	return req.Args[2], true
}
