package runtime

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/resp"
	"github.com/gosentinel/gosentinel/internal/testutil"
)

func TestCacheableName(t *testing.T) {
	tests := []struct {
		args []string
		name string
		ok   bool
	}{
		{[]string{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "m"}, "m", true},
		{[]string{"sentinel", "get-master-addr-by-name", "M"}, "M", true},
		{[]string{"SENTINEL", "GET-MASTER-ADDR-BY-NAME"}, "", false},
		{[]string{"SENTINEL", "MASTER", "m"}, "", false}, // time-dependent fields
		{[]string{"ROLE"}, "", false},
	}
	for _, tc := range tests {
		args := make([][]byte, len(tc.args))
		for i, a := range tc.args {
			args[i] = []byte(a)
		}
		name, ok := cacheableName(args)
		rname, rok := cacheableRequest(core.Request{Args: tc.args})
		if ok != tc.ok || string(name) != tc.name || rok != tc.ok || rname != tc.name {
			t.Errorf("%v: (%q, %v) / (%q, %v), want (%q, %v)", tc.args, name, ok, rname, rok, tc.name, tc.ok)
		}
	}
}

func TestQueryCacheFillInvalidate(t *testing.T) {
	var q queryCache
	if _, ok := q.get([]byte("a")); ok {
		t.Fatal("hit in an empty cache")
	}
	q.fill("a", resp.Bulk("1"), "h", 1, true)
	q.fill("b", resp.Bulk("2"), "h", 2, true)
	for name, want := range map[string]string{"a": "1", "b": "2"} {
		if v, ok := q.get([]byte(name)); !ok || v.Str != want {
			t.Fatalf("get(%s) = %v, %v", name, v, ok)
		}
	}
	// The core now shows b elsewhere: b goes, a stays, without a copy
	// when nothing changed.
	addrs := map[string]int{"a": 1, "b": 3}
	lookup := func(name string) (string, int, bool) { p, ok := addrs[name]; return "h", p, ok }
	q.revalidate(lookup)
	if _, ok := q.get([]byte("b")); ok {
		t.Fatal("hit for a name whose address changed")
	}
	if v, ok := q.get([]byte("a")); !ok || v.Str != "1" {
		t.Fatalf("a dropped although unchanged: %v %v", v, ok)
	}
	gen := q.cur.Load()
	if allocs := testing.AllocsPerRun(100, func() { q.revalidate(lookup) }); allocs != 0 {
		t.Errorf("a revalidation that changes nothing allocates %v times", allocs)
	}
	if q.cur.Load() != gen {
		t.Error("a revalidation that changes nothing made a new generation")
	}
	// Unused for longer than unusedAfter: dropped.
	(*q.cur.Load())["a"].used.Store(time.Now().UnixNano() - 2*unusedAfter)
	q.revalidate(lookup)
	if _, ok := q.get([]byte("a")); ok {
		t.Fatal("hit for an entry unused for 2 s")
	}
	// Bounded: a full cache takes no new name.
	for i := range maxCachedNames + 5 {
		q.fill(fmt.Sprint("n", i), resp.Bulk("x"), "h", i, true)
	}
	if n := len(*q.cur.Load()); n != maxCachedNames {
		t.Fatalf("%d names cached, want at most %d", n, maxCachedNames)
	}
	q.invalidate()
	if _, ok := q.get([]byte("n0")); ok {
		t.Fatal("hit after invalidate")
	}
}

