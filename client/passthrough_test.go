package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// The ACL user that CredentialsProvider / CredentialsProviderContext
// return in TestPassThroughOptionsReachDataConnections.
const (
	ppUser = "ppapp"
	ppPass = "pp-secret"
)

// sentinelUsers returns the user= field of the connections named name on
// each sentinel.
func sentinelUsers(t *testing.T, sentinels []string, name string) []string {
	t.Helper()
	var users []string
	for _, cs := range sentinelClients(t, sentinels, name) {
		for _, l := range cs {
			for _, f := range strings.Fields(l) {
				if u, ok := strings.CutPrefix(f, "user="); ok {
					users = append(users, u)
				}
			}
		}
	}
	return users
}

// argsHook records the arguments of every command and pipelined command
// that goes through go-redis's hooks.
type argsHook struct {
	mu   sync.Mutex
	cmds []string
}

func (h *argsHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *argsHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.add(cmd)
		return next(ctx, cmd)
	}
}

func (h *argsHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			h.add(c)
		}
		return next(ctx, cmds)
	}
}

func (h *argsHook) add(c redis.Cmder) {
	parts := make([]string, 0, len(c.Args()))
	for _, a := range c.Args() {
		parts = append(parts, fmt.Sprint(a))
	}
	h.mu.Lock()
	h.cmds = append(h.cmds, strings.ToLower(strings.Join(parts, " ")))
	h.mu.Unlock()
}

func (h *argsHook) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.cmds
	h.cmds = nil
	return out
}

