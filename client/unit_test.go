package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestCandidatesPreferHighestEpoch(t *testing.T) {
	tests := []struct {
		name    string
		answers []*masterAnswer
		want    []string
	}{
		{"single", []*masterAnswer{{addr: "a", epoch: 1}}, []string{"a"}},
		{"agree", []*masterAnswer{{addr: "a", epoch: 3}, {addr: "a", epoch: 3}}, []string{"a"}},
		{"lagging first", []*masterAnswer{{addr: "old", epoch: 1}, {addr: "new", epoch: 2}}, []string{"new", "old"}},
		{"epoch unknown loses", []*masterAnswer{{addr: "x", epoch: -1}, {addr: "y", epoch: 0}}, []string{"y", "x"}},
		{"tie broken by votes", []*masterAnswer{{addr: "a", epoch: 2}, {addr: "b", epoch: 2}, {addr: "b", epoch: 2}}, []string{"b", "a"}},
		{"tie broken by order", []*masterAnswer{{addr: "a", epoch: 2}, {addr: "b", epoch: 2}}, []string{"a", "b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := candidates(tc.answers); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("candidates = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSentinelList(t *testing.T) {
	tests := []struct {
		name string
		op   func(l *sentinelList)
		want string
	}{
		{"to front", func(l *sentinelList) { l.toFront("c") }, "[c a b]"},
		{"front noop", func(l *sentinelList) { l.toFront("a") }, "[a b c]"},
		{"unknown noop", func(l *sentinelList) { l.toFront("z"); l.toBack("z") }, "[a b c]"},
		{"to back", func(l *sentinelList) { l.toBack("a") }, "[b c a]"},
		{"add new only", func(l *sentinelList) {
			if n := l.add([]string{"c", "d", "d"}); n != 1 {
				panic(fmt.Sprintf("added %d", n))
			}
		}, "[a b c d]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := sentinelList{"a", "b", "c"}
			tc.op(&l)
			if got := fmt.Sprint([]string(l)); got != tc.want {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want errClass
	}{
		{"nil reply", redis.Nil, classFinal},
		{"closed client", redis.ErrClosed, classFinal},
		{"caller cancelled", context.Canceled, classFinal},
		{"stale connection", staleError{}, classNotSent},
		{"failed dial", &dialError{ErrMasterUnreachable}, classNotSent},
		{"dial: no sentinel", &dialError{&DiscoveryError{Kind: ErrNoSentinelReachable}}, classFinal},
		{"dial: unknown master", &dialError{&DiscoveryError{Kind: ErrMasterNotFound}}, classFinal},
		{"readonly", proto("READONLY You can't write against a read only replica."), classMoved},
		{"masterdown", proto("MASTERDOWN Link with MASTER is down"), classMoved},
		{"loading", proto("LOADING Redis is loading the dataset in memory"), classBusy},
		{"wrongtype", proto("WRONGTYPE Operation against a key holding the wrong kind of value"), classFinal},
		{"eof", io.EOF, classAmbiguous},
		{"timeout", &net.OpError{Op: "read", Err: timeoutErr{}}, classAmbiguous},
		{"other", errors.New("boom"), classFinal},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(tc.err); got != tc.want {
				t.Fatalf("classify(%v) = %d, want %d", tc.err, got, tc.want)
			}
		})
	}
}

// proto returns a go-redis server error reply with the given text.
func proto(s string) error {
	// go-redis returns server errors as redis.Error values; the exported
	// helpers look at the prefix, so any redis.Error with this text works.
	return redisErr(s)
}

type redisErr string

func (e redisErr) Error() string { return string(e) }
func (e redisErr) RedisError()   {}

func TestParseInfoRole(t *testing.T) {
	tests := []struct{ in, want string }{
		{"# Replication\r\nrole:master\r\nconnected_slaves:0\r\n", "master"},
		{"# Replication\r\nrole:slave\r\nmaster_host:x\r\n", "slave"},
		{"# Replication\r\n", ""},
		{"", ""},
	}
	for _, tc := range tests {
		if got := parseInfoRole(tc.in); got != tc.want {
			t.Errorf("parseInfoRole(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestReadReply(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string // fmt of the reply
		wantErr bool
	}{
		{"simple", "+OK\r\n", "{OK [] false 43 false}", false},
		{"error", "-ERR x\r\n", "{ERR x [] false 45 false}", false},
		{"null bulk", "$-1\r\n", "{ [] true 36 false}", false},
		{"resp3 null", "_\r\n", "{ [] true 36 false}", false},
		{"bulk", "$3\r\nabc\r\n", "{abc [] false 36 false}", false},
		{"array", "*2\r\n$1\r\na\r\n:5\r\n", "{ [{a [] false 36 false} {5 [] false 58 false}] false 42 false}", false},
		{"map", "%1\r\n+k\r\n+v\r\n", "{ [{k [] false 43 false} {v [] false 43 false}] false 42 false}", false},
		{"push", ">2\r\n$7\r\nmessage\r\n+x\r\n", "{ [{message [] false 36 false} {x [] false 43 false}] false 42 true}", false},
		{"bulk too long", fmt.Sprintf("$%d\r\n", maxBulkLen+1), "", true},
		{"negative length", "$-5\r\n", "", true},
		{"array too long", fmt.Sprintf("*%d\r\n", maxArrayLen+1), "", true},
		{"too deep", strings.Repeat("*1\r\n", maxReplyDeep+2) + "+x\r\n", "", true},
		{"no CRLF", "+OK\n", "", true},
		{"bad type", "!x\r\n", "", true},
		{"truncated bulk", "$10\r\nabc", "", true},
		{"bulk without CRLF", "$3\r\nabcde", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, _, err := readReply(bufio.NewReader(strings.NewReader(tc.in)), 0)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if !tc.wantErr && fmt.Sprint(r) != tc.want {
				t.Fatalf("reply = %v, want %v", r, tc.want)
			}
		})
	}
}

func FuzzReadReply(f *testing.F) {
	for _, s := range []string{"+OK\r\n", "*2\r\n$1\r\na\r\n:1\r\n", "$-1\r\n", "%1\r\n+a\r\n+b\r\n", "*1\r\n*1\r\n*-1\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, _, err := readReply(bufio.NewReader(strings.NewReader(string(b))), 0)
		if err == nil {
			_ = r.fieldMap()
		}
	})
}

func TestBackoffBounds(t *testing.T) {
	lo, hi := 10*time.Millisecond, 80*time.Millisecond
	for n := 0; n < 10; n++ {
		ceil := lo << n
		if ceil > hi {
			ceil = hi
		}
		for i := 0; i < 100; i++ {
			d := backoff(n, lo, hi)
			if d < ceil/2 || d > ceil {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v]", n, d, ceil/2, ceil)
			}
		}
	}
}

func TestReplicaFiltering(t *testing.T) {
	tests := []struct {
		flags        string
		ok           bool
		disconnected bool // UseDisconnectedReplicas
	}{
		{"slave", true, false}, {"slave,s_down", false, false}, {"slave,o_down", false, false},
		{"slave,disconnected", false, false}, {"slave,promoted", true, false}, {"s_downish", true, false},
		{"slave,disconnected", true, true}, {"slave,s_down,disconnected", false, true},
	}
	for _, tc := range tests {
		if got := usableReplica(replicaInfo{flags: tc.flags}, tc.disconnected); got != tc.ok {
			t.Errorf("usableReplica(%q, %v) = %v, want %v", tc.flags, tc.disconnected, got, tc.ok)
		}
	}
	for i := 0; i < 50; i++ {
		a, ok := pickReplica([]replicaInfo{{addr: "bad"}, {addr: "good", linkOK: true}})
		if !ok || a != "good" {
			t.Fatalf("pickReplica = %q, want the replica with link ok", a)
		}
	}
	if _, ok := pickReplica(nil); ok {
		t.Fatal("pickReplica(nil) reported a replica")
	}
}

func TestDefaults(t *testing.T) {
	tests := []struct {
		name  string
		in    FailoverOptions
		check func(o FailoverOptions) bool
	}{
		{"zero", FailoverOptions{}, func(o FailoverOptions) bool {
			return o.SentinelTimeout == DefaultSentinelTimeout && o.SentinelQuorum == DefaultSentinelQuorum &&
				o.MaxRetries == DefaultMaxRetries && o.ResolveCacheTTL == DefaultResolveCacheTTL &&
				o.ReconcileInterval == DefaultReconcileInterval && o.WriteTimeout == DefaultReadTimeout
		}},
		{"disable retries", FailoverOptions{MaxRetries: -1}, func(o FailoverOptions) bool { return o.MaxRetries == 0 }},
		{"keep -1 durations", FailoverOptions{ReconcileInterval: -1, ResolveCacheTTL: -1}, func(o FailoverOptions) bool {
			return o.ReconcileInterval == -1 && o.ResolveCacheTTL == -1
		}},
		{"inverted backoff", FailoverOptions{MinRetryBackoff: time.Second, MaxRetryBackoff: time.Millisecond}, func(o FailoverOptions) bool {
			return o.MaxRetryBackoff == time.Second
		}},
		{"go-redis defaults", FailoverOptions{}, func(o FailoverOptions) bool {
			return o.ReadTimeout == 5*time.Second && o.DialTimeout == 5*time.Second &&
				o.MinRetryBackoff == 10*time.Millisecond && o.MaxRetryBackoff == time.Second
		}},
		{"-1 disables the retry backoff", FailoverOptions{MinRetryBackoff: -1, MaxRetryBackoff: -1}, func(o FailoverOptions) bool {
			return o.MinRetryBackoff == 0 && o.MaxRetryBackoff == 0 && retryBackoff(3, o.MinRetryBackoff, o.MaxRetryBackoff) == 0
		}},
		{"-1 max backoff only", FailoverOptions{MaxRetryBackoff: -1}, func(o FailoverOptions) bool {
			return o.MaxRetryBackoff == 0 && retryBackoff(1, o.MinRetryBackoff, o.MaxRetryBackoff) == 0
		}},
		{"-1 min backoff only", FailoverOptions{MinRetryBackoff: -1}, func(o FailoverOptions) bool {
			return o.MinRetryBackoff == 0 && retryBackoff(3, o.MinRetryBackoff, o.MaxRetryBackoff) == 0
		}},
		// go-redis turns MaxRetryBackoff -1 into 0, and its backoff is
		// capped by it: no backoff at all, whatever MinRetryBackoff.
		// Before, the cap was raised to the default MinRetryBackoff
		// (10 ms) and retries still waited up to it.
		{"-1 max backoff only", FailoverOptions{MaxRetryBackoff: -1}, func(o FailoverOptions) bool {
			return o.MaxRetryBackoff == 0 && backoff(3, o.MinRetryBackoff, o.MaxRetryBackoff) == 0
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if o := tc.in.withDefaults(); !tc.check(o) {
				t.Fatalf("withDefaults = %+v", o)
			}
		})
	}
}

func TestNilOptionsDoNotPanic(t *testing.T) {
	rdb := NewFailoverClient(nil)
	defer rdb.Close()
	if err := rdb.Ping(context.Background()).Err(); !errors.Is(err, ErrNoSentinelReachable) {
		t.Fatalf("Ping with nil options = %v, want ErrNoSentinelReachable", err)
	}
}

// TestSentinelRotation: each client starts its list at a random seed (a
// fleet spreads over the sentinels), the cyclic order is kept, and
// SentinelOrderFixed keeps the given order.
func TestSentinelRotation(t *testing.T) {
	t.Parallel()
	seeds := []string{"a:1", "b:1", "c:1"}
	firsts := map[string]int{}
	for i := 0; i < 300; i++ {
		r := newResolver(FailoverOptions{SentinelAddrs: seeds}, roleMaster)
		got := []string(r.sentinels)
		k := slices.Index(seeds, got[0])
		for j := range seeds {
			if got[j] != seeds[(k+j)%len(seeds)] {
				t.Fatalf("rotation broke the cyclic order: %v", got)
			}
		}
		firsts[got[0]]++
	}
	for _, s := range seeds {
		if firsts[s] < 50 {
			t.Errorf("seed %s first in %d of 300 clients, want about 100 (%v)", s, firsts[s], firsts)
		}
	}
	r := newResolver(FailoverOptions{SentinelAddrs: seeds, SentinelOrderFixed: true}, roleMaster)
	if !slices.Equal([]string(r.sentinels), seeds) {
		t.Fatalf("SentinelOrderFixed: %v, want %v", r.sentinels, seeds)
	}
}
