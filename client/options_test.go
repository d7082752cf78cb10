package client

import (
	"context"
	"log/slog"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/gosentinel/gosentinel/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// TestFailoverOptionsCoverGoRedis: every field of go-redis's
// FailoverOptions exists here with the same name and an assignable type,
// so a program written for go-redis's FailoverOptions compiles with only
// the import and the constructor changed (TestGoRedisProgramCompiles
// shows one).
func TestFailoverOptionsCoverGoRedis(t *testing.T) {
	theirs := reflect.TypeOf(redis.FailoverOptions{})
	ours := reflect.TypeOf(FailoverOptions{})
	for i := 0; i < theirs.NumField(); i++ {
		f := theirs.Field(i)
		if !f.IsExported() {
			continue
		}
		o, ok := ours.FieldByName(f.Name)
		switch {
		case !ok:
			t.Errorf("FailoverOptions has no field %s (%v)", f.Name, f.Type)
		case !f.Type.AssignableTo(o.Type) || !o.Type.AssignableTo(f.Type):
			t.Errorf("field %s: ours %v, go-redis %v", f.Name, o.Type, f.Type)
		}
	}
}

// goRedisStyleOptions is written as for go-redis's FailoverOptions (only
// the package name differs): it must compile against ours.
func goRedisStyleOptions(addrs []string, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *FailoverOptions {
	return &FailoverOptions{
		MasterName:            "mymaster",
		SentinelAddrs:         addrs,
		SentinelPassword:      "",
		Password:              "",
		DB:                    0,
		ClientName:            "app-1",
		Dialer:                dial,
		OnConnect:             func(ctx context.Context, cn *redis.Conn) error { return nil },
		CredentialsProvider:   func() (string, string) { return "", "" },
		MaxRetries:            2,
		MinRetryBackoff:       -1,
		DialerRetries:         2,
		PoolFIFO:              true,
		MaxActiveConns:        20,
		ContextTimeoutEnabled: true,
		DisableIdentity:       true,
		ReadBufferSize:        64 << 10,
	}
}

// TestGoRedisOptionsReachSentinels: as in go-redis, Dialer and ClientName
// apply to the sentinel connections too (before, the sentinels were
// dialled with a plain net.Dialer and got no name); the program written
// for go-redis's FailoverOptions works unchanged.
func TestGoRedisOptionsReachSentinels(t *testing.T) {
	t.Parallel()
	c := testutil.StartSentinelCluster(t, "mymaster", 0, 1, 1, 5000, 10000)
	var mu sync.Mutex
	dialled := map[string]int{}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dialled[addr]++
		mu.Unlock()
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	rdb := NewFailoverClient(goRedisStyleOptions(c.SentinelAddrs(), dial))
	t.Cleanup(func() { rdb.Close() })
	ctx := context.Background()
	if err := rdb.Set(ctx, "opt", 1, 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	mu.Lock()
	s, m := dialled[c.Sentinels[0].Addr()], dialled[c.Top.Master.Addr()]
	mu.Unlock()
	if s == 0 || m == 0 {
		t.Fatalf("Dialer used for the sentinel %d times and the master %d times, want both", s, m)
	}
	sc := redis.NewClient(&redis.Options{Addr: c.Sentinels[0].Addr(), MaxRetries: -1, Protocol: 2})
	defer sc.Close()
	list, err := sc.Do(ctx, "CLIENT", "LIST").Text()
	if err != nil {
		t.Fatalf("CLIENT LIST: %v", err)
	}
	if !strings.Contains(list, "name=app-1 ") {
		t.Fatalf("no sentinel connection named app-1:\n%s", list)
	}
}

// TestParseFailoverURL: go-redis's URL form, and construction from
// redis.UniversalOptions, give the same options as go-redis.
func TestParseFailoverURL(t *testing.T) {
	const u = "redis://user:pw@10.0.0.1:26379/3?master_name=mymaster&addr=10.0.0.2:26379&dial_timeout=3&read_timeout=6s&sentinel_password=x"
	_, err := ParseFailoverURL(u)
	if err == nil {
		t.Fatal("sentinel_password as a query parameter: want an error, as go-redis")
	}
	o, err := ParseFailoverURL("redis://user:pw@10.0.0.1:26379/3?master_name=mymaster&addr=10.0.0.2:26379&dial_timeout=3&read_timeout=6s&max_retries=-1")
	if err != nil {
		t.Fatalf("ParseFailoverURL: %v", err)
	}
	want, _ := redis.ParseFailoverURL("redis://user:pw@10.0.0.1:26379/3?master_name=mymaster&addr=10.0.0.2:26379&dial_timeout=3&read_timeout=6s&max_retries=-1")
	if o.MasterName != "mymaster" || strings.Join(o.SentinelAddrs, ",") != strings.Join(want.SentinelAddrs, ",") ||
		o.SentinelUsername != want.SentinelUsername || o.SentinelPassword != want.SentinelPassword ||
		o.SentinelPassword != "pw" || o.DB != 3 || o.DialTimeout != want.DialTimeout ||
		o.ReadTimeout != want.ReadTimeout || o.MaxRetries != want.MaxRetries {
		t.Fatalf("ParseFailoverURL = %+v, go-redis %+v", o, want)
	}
	if _, err := ParseFailoverURL("http://x"); err == nil {
		t.Fatal("bad scheme accepted")
	}
	uo := FromUniversalOptions(&redis.UniversalOptions{MasterName: "m", Addrs: []string{"a:1", "b:1"}, Password: "p", ClientName: "n"})
	if uo.MasterName != "m" || len(uo.SentinelAddrs) != 2 || uo.Password != "p" || uo.ClientName != "n" {
		t.Fatalf("FromUniversalOptions = %+v", uo)
	}
}

// recordHandler is a slog.Handler that keeps the messages it gets.
type recordHandler struct {
	mu   *sync.Mutex
	msgs *[]string
}

func (h recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.msgs = append(*h.msgs, r.Level.String()+" "+r.Message)
	return nil
}
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h recordHandler) WithGroup(string) slog.Handler      { return h }

// TestLogger: the client's own events reach FailoverOptions.Logger: the
// first verified master (Info), and a failed resolution (Warn).
func TestLogger(t *testing.T) {
	t.Parallel()
	m := testutil.StartRedis(t)
	fs := startFakeSentinel(t, m.Addr(), 1)
	var mu sync.Mutex
	var msgs []string
	logger := slog.New(recordHandler{&mu, &msgs})
	ctx := context.Background()
	rdb := newTestClient(t, FailoverOptions{SentinelAddrs: []string{fs.addr()}, Logger: logger})
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("SET: %v", err)
	}
	bad := newTestClient(t, FailoverOptions{SentinelAddrs: []string{closedAddr(t)}, Logger: logger})
	_ = bad.Ping(ctx).Err()
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, "INFO gosentinel client: master verified") || !strings.Contains(all, "WARN gosentinel client: sentinel resolution failed") {
		t.Fatalf("log records:\n%s", all)
	}
}
