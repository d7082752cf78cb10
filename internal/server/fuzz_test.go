package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/resp"
)

// FuzzExec runs arbitrary argument vectors (NUL-separated) through the
// command dispatcher of one connection and checks that nothing panics and
// that every command produces well-formed output.
func FuzzExec(f *testing.F) {
	for _, s := range []string{
		"PING", "HELLO\x003\x00AUTH\x00a\x00b", "CLIENT\x00KILL\x00ID\x001\x00SKIPME\x00no",
		"ACL\x00SETUSER\x00u\x00on\x00>p\x00~*\x00&x*\x00+@all\x00-@dangerous", "ACL\x00GETUSER\x00u",
		"SUBSCRIBE\x00a\x00b", "PSUBSCRIBE\x00[a-", "UNSUBSCRIBE", "COMMAND\x00LIST\x00FILTERBY\x00PATTERN\x00*|*",
		"COMMAND\x00GETKEYS\x00sentinel\x00master", "INFO\x00all", "CLIENT\x00LIST\x00ID\x00-1", "ACL\x00DRYRUN\x00default\x00acl\x00cat",
		"CLIENT\x00REPLY\x00SKIP", "ACL\x00GENPASS\x004096", "SENTINEL\x00master\x00mym",
	} {
		f.Add([]byte(s))
	}
	srv, err := New(Config{Bind: []string{"127.0.0.1"}}, newFakeBackend())
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = srv.Close() })
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		// Read the client's end: net.Pipe is synchronous, and a command
		// whose output the server writes out (over its pause threshold)
		// would otherwise block the fuzz worker for good ("context deadline
		// exceeded" at the end of a fuzz run).
		go func() { _, _ = io.Copy(io.Discard, b) }()
		c := newClient(srv, a)
		srv.mu.Lock()
		srv.clients[c.id] = c
		srv.mu.Unlock()
		defer func() {
			srv.ps.unsubscribeAll(c)
			srv.removeClient(c)
			c.cancel()
		}()
		for _, cmd := range bytes.Split(in, []byte("\n")) {
			args := bytes.Split(cmd, []byte{0})
			c.exec(args)
			// Every reply must parse as complete RESP values.
			rd := resp.NewReader(bytes.NewReader(c.pending))
			for {
				_, err := rd.ReadValue()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("command %q produced malformed output %q: %v", args, c.pending, err)
				}
			}
			c.pending = c.pending[:0]
		}
	})
}

// FuzzACLRules applies arbitrary ACL SETUSER rules (NUL-separated) and
// checks that nothing panics and, when they apply, that the user's ACL
// LIST description applied to a new user describes it the same way (what
// ACL SAVE / a config rewrite write is read back unchanged). Rules with
// spaces or quotes, and selectors with parentheses inside, are not
// round-tripped: Redis writes them unquoted too.
func FuzzACLRules(f *testing.F) {
	for _, s := range []string{
		"on\x00>p\x00~*\x00&x*\x00+@all\x00-@dangerous", "(~x +ping)\x00(&c +subscribe)\x00&d",
		"(~x\x00+ping)", "()\x00clearselectors", "reset\x00(+ping)", "%R~k*\x00(%W~j allchannels -@all +sentinel|masters)",
		"+@all\x00-acl|setuser\x00(", "nopass\x00#" + strings.Repeat("a", 64),
	} {
		f.Add([]byte(s))
	}
	tab, err := loadTable()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		parts := strings.Split(string(in), "\x00")
		a := newACL(tab)
		if _, err := a.setUser("u", parts); err != nil {
			return
		}
		desc := a.users["u"].describe()
		for _, p := range parts {
			if strings.ContainsAny(p, " \"'\t\r\n\\") {
				return
			}
		}
		// A ")" or "(" inside a selector ends or opens it early when the
		// description is read back; Redis' ACL LIST has the same limit
		// (docs/config.md). A selector may span several rules ("(&",
		// "&))"), so look at them merged as setUser merged them.
		merged, _ := mergeSelectorArgs(parts)
		for _, p := range merged {
			if inner, ok := strings.CutPrefix(p, "("); ok && strings.ContainsAny(strings.TrimSuffix(inner, ")"), "()") {
				return
			}
		}
		rules := strings.Split(strings.TrimPrefix(desc, "user u "), " ")
		b := newACL(tab)
		if bad, err := b.setUser("u", rules); err != nil {
			t.Fatalf("rules %q: description %q does not apply again: %q: %v", parts, desc, bad, err)
		}
		if got := b.users["u"].describe(); got != desc {
			t.Fatalf("rules %q: described %q, applied again %q", parts, desc, got)
		}
	})
}
