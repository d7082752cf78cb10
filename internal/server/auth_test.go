package server

import (
	"strings"
	"testing"
)

func TestRequirepass(t *testing.T) {
	_, addr, _ := startServer(t, Config{Requirepass: "secret"})
	tests := []struct {
		name, send, want string
	}{
		{"noauth ping", "PING\r\n", "-NOAUTH Authentication required.\r\n"},
		{"unknown before noauth", "FOO\r\n", "-ERR unknown command 'FOO', with args beginning with: \r\n"},
		{"arity before noauth", "ROLE x\r\n", "-ERR wrong number of arguments for 'role' command\r\n"},
		{"noauth sentinel", "SENTINEL masters\r\n", "-NOAUTH Authentication required.\r\n"},
		{"hello needs auth", "HELLO 3\r\n", "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time\r\n"},
		{"wrong password", "AUTH nope\r\n", "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
		{"auth then ping", "AUTH secret\r\nPING\r\n", "+OK\r\n+PONG\r\n"},
		{"auth default user", "AUTH default secret\r\nACL WHOAMI\r\n", "+OK\r\n$7\r\ndefault\r\n"},
		{"unauth multibulk cap", "*11\r\n", "-ERR Protocol error: unauthenticated multibulk length\r\n"},
		{"unauth bulk cap", "*1\r\n$16385\r\n", "-ERR Protocol error: unauthenticated bulk length\r\n"},
		{"auth lifts caps", "AUTH secret\r\n*1\r\n$16385\r\n" + strings.Repeat("a", 16385) + "\r\n",
			"+OK\r\n-ERR unknown command '" + strings.Repeat("a", 128) + "', with args beginning with: \r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, addr)
			c.send(tc.send)
			c.expect(tc.want)
		})
	}
	t.Run("protocol error closes", func(t *testing.T) {
		c := dial(t, addr)
		c.send("*11\r\n")
		c.expect("-ERR Protocol error: unauthenticated multibulk length\r\n")
		c.expectClosed()
	})
	t.Run("hello auth", func(t *testing.T) {
		c := dial(t, addr)
		c.cmd("HELLO", "3", "AUTH", "default", "secret", "SETNAME", "me")
		if v := c.value(); v.Len() != 6 {
			t.Fatalf("HELLO reply %v", v)
		}
		if v := c.do("CLIENT", "GETNAME"); v.Str != "me" {
			t.Fatalf("name %q", v.Str)
		}
	})
}

func TestACLDefaultOff(t *testing.T) {
	_, addr, _ := startServer(t, Config{})
	admin := dial(t, addr)
	admin.send("ACL SETUSER admin on >adminpw ~* &* +@all\r\nACL SETUSER default off\r\nPING\r\n")
	// The connection that disabled default stays authenticated.
	admin.expect("+OK\r\n+OK\r\n+PONG\r\n")

	c := dial(t, addr)
	c.send("PING\r\nAUTH default x\r\nAUTH admin adminpw\r\nPING\r\nACL WHOAMI\r\n")
	c.expect("-NOAUTH Authentication required.\r\n" +
		"-WRONGPASS invalid username-password pair or user is disabled.\r\n" +
		"+OK\r\n+PONG\r\n$5\r\nadmin\r\n")

	admin.send("ACL SETUSER default on\r\n")
	admin.expect("+OK\r\n")
	c2 := dial(t, addr)
	c2.send("PING\r\n")
	c2.expect("+PONG\r\n")
}

func TestACLPermissions(t *testing.T) {
	_, addr, _ := startServer(t, Config{Users: []string{"mon on >pw -@all +ping +sentinel|get-master-addr-by-name +client|id"}})
	c := dial(t, addr)
	c.send("AUTH mon pw\r\nPING\r\nSENTINEL get-master-addr-by-name mym\r\nSENTINEL masters\r\nCLIENT LIST\r\nINFO\r\nACL DRYRUN mon info\r\n")
	c.expect("+OK\r\n+PONG\r\n*2\r\n$9\r\n127.0.0.1\r\n$4\r\n6379\r\n" +
		"-NOPERM this user has no permissions to run the 'sentinel|masters' command\r\n" +
		"-NOPERM this user has no permissions to run the 'client|list' command\r\n" +
		"-NOPERM this user has no permissions to run the 'info' command\r\n" +
		"-NOPERM this user has no permissions to run the 'acl|dryrun' command\r\n")
	d := dial(t, addr)
	d.send("ACL DRYRUN mon info\r\nACL DRYRUN mon ping\r\nACL DRYRUN nobody ping\r\nACL DRYRUN mon nocmd\r\n")
	d.expect("$54\r\nThis user has no permissions to run the 'info' command\r\n+OK\r\n" +
		"-ERR User 'nobody' not found\r\n-ERR Command 'nocmd' not found\r\n")
}