// TestQueryCacheSurvivesOtherEvents: a cached reply stays served while the
// loop steps events that do not change it (here SENTINEL RESET of other
// masters, which logs and publishes an event per master), so a query
// arriving during such a step does not queue behind it; a step that does
// change it (REMOVE) drops it before its reply is sent
// (TestQueryCacheFollowsState). Before 2026-12-04 the cache was emptied
// before every event other than the query.
func TestQueryCacheSurvivesOtherEvents(t *testing.T) {
	port := testutil.FreePort(t)
	conf := fmt.Sprintf("port %d\nbind 127.0.0.1\nsentinel monitor mym 127.0.0.1 1 1\n", port)
	for i := range 20 {
		conf += fmt.Sprintf("sentinel monitor other%d 127.0.0.1 %d 1\n", i, 2+i)
	}
	r, _ := runConf(t, conf)
	c := client(t, r.Addrs()[0].String())
	ctx := context.Background()
	if err := c.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym").Err(); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.CachedMasterAddr([]byte("mym")); !ok {
		t.Fatal("no cached reply after a query")
	}
	for range 5 {
		if n, err := c.Do(ctx, "SENTINEL", "RESET", "other*").Int(); err != nil || n != 20 {
			t.Fatalf("RESET other*: %v %v", n, err)
		}
		var hit bool
		if err := r.call(func() { _, hit = r.qcache.get([]byte("mym")) }); err != nil {
			t.Fatal(err)
		}
		if !hit {
			t.Fatal("SENTINEL RESET of other masters dropped the cached reply of mym")
		}
	}
	if err := c.Do(ctx, "SENTINEL", "REMOVE", "mym").Err(); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.CachedMasterAddr([]byte("mym")); ok {
		t.Fatal("cached reply kept after REMOVE")
	}
}

// TestQueryCacheFollowsState: replies served from the cache change as soon
// as a command changes the core's state (REMOVE, MONITOR elsewhere), and
// the cache does fill from the loop's answers.
func TestQueryCacheFollowsState(t *testing.T) {
	port := testutil.FreePort(t)
	r, _ := runConf(t, fmt.Sprintf("port %d\nbind 127.0.0.1\nsentinel monitor mym 127.0.0.1 1 1\n", port))
	c := client(t, r.Addrs()[0].String())
	ctx := context.Background()
	get := func() string {
		t.Helper()
		v, err := c.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym").Result()
		if err != nil {
			return err.Error()
		}
		return fmt.Sprint(v)
	}
	steps := []struct {
		cmd        []any
		want, wire string
	}{
		{nil, "[127.0.0.1 1]", "*2\r\n$9\r\n127.0.0.1\r\n$1\r\n1\r\n"},
		{[]any{"SENTINEL", "REMOVE", "mym"}, "redis: nil", "*-1\r\n"},
		{[]any{"SENTINEL", "MONITOR", "mym", "127.0.0.1", "2", "1"}, "[127.0.0.1 2]", "*2\r\n$9\r\n127.0.0.1\r\n$1\r\n2\r\n"},
		{[]any{"SENTINEL", "REMOVE", "mym"}, "redis: nil", "*-1\r\n"},
		{[]any{"SENTINEL", "MONITOR", "mym", "127.0.0.1", "3", "1"}, "[127.0.0.1 3]", "*2\r\n$9\r\n127.0.0.1\r\n$1\r\n3\r\n"},
	}
	for _, st := range steps {
		if st.cmd != nil {
			if err := c.Do(ctx, st.cmd...).Err(); err != nil {
				t.Fatalf("%v: %v", st.cmd, err)
			}
		}
		for i := 0; i < 3; i++ { // the 2nd and 3rd are served by the cache
			if got := get(); got != st.want {
				t.Fatalf("after %v, query %d: %s, want %s", st.cmd, i, got, st.want)
			}
		}
		// On the loop (no event in between), a query fills the cache
		// with the core's reply.
		var cached string
		var hit bool
		if err := r.call(func() {
			r.nextReq++
			r.replies[r.nextReq] = make(chan resp.Value, 1)
			if err := r.step(core.Request{ID: r.nextReq, Args: []string{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym"}}); err != nil {
				t.Error(err)
			}
			var v resp.Value
			v, hit = r.qcache.get([]byte("mym"))
			cached = string(resp.AppendValue(nil, v, 2))
		}); err != nil {
			t.Fatal(err)
		}
		if !hit || cached != st.wire {
			t.Fatalf("after %v: cache hit %v with %q, want %q", st.cmd, hit, cached, st.wire)
		}
	}
}
