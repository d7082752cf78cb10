package server

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// freePort asks the kernel for a free port (redis-sentinel refuses port 0).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	return port
}

// startRealSentinel runs redis-sentinel with extra config lines and returns
// its address; the process is killed by PID in t.Cleanup.
func startRealSentinel(t *testing.T, extra ...string) string {
	t.Helper()
	bin, err := exec.LookPath("redis-sentinel")
	if err != nil {
		t.Skip("redis-sentinel not installed")
	}
	return startSentinelBin(t, bin, extra...)
}

// startSentinelBin is startRealSentinel with another binary.
func startSentinelBin(t *testing.T, bin string, extra ...string) string {
	t.Helper()
	dir := t.TempDir()
	port := freePort(t)
	conf := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nsentinel monitor mym 127.0.0.1 1 2\n%s\n", port, dir, strings.Join(extra, "\n"))
	path := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, path)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = conn.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-sentinel did not start on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond) // no readiness event: poll with a deadline
	}
}

// exchange sends raw on a fresh connection and reads n replies, rendered
// back in proto so that kinds and bytes are compared.
func exchange(t *testing.T, addr, raw string, n, proto int) []string {
	t.Helper()
	c := dial(t, addr)
	c.send(raw)
	out := make([]string, n)
	for i := range out {
		out[i] = encode(c.value(), proto)
	}
	return out
}

// startPair starts a real redis-sentinel (with the extra config lines) and
// our server (with cfg) and returns their addresses; skipped with -short.
func startPair(t *testing.T, cfg Config, extra ...string) (real, ours string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts redis-sentinel")
	}
	real = startRealSentinel(t, extra...)
	_, ours, _ = startServer(t, cfg)
	return real, ours
}

// compareExchange sends raw on a fresh connection to each side, reads n
// RESP2 replies and reports every reply of ours that differs from real's.
func compareExchange(t *testing.T, real, ours, raw string, n int) {
	t.Helper()
	want := exchange(t, real, raw, n, resp.RESP2)
	got := exchange(t, ours, raw, n, resp.RESP2)
	for j := range want {
		if got[j] != want[j] {
			t.Errorf("reply %d of %q:\n ours: %q\n real: %q", j, raw, got[j], want[j])
		}
	}
}