func TestACLRules(t *testing.T) {
	tab, err := loadTable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rules   []string
		desc    string
		err     string
		canRun  []string
		cantRun []string
	}{
		{rules: nil, desc: "user u off resetchannels -@all", cantRun: []string{"ping"}},
		{rules: []string{"on", "nopass", "~*", "&*", "+@all"}, desc: "user u on nopass ~* &* +@all", canRun: []string{"ping", "sentinel|master", "acl|setuser"}},
		{rules: []string{"allcommands", "allkeys", "allchannels"}, desc: "user u off ~* &* +@all"},
		{rules: []string{"+@all", "-@dangerous"}, desc: "user u off resetchannels +@all -@dangerous", canRun: []string{"ping", "sentinel|help"}, cantRun: []string{"sentinel|master", "shutdown"}},
		{rules: []string{"-@all", "+sentinel"}, desc: "user u off resetchannels -@all +sentinel", canRun: []string{"sentinel|master", "sentinel|help"}, cantRun: []string{"ping"}},
		{rules: []string{"+ping", "-ping", "+ping"}, desc: "user u off resetchannels -@all +ping", canRun: []string{"ping"}},
		{rules: []string{"+nope"}, err: "Unknown command or category name in ACL"},
		{rules: []string{"+@nope"}, err: "Unknown command or category name in ACL"},
		{rules: []string{"~*", "~k"}, err: errACLKeyAfterAll.Error()},
		{rules: []string{"&*", "&k"}, err: errACLChanAfterAll.Error()},
		{rules: []string{"~*", "~*", "&*", "&*"}, desc: "user u off ~* &* -@all"},
		{rules: []string{"<nothere"}, err: errACLNoSuchPass.Error()},
		{rules: []string{"#abc"}, err: errACLBadHash.Error()},
		{rules: []string{"+@all", "(~x +ping)", "(&ev -@all +subscribe)"}, desc: "user u off resetchannels +@all (~x resetchannels -@all +ping) (resetchannels &ev -@all +subscribe)", canRun: []string{"ping", "sentinel|master"}},
		{rules: []string{"(~x", "+ping)"}, desc: "user u off resetchannels -@all (~x resetchannels -@all +ping)", canRun: []string{"ping"}, cantRun: []string{"sentinel|master"}},
		{rules: []string{"(+ping)", "()", "clearselectors"}, desc: "user u off resetchannels -@all", cantRun: []string{"ping"}},
		{rules: []string{"(+ping)", "reset"}, desc: "user u off sanitize-payload resetchannels -@all"},
		{rules: []string{"(on)"}, err: "Syntax error"},
		{rules: []string{"(+get)"}, err: "Unknown command or category name in ACL"},
		{rules: []string{"(~x", "+ping"}, err: "Unmatched parenthesis in acl selector starting at '(~x'."},
		{rules: []string{">a", "nopass"}, desc: "user u off nopass resetchannels -@all"},
		{rules: []string{">a", "reset"}, desc: "user u off sanitize-payload resetchannels -@all"}, // as redis-sentinel 7.0.15 shows it,
		{rules: []string{"%R~k*", "~j"}, desc: "user u off %R~k* ~j resetchannels -@all"},
		{rules: []string{"%X~k"}, err: "Syntax error"},
	}
	for _, tc := range tests {
		a := newACL(tab)
		bad, err := a.setUser("u", tc.rules)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%v: err = %v (rule %q), want %q", tc.rules, err, bad, tc.err)
			}
			if _, exists := a.users["u"]; exists {
				t.Errorf("%v: failed SETUSER created the user", tc.rules)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.rules, err)
			continue
		}
		if got := a.users["u"].describe(); got != tc.desc {
			t.Errorf("%v: describe = %q, want %q", tc.rules, got, tc.desc)
		}
		for _, name := range tc.canRun {
			if !a.canRun("u", tab.lookup(name)) {
				t.Errorf("%v: cannot run %s", tc.rules, name)
			}
		}
		for _, name := range tc.cantRun {
			if a.canRun("u", tab.lookup(name)) {
				t.Errorf("%v: can run %s", tc.rules, name)
			}
		}
	}
}

func TestACLUsersForRewrite(t *testing.T) {
	s, addr, _ := startServer(t, Config{Requirepass: "pw"})
	c := dial(t, addr)
	c.send("AUTH pw\r\nACL SETUSER mon on >x +ping\r\n")
	c.expect("+OK\r\n+OK\r\n")
	got := strings.Join(s.ACLUsers(), "\n")
	want := "user default on #" + hashPassword("pw") + " ~* &* +@all\n" +
		"user mon on #" + hashPassword("x") + " resetchannels -@all +ping"
	if got != want {
		t.Fatalf("ACLUsers:\n%s\nwant:\n%s", got, want)
	}
}

func TestUserRulesWithSpaces(t *testing.T) {
	_, addr, _ := startServer(t, Config{
		Users:     []string{`quoted on ">pass word" +@all`},
		UserRules: [][]string{{"split", "on", ">pass word", "+@all"}},
	})
	c := dial(t, addr)
	c.send("AUTH quoted \"pass word\"\r\nAUTH split \"pass word\"\r\n")
	c.expect("+OK\r\n+OK\r\n")
}