// TestPassThroughOptionsReachDataConnections: the go-redis options this
// package hands to go-redis unchanged (item 5 of issue 11) have the effect
// a user would notice on the data connections — the same effect as with
// go-redis's own FailoverClient, which runs every case beside ours. Each
// case builds go-redis's FailoverOptions and converts them with FromGoRedis,
// so a field lost on the way (FromGoRedis or dataOptions) fails its case.
// CredentialsProvider and CredentialsProviderContext authenticate the data
// connections only: the sentinel connections use SentinelUsername /
// SentinelPassword, as in go-redis (sentinelOptions), checked with CLIENT
// LIST on the sentinel.
func TestPassThroughOptionsReachDataConnections(t *testing.T) {
	t.Parallel()
	c := testutil.StartSentinelCluster(t, "mymaster", 0, 1, 1, 5000, 10000)
	sentinels := c.SentinelAddrs()
	ctx := context.Background()
	admin := redis.NewClient(&redis.Options{Addr: c.Top.Master.Addr(), MaxRetries: -1, DisableIdentity: true})
	defer admin.Close()
	if err := admin.Do(ctx, "ACL", "SETUSER", ppUser, "on", ">"+ppPass, "~*", "&*", "+@all").Err(); err != nil {
		t.Fatalf("ACL SETUSER: %v", err)
	}
	whoami := func(t *testing.T, rdb *redis.Client) string {
		u, err := rdb.Do(ctx, "ACL", "WHOAMI").Text()
		if err != nil {
			t.Fatalf("ACL WHOAMI: %v", err)
		}
		return u
	}
	// setinfo returns the CLIENT SETINFO commands of the handshake of a
	// new connection, as a hook sees them.
	setinfo := func(t *testing.T, rdb *redis.Client) string {
		h := &argsHook{}
		rdb.AddHook(h)
		if err := rdb.Ping(ctx).Err(); err != nil {
			t.Fatalf("PING: %v", err)
		}
		var out []string
		for _, c := range h.take() {
			if strings.HasPrefix(c, "client setinfo") {
				out = append(out, c)
			}
		}
		return strings.Join(out, "; ")
	}
	clientID := func(t *testing.T, rdb interface {
		ClientID(context.Context) *redis.IntCmd
	}) int64 {
		id, err := rdb.ClientID(ctx).Result()
		if err != nil {
			t.Fatalf("CLIENT ID: %v", err)
		}
		return id
	}
	tests := []struct {
		name  string
		opt   redis.FailoverOptions
		check func(t *testing.T, rdb *redis.Client, ours bool)
	}{
		{"CredentialsProvider", redis.FailoverOptions{ClientName: "pp-cred",
			CredentialsProvider: func() (string, string) { return ppUser, ppPass }},
			func(t *testing.T, rdb *redis.Client, ours bool) {
				if u := whoami(t, rdb); u != ppUser {
					t.Errorf("data connection authenticated as %q, want %q", u, ppUser)
				}
				if !ours {
					return
				}
				for _, u := range sentinelUsers(t, sentinels, "pp-cred") {
					if u != "default" {
						t.Errorf("sentinel connection authenticated as %q: CredentialsProvider reached the sentinel (go-redis: SentinelUsername/SentinelPassword only)", u)
					}
				}
			}},
		{"CredentialsProviderContext", redis.FailoverOptions{
			CredentialsProviderContext: func(context.Context) (string, string, error) { return ppUser, ppPass, nil }},
			func(t *testing.T, rdb *redis.Client, _ bool) {
				if u := whoami(t, rdb); u != ppUser {
					t.Errorf("data connection authenticated as %q, want %q", u, ppUser)
				}
			}},
		// redis-server 7.0 has no CLIENT SETINFO (7.2): what a user
		// notices is the handshake go-redis sends, seen by every hook
		// (a tracer records it).
		{"IdentitySuffix", redis.FailoverOptions{IdentitySuffix: "ppsuffix"},
			func(t *testing.T, rdb *redis.Client, _ bool) {
				if s := setinfo(t, rdb); !strings.Contains(s, "lib-name go-redis(ppsuffix,") {
					t.Errorf("CLIENT SETINFO sent: %q, want lib-name with the suffix", s)
				}
			}},
		{"DisableIdentity", redis.FailoverOptions{DisableIdentity: true},
			func(t *testing.T, rdb *redis.Client, _ bool) {
				if s := setinfo(t, rdb); s != "" {
					t.Errorf("CLIENT SETINFO sent although DisableIdentity: %q", s)
				}
			}},
		{"MaxActiveConns", redis.FailoverOptions{MaxActiveConns: 2, PoolSize: 10},
			func(t *testing.T, rdb *redis.Client, _ bool) {
				var held []*redis.Conn
				defer func() {
					for _, cn := range held {
						cn.Close()
					}
				}()
				for i := 0; i < 2; i++ {
					cn := rdb.Conn()
					held = append(held, cn)
					if err := cn.Ping(ctx).Err(); err != nil {
						t.Fatalf("PING on held connection %d: %v", i, err)
					}
				}
				if err := rdb.Ping(ctx).Err(); !errors.Is(err, redis.ErrPoolExhausted) {
					t.Errorf("third connection with MaxActiveConns 2: %v, want %v", err, redis.ErrPoolExhausted)
				}
			}},
		{"PoolFIFO", redis.FailoverOptions{PoolFIFO: true},
			func(t *testing.T, rdb *redis.Client, _ bool) {
				// Two connections returned to the pool in the order
				// a, b: FIFO hands out a next (LIFO would give b).
				a, b := rdb.Conn(), rdb.Conn()
				idA, _ := clientID(t, a), clientID(t, b)
				a.Close()
				b.Close()
				if got := clientID(t, rdb); got != idA {
					t.Errorf("next connection is client %d, want the first returned (%d) with PoolFIFO", got, idA)
				}
			}},
		{"ContextTimeoutEnabled", redis.FailoverOptions{ContextTimeoutEnabled: true},
			func(t *testing.T, rdb *redis.Client, _ bool) {
				if err := rdb.Ping(ctx).Err(); err != nil {
					t.Fatalf("PING: %v", err)
				}
				// BLPOP for 2 s under a 200 ms context: go-redis
				// honours the context's deadline only with
				// ContextTimeoutEnabled (else it waits for BLPOP).
				cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
				defer cancel()
				start := time.Now()
				err := rdb.BLPop(cctx, 2*time.Second, "pp-empty").Err()
				if took := time.Since(start); err == nil || errors.Is(err, redis.Nil) || took > time.Second {
					t.Errorf("BLPOP 2 s under a 200 ms context: %v after %v, want a timeout error near 200 ms", err, took)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, ours := range []bool{false, true} {
				o := tc.opt
				o.MasterName = c.Name
				o.SentinelAddrs = sentinels
				var rdb *redis.Client
				if ours {
					rdb = NewFailoverClient(FromGoRedis(&o))
				} else {
					rdb = redis.NewFailoverClient(&o)
				}
				who := map[bool]string{false: "go-redis", true: "ours"}[ours]
				t.Run(who, func(t *testing.T) { tc.check(t, rdb, ours) })
				rdb.Close()
			}
		})
	}
}
