package runtime

import (
	"strings"
	"sync/atomic"

	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/resp"
)

// queryCache lets server goroutines answer SENTINEL GET-MASTER-ADDR-BY-NAME
// without entering the loop, with no second copy of the decision: every
// cached reply is a reply the core itself gave, and it is dropped before
// the core sees any other event.
//
//   - A miss goes through the loop as usual; the core's Respond is stored
//     under the master name (fill).
//   - Before the loop feeds the core any event other than such a query
//     (tick, link reply, hello, other command, persist done...), it
//     replaces the cache with an empty one (invalidate), so an answer
//     cached from state S is only served while the core is still in S.
//     A reader racing with an invalidation gets the answer of the state
//     just before the event, as if its query had been processed first.
//
// Only the loop writes; a generation is an immutable map behind an atomic
// pointer (copy on fill: a generation holds the few names asked since the
// last event, so copies are tiny; invalidating an empty generation costs
// nothing).
type queryCache struct {
	cur atomic.Pointer[map[string]resp.Value]
}

// get returns the cached reply for master name, if any.
func (q *queryCache) get(name []byte) (resp.Value, bool) {
	m := q.cur.Load()
	if m == nil {
		return resp.Value{}, false
	}
	v, ok := (*m)[string(name)]
	return v, ok
}

// invalidate drops every cached reply (loop only).
func (q *queryCache) invalidate() {
	if m := q.cur.Load(); m != nil && len(*m) > 0 {
		q.cur.Store(nil)
	}
}

// fill stores the core's reply for name (loop only).
func (q *queryCache) fill(name string, v resp.Value) {
	old := q.cur.Load()
	n := 1
	if old != nil {
		n += len(*old)
	}
	m := make(map[string]resp.Value, n)
	if old != nil {
		for k, x := range *old {
			m[k] = x
		}
	}
	m[name] = v
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
