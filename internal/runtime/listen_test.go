package runtime

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gosentinel/gosentinel/internal/config"
	"github.com/gosentinel/gosentinel/internal/testutil"
)

// runConf writes body (a complete sentinel.conf) to a temp file, starts a
// Runtime on it (Start binds synchronously, so no readiness polling) and
// stops it in t.Cleanup. It returns the runtime and the file's path.
func runConf(t *testing.T, body string) (*Runtime, string) {
	t.Helper()
	return runConfOpts(t, body, Options{})
}

// runConfOpts is runConf with options (ConfigPath and Config are set).
func runConfOpts(t testing.TB, body string, opts Options) (*Runtime, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sentinel.conf")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	opts.ConfigPath, opts.Config = path, cfg
	r, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(); err != nil {
		r.links.Shutdown()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return r, path
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestRenameCommand: top-level rename-command applies to the sentinel's
// own commands ("" disables one).
func TestRenameCommand(t *testing.T) {
	port := testutil.FreePort(t)
	r, _ := runConf(t, fmt.Sprintf("port %d\nbind 127.0.0.1\nsentinel monitor mym 127.0.0.1 6379 1\nrename-command SENTINEL MYSENT\nrename-command acl \"\"\n", port))
	c := client(t, r.Addrs()[0].String())
	ctx := context.Background()
	tests := []struct {
		args []any
		want string
	}{
		{[]any{"MYSENT", "GET-MASTER-ADDR-BY-NAME", "mym"}, "[127.0.0.1 6379]"},
		{[]any{"mysent", "get-master-addr-by-name", "mym"}, "[127.0.0.1 6379]"},
		{[]any{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym"}, "ERR unknown command 'SENTINEL', with args beginning with: 'GET-MASTER-ADDR-BY-NAME' 'mym' "},
		{[]any{"ACL", "WHOAMI"}, "ERR unknown command 'ACL', with args beginning with: 'WHOAMI' "},
		{[]any{"PING"}, "PONG"},
	}
	for _, tc := range tests {
		v, err := c.Do(ctx, tc.args...).Result()
		got := fmt.Sprint(v)
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestUsersAndRewrite: user lines reach the server split (a password with
// a space), and a rewrite writes the live users (ACL SETUSER / DELUSER)
// the way ACL LIST shows them, like real Sentinel (F4).
func TestUsersAndRewrite(t *testing.T) {
	port := testutil.FreePort(t)
	r, path := runConf(t, fmt.Sprintf("port %d\nbind 127.0.0.1\nuser admin on \">pass word\" ~* &* +@all\nuser old on nopass +ping\nuser default off\n", port))
	addr := r.Addrs()[0].String()
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: addr, Username: "admin", Password: "pass word", MaxRetries: -1, Protocol: 2, PoolSize: 1})
	t.Cleanup(func() { c.Close() })
	for _, cmd := range [][]any{
		{"ACL", "SETUSER", "ops", "on", ">pw", "~*", "&*", "+@all"},
		{"ACL", "DELUSER", "old"},
		{"SENTINEL", "FLUSHCONFIG"},
	} {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "user ") {
			users = append(users, l)
		}
	}
	want := []string{
		"user admin on #" + sha("pass word") + " ~* &* +@all",
		"user default off sanitize-payload resetchannels -@all", // what redis-sentinel 7.0.15 writes for "user default off"
		"user ops on #" + sha("pw") + " ~* &* +@all",
	}
	if strings.Join(users, "\n") != strings.Join(want, "\n") {
		t.Fatalf("user lines after FLUSHCONFIG:\n%s\nwant:\n%s", strings.Join(users, "\n"), strings.Join(want, "\n"))
	}
	// The rewritten file loads back to the same users.
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatalf("rewritten file does not load: %v", err)
	}
	if len(cfg.Server.Users) != 3 {
		t.Fatalf("reloaded users: %+v", cfg.Server.Users)
	}
}

// TestACLFileRuntime: with aclfile the users come from the file, ACL SAVE
// writes it, and the config rewrite keeps the aclfile line and writes no
// user lines (like Redis).
func TestACLFileRuntime(t *testing.T) {
	dir := t.TempDir()
	acl := filepath.Join(dir, "users.acl")
	if err := os.WriteFile(acl, []byte("user default on nopass ~* &* +@all\nuser bob on >pw +ping\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	port := testutil.FreePort(t)
	r, path := runConf(t, fmt.Sprintf("port %d\nbind 127.0.0.1\naclfile %s\n", port, acl))
	addr := r.Addrs()[0].String()
	ctx := context.Background()
	bob := redis.NewClient(&redis.Options{Addr: addr, Username: "bob", Password: "pw", MaxRetries: -1, Protocol: 2, PoolSize: 1})
	t.Cleanup(func() { bob.Close() })
	if err := bob.Ping(ctx).Err(); err != nil {
		t.Fatalf("bob from the aclfile: %v", err)
	}
	c := client(t, addr)
	for _, cmd := range [][]any{{"ACL", "SETUSER", "ann", "on", ">a", "+ping"}, {"ACL", "SAVE"}, {"SENTINEL", "FLUSHCONFIG"}} {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	saved, err := os.ReadFile(acl)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(saved), "user ann on #"+sha("a")+" resetchannels -@all +ping\n") {
		t.Fatalf("ACL SAVE wrote:\n%s", saved)
	}
	conf, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(conf), "aclfile ") || strings.Contains(string(conf), "\nuser ") {
		t.Fatalf("rewritten config with aclfile:\n%s", conf)
	}
}

// TestACLFileStartupErrors: a bad aclfile, or users plus an aclfile, stop
// the start with the line Redis logs.
func TestACLFileStartupErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.acl")
	if err := os.WriteFile(bad, []byte("user a on\nbad\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, body, msg string
	}{
		{"bad line", "aclfile " + bad + "\n", "Aborting Redis startup because of ACL errors: " + bad + ":2 should start with user keyword followed by the username. WARNING: ACL errors detected, no change to the previously active ACL rules was performed"},
		{"both", "aclfile " + bad + "\nuser x on\n", "Configuring Redis with users defined in redis.conf and at the same setting an ACL file path is invalid. This setup is very likely to lead to configuration errors and security holes, please define either an ACL file or declare users directly in your redis.conf, but not both."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sentinel.conf")
			if err := os.WriteFile(path, []byte("port 0\n"+tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = New(Options{ConfigPath: path, Config: cfg})
			var se *StartupError
			if !errors.As(err, &se) || se.Msg != tc.msg {
				t.Fatalf("New: %v\nwant StartupError %q", err, tc.msg)
			}
		})
	}
}

// TestNoListener: port 0 without tls-port is fatal, like Redis (F3).
func TestNoListener(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sentinel.conf")
	if err := os.WriteFile(path, []byte("port 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{ConfigPath: path, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.links.Shutdown)
	if err := r.Start(); !errors.Is(err, ErrNoListener) {
		t.Fatalf("Start: %v, want ErrNoListener", err)
	}
	if err := r.Run(context.Background()); !errors.Is(err, ErrNoListener) {
		t.Fatalf("Run: %v, want ErrNoListener", err)
	}
}

// TestTLSPort: "port 0" + tls-port serves TLS only; tls-auth-clients
// decides whether a client certificate is required.
func TestTLSPort(t *testing.T) {
	files := testutil.GenerateTLS(t)
	pem, err := os.ReadFile(files.CA)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	cert, err := tls.LoadX509KeyPair(files.Cert, files.Key)
	if err != nil {
		t.Fatal(err)
	}
	withCert := &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	noCert := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	tests := []struct {
		auth, ca     string
		certOK, anon bool
	}{
		{"yes", files.CA, true, false},
		{"optional", files.CA, true, true},
		{"no", "", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.auth, func(t *testing.T) {
			port := testutil.FreePort(t)
			body := fmt.Sprintf("port 0\ntls-port %d\nbind 127.0.0.1\ntls-cert-file %s\ntls-key-file %s\ntls-auth-clients %s\nsentinel monitor mym 127.0.0.1 6379 1\n", port, files.Cert, files.Key, tc.auth)
			if tc.ca != "" {
				body += "tls-ca-cert-file " + tc.ca + "\n"
			}
			r, _ := runConf(t, body)
			if addrs := r.Addrs(); len(addrs) != 1 || !strings.HasSuffix(addrs[0].String(), fmt.Sprintf(":%d", port)) {
				t.Fatalf("listening on %v, want only the TLS port %d", addrs, port)
			}
			addr := r.Addrs()[0].String()
			for _, cc := range []struct {
				name string
				cfg  *tls.Config
				ok   bool
			}{{"with cert", withCert, tc.certOK}, {"without cert", noCert, tc.anon}} {
				c := redis.NewClient(&redis.Options{Addr: addr, TLSConfig: cc.cfg, MaxRetries: -1, Protocol: 2, PoolSize: 1, DialTimeout: 2 * time.Second})
				v, err := c.Do(context.Background(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym").Result()
				_ = c.Close()
				if cc.ok && (err != nil || fmt.Sprint(v) != "[127.0.0.1 6379]") {
					t.Errorf("%s: %v, %v", cc.name, v, err)
				}
				if !cc.ok && err == nil {
					t.Errorf("%s: accepted without a client certificate", cc.name)
				}
			}
		})
	}
}

func TestServerTLSConfigErrors(t *testing.T) {
	files := testutil.GenerateTLS(t)
	tests := []struct {
		name string
		s    config.Server
		want string
	}{
		{"no cert", config.Server{TLSPort: 1}, "tls-port needs tls-cert-file and tls-key-file"},
		{"bad cert", config.Server{TLSCertFile: files.CA + ".none", TLSKeyFile: files.Key}, "load tls-cert-file"},
		{"no CA", config.Server{TLSCertFile: files.Cert, TLSKeyFile: files.Key, TLSAuthClients: "yes"}, "Either tls-ca-cert-file or tls-ca-cert-dir must be specified"},
		{"CA not PEM", config.Server{TLSCertFile: files.Cert, TLSKeyFile: files.Key, TLSCACertFile: "/dev/null"}, "no certificate found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := serverTLSConfig(tc.s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestRewriteStockDefaultUser: a default user never declared nor changed
// is written as Redis writes it (no sanitize-payload), with and without
// requirepass.
func TestRewriteStockDefaultUser(t *testing.T) {
	tests := []struct {
		extra, auth, want string
	}{
		{"", "", "user default on nopass ~* &* +@all"},
		{"requirepass sec\n", "sec", "user default on #" + sha("sec") + " ~* &* +@all"},
	}
	for _, tc := range tests {
		port := testutil.FreePort(t)
		r, path := runConf(t, fmt.Sprintf("port %d\nbind 127.0.0.1\n%s", port, tc.extra))
		c := redis.NewClient(&redis.Options{Addr: r.Addrs()[0].String(), Password: tc.auth, MaxRetries: -1, Protocol: 2, PoolSize: 1})
		err := c.Do(context.Background(), "SENTINEL", "FLUSHCONFIG").Err()
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var users []string
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "user ") {
				users = append(users, l)
			}
		}
		if len(users) != 1 || users[0] != tc.want {
			t.Errorf("%q: user lines %q, want [%q]", tc.extra, users, tc.want)
		}
	}
}