func TestCompareWithRealSentinel(t *testing.T) {
	real, ours := startPair(t, Config{})
	// Each case: raw commands sent on a fresh connection, number of replies.
	cases := []string{
		"PING\r\nPING a\r\nPING a b\r\nQUIT\r\nGET a b c d\r\nFOO\r\n",
		"SENTINEL\r\nSENTINEL foo\r\nSENTINEL MASTER\r\nSENTINEL MASTERS x\r\nROLE\r\nROLE x\r\nPUBLISH a b\r\n",
		"HELLO 4\r\nHELLO x\r\nHELLO 2 FOO\r\nHELLO 2 AUTH a b\r\nAUTH x\r\nAUTH a b\r\nAUTH a b c\r\n",
		"CLIENT\r\nCLIENT FOO\r\nCLIENT SETNAME \"a b\"\r\nCLIENT GETNAME\r\nCLIENT SETNAME ab\r\nCLIENT GETNAME\r\nCLIENT SETNAME\r\n",
		"CLIENT KILL 1.2.3.4:5\r\nCLIENT KILL ID 999999\r\nCLIENT KILL ID x\r\nCLIENT KILL FOO bar\r\nCLIENT KILL TYPE foo\r\nCLIENT KILL USER nobody\r\nCLIENT KILL SKIPME x\r\nCLIENT KILL ID\r\n",
		"CLIENT HELP\r\nCLIENT TRACKINGINFO\r\nCLIENT CACHING yes\r\nCLIENT GETREDIR\r\nCLIENT UNBLOCK 5\r\nCLIENT NO-EVICT on\r\nCLIENT PAUSE 1\r\nCLIENT UNPAUSE\r\nCLIENT LIST TYPE pubsub\r\nCLIENT LIST FOO\r\nCLIENT LIST TYPE foo\r\n",
		"COMMAND COUNT\r\nCOMMAND HELP\r\nCOMMAND FOO\r\nCOMMAND GETKEYS set a b\r\nCOMMAND GETKEYS ping x\r\nCOMMAND GETKEYS ping\r\nCOMMAND LIST FOO\r\nCOMMAND COUNT x\r\n",
		"COMMAND INFO ping sentinel|master foo client|kill\r\nCOMMAND DOCS ping sentinel|master foo client|kill\r\nCOMMAND LIST FILTERBY MODULE x\r\n",
		"ACL\r\nACL FOO\r\nACL HELP\r\nACL WHOAMI\r\nACL USERS\r\nACL LIST\r\nACL CAT\r\nACL GETUSER default\r\nACL GETUSER nobody\r\nACL DELUSER default\r\n",
		"ACL SAVE\r\nACL LOAD\r\nACL DRYRUN default ping\r\nACL DRYRUN nobody ping\r\nACL DRYRUN default nocmd\r\nACL GENPASS 0\r\nACL GENPASS x\r\nACL CAT nope\r\nACL SETUSER\r\n",
		"ACL SETUSER bob on >pw ~* &* +@all\r\nACL LIST\r\nACL GETUSER bob\r\nACL SETUSER bob badrule\r\nACL SETUSER bob <nope\r\nACL SETUSER bob #abc\r\nACL SETUSER bob +nocmd\r\nACL SETUSER bob ~* ~x\r\nACL DELUSER bob nobody\r\n",
		"ACL SETUSER alice\r\nACL SETUSER carol on nopass -@all +client|id &ch* ~k*\r\nACL LIST\r\nACL GETUSER carol\r\nACL DRYRUN carol info\r\nACL DRYRUN carol client id\r\nACL DELUSER alice carol\r\n",
		"INFO foo\r\nSHUTDOWN ABORT\r\nUNSUBSCRIBE\r\nPUNSUBSCRIBE\r\n",
		"SUBSCRIBE a b\r\nPING\r\nPING x\r\nINFO\r\nCLIENT ID\r\nPSUBSCRIBE x*\r\nUNSUBSCRIBE b\r\nUNSUBSCRIBE a\r\nPUNSUBSCRIBE\r\nPING\r\n",
		"*1\r\n:1\r\n",
		"*x\r\n",
		"PING \"a\r\n",
		"*1\r\n$-5\r\n",
	}
	for i, raw := range cases {
		n := strings.Count(raw, "\r\n")
		for _, p := range []string{"*1\r\n", "*x\r\n", "*1\r\n$-5\r\n"} {
			if raw == p || strings.HasPrefix(raw, "*1\r\n:") {
				n = 1
			}
		}
		if strings.HasPrefix(raw, "*x") || strings.HasPrefix(raw, "*1\r\n$-5") {
			n = 1
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { compareExchange(t, real, ours, raw, n) })
	}
	t.Run("resp3", func(t *testing.T) {
		raw := "HELLO 3\r\nCLIENT TRACKINGINFO\r\nACL GETUSER default\r\nUNSUBSCRIBE\r\nCLIENT GETNAME\r\nCOMMAND INFO ping\r\nCOMMAND DOCS ping\r\nINFO foo\r\nCLIENT LIST TYPE pubsub\r\nSUBSCRIBE a\r\nPING\r\nUNSUBSCRIBE a\r\n"
		n := strings.Count(raw, "\r\n")
		want := exchange(t, real, raw, n, resp.RESP3)
		got := exchange(t, ours, raw, n, resp.RESP3)
		for j := 1; j < n; j++ { // reply 0 (HELLO) holds the client id
			if got[j] != want[j] {
				t.Errorf("command %d:\n ours: %q\n real: %q", j, got[j], want[j])
			}
		}
	})
	t.Run("sets", func(t *testing.T) {
		// ours = 7.0.15's names plus the Redis 7.2 / Valkey 8 additions
		// (newerCommands) in the same category.
		primaries := newerCommands[1:]
		for _, tc := range []struct {
			raw   string
			added []string
		}{
			{"COMMAND LIST\r\n", newerCommands},
			{"COMMAND LIST FILTERBY ACLCAT admin\r\n", primaries},
			{"COMMAND LIST FILTERBY PATTERN s*\r\n", primaries},
			{"ACL CAT dangerous\r\n", primaries},
			{"ACL CAT connection\r\n", newerCommands[:1]},
		} {
			raw := tc.raw
			names := append(strings.Fields(sortedNames(t, real, raw)), tc.added...)
			sort.Strings(names)
			want := strings.Join(names, " ")
			got := sortedNames(t, ours, raw)
			if want != got {
				t.Errorf("%q:\n ours: %s\n real: %s", raw, got, want)
			}
		}
	})
}

