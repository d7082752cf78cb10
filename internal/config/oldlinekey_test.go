package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOldLineKeyMatchesSplitArgs: the fast path of oldLineKey gives the
// key (and the known/unknown verdict) that tokenizing the whole line
// gives, for plain lines, every kind of white space, quoted and escaped
// lines, and every line of the test configs.
func TestOldLineKeyMatchesSplitArgs(t *testing.T) {
	lines := []string{
		"port 26379", "PORT 26379", "sentinel monitor g1 10.0.0.1 7000 2",
		"Sentinel Known-Replica g1 10.0.0.2 7000", "sentinel\tknown-sentinel\vg1\f10.0.1.2 26379 abc",
		"sentinel", "  sentinel   myid   0123  ", "nosuchdirective 1", "sentinel \"monitor\" g1 1.2.3.4 1 2",
		"sentinel monitor \"g 1\" 1.2.3.4 1 2", "sentinel monitor 'g1 1.2.3.4 1 2", "logfile \"\"",
		"sentinel auth-pass g1 pa\\ss", "dir /tmp\x00junk", "user default on nopass ~* &* +@all",
		"rename-command CONFIG \"\"", "gosentinel.voter-floor g1 3 1000", "include /x.conf", "\r",
	}
	files, _ := filepath.Glob("testdata/*.conf")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	lines = append(lines, strings.Split(massConf(3), "\n")...)
	for _, raw := range lines {
		line := strings.Trim(raw, "\r\n\t ")
		if line == "" || line[0] == '#' {
			continue
		}
		wantKey, wantOK := "", false
		if args, err := SplitArgs(line); err == nil && len(args) > 0 {
			wantKey, wantOK = rewriteKeyOf(args)
		}
		key, ok := oldLineKey(line)
		if key != wantKey || ok != wantOK {
			t.Errorf("%q: key %q %v, want %q %v", line, key, ok, wantKey, wantOK)
		}
	}
}

// TestReadOldStateAllocs bounds the allocations of reading back a config
// of 200 masters (2 000 lines) before a rewrite: tokenizing every line
// cost ~10 allocations a line (docs/core.md "Config rewrite of many masters").
func TestReadOldStateAllocs(t *testing.T) {
	old := massConf(200)
	n := strings.Count(old, "\n")
	allocs := testing.AllocsPerRun(5, func() { readOldState(old) })
	if allocs > float64(2*n) {
		t.Errorf("readOldState of %d lines: %.0f allocations, want at most %d", n, allocs, 2*n)
	}
}

// massConf is a sentinel.conf of n masters, each with two known replicas,
// two known sentinels and its epochs (the fault lab's B9L has 200).
func massConf(n int) string {
	var b strings.Builder
	b.WriteString("port 26379\ndaemonize no\nsentinel myid 0123456789012345678901234567890123456789\nsentinel current-epoch 5\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "sentinel monitor g%d 10.0.0.1 %d 2\nsentinel down-after-milliseconds g%d 2000\nsentinel failover-timeout g%d 10000\n", i, 7000+i, i, i)
		fmt.Fprintf(&b, "sentinel known-replica g%d 10.0.0.2 %d\nsentinel known-replica g%d 10.0.0.3 %d\n", i, 7000+i, i, 7000+i)
		fmt.Fprintf(&b, "sentinel known-sentinel g%d 10.0.1.2 26379 1123456789012345678901234567890123456789\n", i)
		fmt.Fprintf(&b, "sentinel known-sentinel g%d 10.0.1.3 26379 2123456789012345678901234567890123456789\n", i)
		fmt.Fprintf(&b, "sentinel config-epoch g%d 3\nsentinel leader-epoch g%d 4\n", i, i)
	}
	return b.String()
}

// BenchmarkRewriteContent200 is the CPU of one config rewrite of 200
// masters (docs/core.md "Config rewrite of many masters").
func BenchmarkRewriteContent200(b *testing.B) {
	text := massConf(200)
	c, err := Parse(strings.NewReader(text), "bench.conf")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		RewriteContent([]byte(text), c)
	}
}
