package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/testutil"
)

// TestHostnames (reference §20): redis-servers announcing "localhost",
// a sentinel monitoring "localhost" with resolve-hostnames and
// announce-hostnames yes reports "localhost" for master and replicas; the
// link resolves the name at dial time.
func TestHostnames(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real processes")
	}
	top := testutil.StartTopology(t, 1, []string{"replica-announce-ip localhost"})
	dir := t.TempDir()
	port := testutil.FreePort(t)
	conf := filepath.Join(dir, "sentinel.conf")
	log := filepath.Join(dir, "sentinel.log")
	body := fmt.Sprintf("port %d\nbind 127.0.0.1\nlogfile %s\nsentinel resolve-hostnames yes\nsentinel announce-hostnames yes\n"+
		"sentinel monitor mym localhost %d 1\n", port, strconv.Quote(log), top.Master.Port)
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s := testutil.StartSentinelConf(t, bin, conf, port, log)
	c := redisClient(t, s.Addr())
	ctx := context.Background()
	addr, err := c.Do(ctx, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mym").StringSlice()
	if err != nil || len(addr) != 2 || addr[0] != "localhost" {
		t.Fatalf("GET-MASTER-ADDR-BY-NAME = %v, %v; want localhost", addr, err)
	}
	// The replica's "name" should be "localhost:<port>" too (real Sentinel
	// keys replicas by announced hostname); gosentinel's core names it by
	// IP today — reported to the core owner, not checked here. This test
	// checks what the runtime and link own: the hostname is kept, resolved
	// at dial time, and the links work.
	port2 := strconv.Itoa(top.Replicas[0].Port)
	var last any
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last SENTINEL REPLICAS: %v\nlog:\n%s", last, s.Log())
		}
	})
	testutil.WaitFor(t, 15*time.Second, "replica localhost:"+port2+" discovered, connected, master link ok", func() bool {
		v, err := c.Do(ctx, "SENTINEL", "REPLICAS", "mym").Slice()
		last = v
		if err != nil || len(v) != 1 {
			return false
		}
		fields, _ := v[0].([]any)
		f := fmt.Sprint(fields)
		return strings.Contains(f, "ip localhost port "+port2+" ") && strings.Contains(f, "flags slave ") &&
			strings.Contains(f, "master-link-status ok")
	})
	m, err := testutil.SentinelMaster(s.Addr(), "mym")
	if err != nil || m["ip"] != "localhost" || m["flags"] != "master" {
		t.Fatalf("SENTINEL MASTER ip=%q flags=%q err=%v", m["ip"], m["flags"], err)
	}
}