func sortedNames(t *testing.T, addr, raw string) string {
	c := dial(t, addr)
	c.send(raw)
	names := bulkStrings(c.value())
	sort.Strings(names)
	return strings.Join(names, " ")
}

func TestCompareWithRealSentinelRequirepass(t *testing.T) {
	real, ours := startPair(t, Config{Requirepass: "secret"}, "requirepass secret")
	cases := []string{
		"PING\r\nFOO\r\nROLE x\r\nSENTINEL masters\r\nHELLO 3\r\nAUTH nope\r\nAUTH default nope\r\nCLIENT ID\r\n",
		"AUTH secret\r\nPING\r\nACL WHOAMI\r\nACL GETUSER default\r\n",
		"*11\r\n",
		"*1\r\n$16385\r\n",
	}
	for i, raw := range cases {
		n := strings.Count(raw, "\r\n")
		if strings.HasPrefix(raw, "*") {
			n = 1
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { compareExchange(t, real, ours, raw, n) })
	}
}

// fieldNames returns the "key" parts of "key:value" INFO lines or
// "key=value" CLIENT INFO fields, in order.
func fieldNames(s, sep string) []string {
	var out []string
	split := "\r\n"
	if sep == "=" {
		split = " "
	}
	for _, f := range strings.Split(strings.TrimSpace(s), split) {
		if i := strings.Index(f, sep); i > 0 && !strings.HasPrefix(f, "#") {
			out = append(out, f[:i])
		} else if strings.HasPrefix(f, "#") {
			out = append(out, f)
		}
	}
	return out
}

func TestCompareFieldLayoutWithRealSentinel(t *testing.T) {
	real, ours := startPair(t, Config{})
	for _, tc := range []struct {
		cmd []string
		sep string
	}{
		{[]string{"CLIENT", "INFO"}, "="},
		{[]string{"INFO", "server"}, ":"},
		{[]string{"INFO", "clients"}, ":"},
		{[]string{"INFO", "stats"}, ":"},
		{[]string{"INFO", "cpu"}, ":"},
	} {
		r := dial(t, real).do(tc.cmd...).Str
		o := dial(t, ours).do(tc.cmd...).Str
		rf, of := fieldNames(r, tc.sep), fieldNames(o, tc.sep)
		if tc.sep == "=" { // fields Redis 7.2 / 7.4 and Valkey 8 added
			rf = insertAfter(insertAfter(rf, "multi", "watch"), "resp", "lib-name", "lib-ver")
		}
		if strings.Join(rf, " ") != strings.Join(of, " ") {
			t.Errorf("%v field names differ:\n ours: %v\n real: %v", tc.cmd, of, rf)
		}
	}
}

func TestCompareProtocolEdgesWithRealSentinel(t *testing.T) {
	real, ours := startPair(t, Config{})
	cases := []struct {
		raw string
		n   int
	}{
		{"PING \"a\\x41\\n\"\r\n", 1},
		{"PING 'it\\'s'\r\n", 1},
		{"PING \"a\"b\r\n", 1},
		{"PING 'a\r\n", 1},
		{"  PING   \t x  \r\n", 1},
		{"\r\n\n\nPING\r\n", 1},
		{"PING\n", 1},
		{"*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n", 2},
		{"*2\r\n$4\r\nPING\r\n:5\r\n", 1},
		{"*0\r\n*-1\r\nPING\r\n", 1},
		{"*1\r\n$x\r\n", 1},
		{"*1\r\n$-1\r\n", 1},
		{"*1\r\n$536870913\r\n", 1},
		{"*+1\r\n", 1},
		{"*2147483648\r\n", 1},
		{"*2\r\n$5\r\nhello\r\n$1\r\n1\r\n", 1},
		{"HELLO +3\r\nHELLO 03\r\nHELLO 3 SETNAME \"a b\"\r\n", 3},
		{"*3\r\n$5\r\nhello\r\n$1\r\n3\r\n$7\r\nsetname\r\n", 1},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) { compareExchange(t, real, ours, tc.raw, tc.n) })
	}
}

// insertAfter returns fs with add inserted after the field named after.
func insertAfter(fs []string, after string, add ...string) []string {
	for i, f := range fs {
		if f == after {
			out := append(append(append([]string(nil), fs[:i+1]...), add...), fs[i+1:]...)
			return out
		}
	}
	return fs
}
