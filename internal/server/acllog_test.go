package server

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// logEntries reads ACL LOG [args] as a list of field maps.
func logEntries(t *testing.T, c *testConn, args ...string) []map[string]resp.Value {
	t.Helper()
	v := c.do(append([]string{"ACL", "LOG"}, args...)...)
	if v.Kind != resp.KindArray {
		t.Fatalf("ACL LOG = %v", v)
	}
	out := make([]map[string]resp.Value, len(v.Elems))
	for i, e := range v.Elems {
		m := map[string]resp.Value{}
		for j := 0; j+1 < len(e.Elems); j += 2 {
			m[e.Elems[j].Str] = e.Elems[j+1]
		}
		out[i] = m
	}
	return out
}

// TestACLLogEntries: denied commands, denied channels and auth failures
// make entries, newest first, with the fields of Redis 7.0 and 7.2.
func TestACLLogEntries(t *testing.T) {
	clock := &fakeClock{t: time.UnixMilli(1_700_000_000_000)}
	cfg := Config{Users: []string{"lim on >p -@all +ping +subscribe &ok*", "sel on nopass -@all (+publish &ev)"}}
	cfg.now = clock.now
	_, addr, _ := startServer(t, cfg)
	admin := dial(t, addr)
	c := dial(t, addr)
	c.send("AUTH lim wrong\r\nAUTH lim p\r\nSENTINEL MASTERS\r\nSUBSCRIBE ok1 bad\r\n")
	c.expect("-WRONGPASS invalid username-password pair or user is disabled.\r\n+OK\r\n" +
		"-NOPERM this user has no permissions to run the 'sentinel|masters' command\r\n" +
		"-NOPERM this user has no permissions to access one of the channels used as arguments\r\n")
	clock.advance(1500 * time.Millisecond)
	d := dial(t, addr)
	d.send("AUTH sel x\r\nPUBLISH nope m\r\n")
	d.expect("+OK\r\n-NOPERM this user has no permissions to access one of the channels used as arguments\r\n")

	es := logEntries(t, admin)
	type want struct{ reason, object, user string }
	wants := []want{{"channel", "nope", "sel"}, {"channel", "bad", "lim"}, {"command", "sentinel|masters", "lim"}, {"auth", "AUTH", "lim"}}
	if len(es) != len(wants) {
		t.Fatalf("%d entries, want %d: %v", len(es), len(wants), es)
	}
	for i, w := range wants {
		e := es[i]
		if e["reason"].Str != w.reason || e["object"].Str != w.object || e["username"].Str != w.user ||
			e["context"].Str != "toplevel" || e["count"].Int != 1 {
			t.Errorf("entry %d = %v, want %+v", i, e, w)
		}
		if got := e["entry-id"].Int; got != int64(len(wants)-1-i) {
			t.Errorf("entry %d: entry-id %d", i, got)
		}
	}
	if age, _ := strconv.ParseFloat(es[3]["age-seconds"].Str, 64); age != 1.5 {
		t.Errorf("age-seconds of the first entry = %v, want 1.5", age)
	}
	if got := es[3]["timestamp-created"].Int; got != 1_700_000_000_000 {
		t.Errorf("timestamp-created = %d", got)
	}
	if ci := es[2]["client-info"].Str; !strings.Contains(ci, " cmd=sentinel|masters user=lim ") {
		t.Errorf("client-info %q lacks the denied command and user", ci)
	}
	if n := len(logEntries(t, admin, "2")); n != 2 {
		t.Errorf("ACL LOG 2 gave %d entries", n)
	}
	if n := len(logEntries(t, admin, "-5")); n != 0 {
		t.Errorf("ACL LOG -5 gave %d entries", n)
	}
	admin.send("ACL LOG x\r\nACL LOG 1 2\r\nACL LOG RESET\r\n")
	admin.expect("-ERR value is not an integer or out of range\r\n" +
		"-ERR unknown subcommand or wrong number of arguments for 'LOG'. Try ACL HELP.\r\n+OK\r\n")
	if n := len(logEntries(t, admin)); n != 0 {
		t.Errorf("%d entries after RESET", n)
	}
}

// TestACLLogGrouping: the same denial within 60 s bumps the entry's count
// and moves it to the front; later, or for another object, it is a new
// entry. The log keeps acllog-max-len entries.
func TestACLLogGrouping(t *testing.T) {
	clock := &fakeClock{t: time.UnixMilli(1_700_000_000_000)}
	cfg := Config{Users: []string{"lim on nopass -@all"}, ACLLogMaxLen: 3}
	cfg.now = clock.now
	_, addr, _ := startServer(t, cfg)
	admin := dial(t, addr)
	c := dial(t, addr)
	c.send("AUTH lim x\r\n")
	c.expect("+OK\r\n")
	deny := func(cmd string) {
		t.Helper()
		c.send(cmd + "\r\n")
		c.expect("-NOPERM this user has no permissions to run the '" + strings.ToLower(strings.ReplaceAll(cmd, " ", "|")) + "' command\r\n")
	}
	deny("PING")
	clock.advance(10 * time.Second)
	deny("ROLE")
	clock.advance(50 * time.Second) // PING's entry is exactly 60 s old: grouped
	deny("PING")
	es := logEntries(t, admin)
	if len(es) != 2 || es[0]["object"].Str != "ping" || es[0]["count"].Int != 2 || es[1]["object"].Str != "role" {
		t.Fatalf("after a repeat within 60 s: %v", es)
	}
	if es[0]["timestamp-last-updated"].Int-es[0]["timestamp-created"].Int != 60_000 || es[0]["entry-id"].Int != 0 {
		t.Errorf("grouped entry timestamps/id: %v", es[0])
	}
	clock.advance(60*time.Second + time.Millisecond)
	deny("PING") // 60.001 s after the last update: a new entry
	deny("INFO")
	deny("SENTINEL MYID")
	es = logEntries(t, admin)
	var objs []string
	for _, e := range es {
		objs = append(objs, e["object"].Str+":"+strconv.FormatInt(e["count"].Int, 10))
	}
	if got := strings.Join(objs, " "); got != "sentinel|myid:1 info:1 ping:1" {
		t.Errorf("entries (max 3) = %s", got)
	}
}
