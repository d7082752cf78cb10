package server

import (
	"strconv"
	"strings"
	"testing"
)

// TestExactReplies checks the exact bytes of replies, as captured from a
// real redis-sentinel 7.0.15 (see the comparison test for a live check).
func TestExactReplies(t *testing.T) {
	_, addr, _ := startServer(t, Config{})
	tests := []struct {
		name string
		send string
		want string
	}{
		{"ping", "PING\r\n", "+PONG\r\n"},
		{"ping arg", "*2\r\n$4\r\nPING\r\n$2\r\nhi\r\n", "$2\r\nhi\r\n"},
		{"ping arity", "PING a b\r\n", "-ERR wrong number of arguments for 'ping' command\r\n"},
		{"inline ping with blank lines", "PING\r\n\n\r\nPING\r\n", "+PONG\r\n+PONG\r\n"},
		{"quit is unknown", "QUIT\r\n", "-ERR unknown command 'QUIT', with args beginning with: \r\n"},
		{"unknown with args", "GET a b c d\r\n", "-ERR unknown command 'GET', with args beginning with: 'a' 'b' 'c' 'd' \r\n"},
		{"config unknown", "CONFIG GET x\r\n", "-ERR unknown command 'CONFIG', with args beginning with: 'GET' 'x' \r\n"},
		{"unknown args truncated", "FOO " + strings.Repeat("x", 200) + " y\r\n",
			"-ERR unknown command 'FOO', with args beginning with: '" + strings.Repeat("x", 128) + "' \r\n"},
		{"sentinel arity", "SENTINEL\r\n", "-ERR wrong number of arguments for 'sentinel' command\r\n"},
		{"sentinel unknown sub", "SENTINEL foo\r\n", "-ERR unknown subcommand 'foo'. Try SENTINEL HELP.\r\n"},
		{"sentinel sub arity", "SENTINEL MASTER\r\n", "-ERR wrong number of arguments for 'sentinel|master' command\r\n"},
		{"sentinel sub arity 2", "SENTINEL MASTERS x\r\n", "-ERR wrong number of arguments for 'sentinel|masters' command\r\n"},
		{"sentinel forwarded", "SENTINEL get-master-addr-by-name mym\r\n", "*2\r\n$9\r\n127.0.0.1\r\n$4\r\n6379\r\n"},
		{"sentinel forwarded null", "SENTINEL get-master-addr-by-name nope\r\n", "*-1\r\n"},
		{"role", "ROLE\r\n", "*2\r\n$8\r\nsentinel\r\n*1\r\n$3\r\nmym\r\n"},
		{"role arity", "ROLE x\r\n", "-ERR wrong number of arguments for 'role' command\r\n"},
		{"publish not hello", "PUBLISH a b\r\n", "-ERR Only HELLO messages are accepted by Sentinel instances.\r\n"},
		{"publish hello", "PUBLISH __sentinel__:hello x\r\n", ":1\r\n"},
		{"hello noproto", "HELLO 4\r\n", "-NOPROTO unsupported protocol version\r\n"},
		{"hello not int", "HELLO x\r\n", "-ERR Protocol version is not an integer or out of range\r\n"},
		{"hello bad option", "HELLO 2 FOO\r\n", "-ERR Syntax error in HELLO option 'FOO'\r\n"},
		{"hello bad auth", "HELLO 2 AUTH a b\r\n", "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
		{"auth without password", "AUTH x\r\n", "-ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?\r\n"},
		{"auth wrongpass", "AUTH a b\r\n", "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
		{"auth syntax", "AUTH a b c\r\n", "-ERR syntax error\r\n"},
		{"client arity", "CLIENT\r\n", "-ERR wrong number of arguments for 'client' command\r\n"},
		{"client unknown", "CLIENT FOO\r\n", "-ERR unknown subcommand 'FOO'. Try CLIENT HELP.\r\n"},
		{"client setname invalid", "CLIENT SETNAME \"a b\"\r\n", "-ERR Client names cannot contain spaces, newlines or special characters.\r\n"},
		{"client setname getname", "CLIENT SETNAME ab\r\nCLIENT GETNAME\r\n", "+OK\r\n$2\r\nab\r\n"},
		{"client setname arity", "CLIENT SETNAME\r\n", "-ERR wrong number of arguments for 'client|setname' command\r\n"},
		{"client kill old no such", "CLIENT KILL 1.2.3.4:5\r\n", "-ERR No such client\r\n"},
		{"client kill id none", "CLIENT KILL ID 99999\r\n", ":0\r\n"},
		{"client kill id bad", "CLIENT KILL ID x\r\n", "-ERR client-id should be greater than 0\r\n"},
		{"client kill bad filter", "CLIENT KILL FOO bar\r\n", "-ERR syntax error\r\n"},
		{"client kill bad type", "CLIENT KILL TYPE foo\r\n", "-ERR Unknown client type 'foo'\r\n"},
		{"client kill bad user", "CLIENT KILL USER nobody\r\n", "-ERR No such user 'nobody'\r\n"},
		{"client kill bad skipme", "CLIENT KILL SKIPME x\r\n", "-ERR syntax error\r\n"},
		{"client kill skipme", "CLIENT KILL TYPE master SKIPME yes\r\nCLIENT KILL TYPE slave\r\n", ":0\r\n:0\r\n"},
		{"client caching", "CLIENT CACHING yes\r\nCLIENT TRACKING on\r\nCLIENT CACHING yes\r\n", "-ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled\r\n+OK\r\n-ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.\r\n"},
		{"client trackinginfo", "CLIENT TRACKINGINFO\r\n", "*6\r\n$5\r\nflags\r\n*1\r\n$3\r\noff\r\n$8\r\nredirect\r\n:-1\r\n$8\r\nprefixes\r\n*0\r\n"},
		{"client misc", "CLIENT GETREDIR\r\nCLIENT NO-EVICT on\r\nCLIENT PAUSE 1\r\nCLIENT UNPAUSE\r\nCLIENT UNBLOCK 5\r\nCLIENT REPLY on\r\n", ":-1\r\n+OK\r\n+OK\r\n+OK\r\n:0\r\n+OK\r\n"},
		{"client reply off skip", "CLIENT REPLY OFF\r\nPING\r\nCLIENT REPLY ON\r\nCLIENT REPLY SKIP\r\nPING\r\nPING x\r\n", "+OK\r\n$1\r\nx\r\n"},
		{"client list type empty", "CLIENT LIST TYPE pubsub\r\n", "$0\r\n\r\n"},
		{"client list syntax", "CLIENT LIST FOO\r\n", "-ERR syntax error\r\n"},
		{"command count", "COMMAND COUNT\r\n", ":15\r\n"},
		{"command count arity", "COMMAND COUNT x\r\n", "-ERR wrong number of arguments for 'command|count' command\r\n"},
		{"command unknown sub", "COMMAND FOO\r\n", "-ERR unknown subcommand 'FOO'. Try COMMAND HELP.\r\n"},
		{"command getkeys", "COMMAND GETKEYS set a b\r\nCOMMAND GETKEYS ping x\r\nCOMMAND GETKEYS sentinel master x\r\n",
			"-ERR Invalid command specified\r\n-ERR The command has no key arguments\r\n-ERR The command has no key arguments\r\n"},
		{"command getkeys arity", "COMMAND GETKEYS ping\r\n", "-ERR wrong number of arguments for 'command|getkeys' command\r\n"},
		{"command info", "COMMAND INFO foo ping\r\n", "*2\r\n$-1\r\n*10\r\n$4\r\nping\r\n:-1\r\n*1\r\n+fast\r\n:0\r\n:0\r\n:0\r\n*2\r\n+@fast\r\n+@connection\r\n*2\r\n$25\r\nrequest_policy:all_shards\r\n$29\r\nresponse_policy:all_succeeded\r\n*0\r\n*0\r\n"},
		{"command info sub", "COMMAND INFO sentinel|master\r\n", "*1\r\n*10\r\n$15\r\nsentinel|master\r\n:3\r\n*1\r\n+admin\r\n:0\r\n:0\r\n:0\r\n*3\r\n+@admin\r\n+@slow\r\n+@dangerous\r\n*0\r\n*0\r\n*0\r\n"},
		{"command docs unknown", "COMMAND DOCS foo\r\n", "*0\r\n"},
		{"command list module", "COMMAND LIST FILTERBY MODULE x\r\n", "*0\r\n"},
		{"command list syntax", "COMMAND LIST FOO\r\n", "-ERR syntax error\r\n"},
		{"acl arity", "ACL\r\n", "-ERR wrong number of arguments for 'acl' command\r\n"},
		{"acl unknown", "ACL FOO\r\n", "-ERR unknown subcommand 'FOO'. Try ACL HELP.\r\n"},
		{"acl whoami users list", "ACL WHOAMI\r\nACL USERS\r\nACL LIST\r\n", "$7\r\ndefault\r\n*1\r\n$7\r\ndefault\r\n*1\r\n$34\r\nuser default on nopass ~* &* +@all\r\n"},
		{"acl getuser default", "ACL GETUSER default\r\nACL GETUSER nobody\r\n", "*12\r\n$5\r\nflags\r\n*2\r\n$2\r\non\r\n$6\r\nnopass\r\n$9\r\npasswords\r\n*0\r\n$8\r\ncommands\r\n$5\r\n+@all\r\n$4\r\nkeys\r\n$2\r\n~*\r\n$8\r\nchannels\r\n$2\r\n&*\r\n$9\r\nselectors\r\n*0\r\n$-1\r\n"},
		{"acl setuser", "ACL SETUSER bob on >pw ~* &* +@all\r\nACL LIST\r\nACL SETUSER bob badrule\r\nACL DELUSER bob nobody\r\n",
			"+OK\r\n*2\r\n$89\r\nuser bob on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~* &* +@all\r\n$34\r\nuser default on nopass ~* &* +@all\r\n-ERR Error in ACL SETUSER modifier 'badrule': Syntax error\r\n:1\r\n"},
		{"acl new users", "ACL SETUSER alice\r\nACL SETUSER carol on nopass -@all +ping +client|id &ch* ~k*\r\nACL LIST\r\nACL DELUSER alice carol\r\n",
			"+OK\r\n+OK\r\n*3\r\n$34\r\nuser alice off resetchannels -@all\r\n$66\r\nuser carol on nopass ~k* resetchannels &ch* -@all +ping +client|id\r\n$34\r\nuser default on nopass ~* &* +@all\r\n:2\r\n"},
		{"acl password removal", "ACL SETUSER x >a >b <a\r\nACL LIST\r\nACL DELUSER x\r\n",
			"+OK\r\n*2\r\n$34\r\nuser default on nopass ~* &* +@all\r\n$96\r\nuser x off #3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d resetchannels -@all\r\n:1\r\n"},
		{"acl deluser default", "ACL DELUSER default\r\n", "-ERR The 'default' user cannot be removed\r\n"},
		{"acl cat", "ACL CAT nope\r\n", "-ERR Unknown category 'nope'\r\n"},
		{"acl save load", "ACL SAVE\r\n", "-" + errNoACLFile + "\r\n"},
		{"acl dryrun", "ACL DRYRUN default ping\r\n", "+OK\r\n"},
		{"info unknown section", "INFO foo\r\n", "$0\r\n\r\n"},
		{"info sentinel", "INFO sentinel\r\n", "$81\r\n# Sentinel\r\nsentinel_masters:1\r\nsentinel_tilt:0\r\nsentinel_tilt_since_seconds:-1\r\n\r\n"},
		{"shutdown abort", "SHUTDOWN ABORT\r\n", "-ERR No shutdown in progress.\r\n"},
		{"subscribed mode resp2",
			"SUBSCRIBE a b\r\nPING\r\nPING x\r\nINFO\r\nPSUBSCRIBE x*\r\nUNSUBSCRIBE b\r\nUNSUBSCRIBE a\r\nPUNSUBSCRIBE\r\nPING\r\n",
			"*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n*2\r\n$4\r\npong\r\n$0\r\n\r\n*2\r\n$4\r\npong\r\n$1\r\nx\r\n-ERR Can't execute 'info': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n*3\r\n$10\r\npsubscribe\r\n$2\r\nx*\r\n:3\r\n*3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:2\r\n*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:1\r\n*3\r\n$12\r\npunsubscribe\r\n$2\r\nx*\r\n:0\r\n+PONG\r\n"},
		{"unsubscribe nothing resp2", "UNSUBSCRIBE\r\n", "*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, addr)
			c.send(tc.send)
			c.expect(tc.want)
		})
	}
}

func TestExactRepliesRESP3(t *testing.T) {
	_, addr, _ := startServer(t, Config{})
	tests := []struct {
		name string
		send string
		want string
	}{
		{"subscribed mode resp3", "SUBSCRIBE a\r\nPING\r\nINFO foo\r\nUNSUBSCRIBE a\r\nUNSUBSCRIBE\r\n",
			">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n+PONG\r\n$0\r\n\r\n>3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:0\r\n>3\r\n$11\r\nunsubscribe\r\n_\r\n:0\r\n"},
		{"getuser resp3", "ACL SETUSER alice\r\nACL GETUSER alice\r\nACL DELUSER alice\r\n",
			"+OK\r\n%6\r\n$5\r\nflags\r\n~1\r\n$3\r\noff\r\n$9\r\npasswords\r\n*0\r\n$8\r\ncommands\r\n$5\r\n-@all\r\n$4\r\nkeys\r\n$0\r\n\r\n$8\r\nchannels\r\n$0\r\n\r\n$9\r\nselectors\r\n*0\r\n:1\r\n"},
		{"trackinginfo resp3", "CLIENT TRACKINGINFO\r\n", "%3\r\n$5\r\nflags\r\n~1\r\n$3\r\noff\r\n$8\r\nredirect\r\n:-1\r\n$8\r\nprefixes\r\n*0\r\n"},
		{"client list empty resp3", "CLIENT LIST TYPE pubsub\r\n", "=4\r\ntxt:\r\n"},
		{"getname null resp3", "CLIENT GETNAME\r\n", "_\r\n"},
		{"info is bulk in resp3", "INFO foo\r\n", "$0\r\n\r\n"},
		{"null array resp3", "SENTINEL get-master-addr-by-name nope\r\n", "_\r\n"},
		{"map resp3", "SENTINEL master mym\r\n", "%2\r\n$4\r\nname\r\n$3\r\nmym\r\n$5\r\nflags\r\n$6\r\nmaster\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := dial(t, addr)
			c.send("CLIENT ID\r\n")
			idLine := c.readLine()
			id := strings.TrimPrefix(idLine, ":")
			c.send("HELLO 3\r\n")
			c.expect("%6\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:" + id + "\r\n$4\r\nmode\r\n$8\r\nsentinel\r\n$7\r\nmodules\r\n*0\r\n")
			c.send(tc.send)
			c.expect(tc.want)
		})
	}
}

func TestHelloRESP2AndSetname(t *testing.T) {
	_, addr, _ := startServer(t, Config{})
	c := dial(t, addr)
	c.send("CLIENT ID\r\n")
	id, err := strconv.Atoi(strings.TrimPrefix(c.readLine(), ":"))
	if err != nil {
		t.Fatal(err)
	}
	c.send("HELLO 2 SETNAME foo\r\nCLIENT GETNAME\r\n")
	c.expect("*12\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:2\r\n$2\r\nid\r\n:" +
		strconv.Itoa(id) + "\r\n$4\r\nmode\r\n$8\r\nsentinel\r\n$7\r\nmodules\r\n*0\r\n$3\r\nfoo\r\n")
}

// readLine reads one CRLF-terminated line (without the CRLF).
func (c *testConn) readLine() string {
	c.t.Helper()
	var b []byte
	for {
		ch := c.readN(1)
		b = append(b, ch[0])
		if len(b) >= 2 && b[len(b)-2] == '\r' && b[len(b)-1] == '\n' {
			return string(b[:len(b)-2])
		}
	}
}
