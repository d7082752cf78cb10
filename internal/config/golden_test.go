package config

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const fixedID = "0123456789abcdef0123456789abcdef01234567"

// goldenCases are hand-written sentinel.conf files. {{M}} is a closed port
// for the monitored master (so the real sentinel discovers nothing), {{DIR}}
// the test directory, {{ID}} a fixed sentinel id.
var goldenCases = []struct {
	name, conf string
	daemon     bool
	pass       string   // requirepass, to AUTH before FLUSHCONFIG
	steps      []step   // runtime changes, each flushed by both
	args       []string // extra command-line arguments ({{M}} expanded)
	file       string   // testdata file appended to conf
}{
	{name: "minimal", conf: "sentinel monitor mymaster 127.0.0.1 {{M}} 2\n"},
	{name: "handwritten", conf: `# Example sentinel.conf written by an operator.
# Comments and blank lines must stay where they are.

port 26379
SENTINEL resolve-hostnames no
sentinel down-after-milliseconds mymaster 5000
sentinel parallel-syncs mymaster 3

# failover tuning
sentinel failover-timeout mymaster 60000
sentinel monitor mymaster 127.0.0.1 {{M}} 2
logfile ""
loglevel notice
`},
	{name: "epochs-and-peers", conf: `sentinel myid {{ID}}
sentinel monitor m1 127.0.0.1 {{M}} 2
sentinel config-epoch m1 5
sentinel leader-epoch m1 7
sentinel known-replica m1 127.0.0.1 6380
sentinel known-replica m1 127.0.0.2 6381
sentinel known-sentinel m1 127.0.0.1 26380 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
sentinel known-sentinel m1 127.0.0.1 26381
sentinel current-epoch 3
`},
	{name: "rename-command", conf: `sentinel myid {{ID}}
sentinel monitor m1 127.0.0.1 {{M}} 1
sentinel rename-command m1 CONFIG GUESSME
rename-command ping pong2
`},
	{name: "auth", pass: "secret", conf: `sentinel myid {{ID}}
sentinel monitor m1 127.0.0.1 {{M}} 2
sentinel auth-pass m1 s3cret
sentinel auth-user m1 bob
sentinel sentinel-user suser
sentinel sentinel-pass spass
requirepass secret
`},
	{name: "announce", conf: `sentinel myid {{ID}}
sentinel announce-ip "10.0.0.1"
sentinel announce-port 1234
sentinel deny-scripts-reconfig no
sentinel monitor m1 127.0.0.1 {{M}} 2
sentinel master-reboot-down-after-period m1 1000
`},
	{name: "users", conf: `sentinel myid {{ID}}
user default on nopass ~* &* +@all
user alice on >pw ~* +@all
user carol on >x %R~cache:* &chan +ping (~y +info) resetpass nopass
user dave off #0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef allchannels allkeys -@all +info
user erin on >a >b >a <a ~k1 ~k2 &c1 +ping -ping skip-sanitize-payload
user u1 on -ping
user u2 on +@all -ping
user u3 on +@all -ping +ping
user u4 on +ping +info -ping
user u5 on +@pubsub -publish
user u6 on +PING +ping
user u7 on -@all +@admin -@all +info
user u8 on +client|list -client
user u9 on +@all -@admin +@admin
user fred on >z reset on #00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff !00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff
bind 127.0.0.1
sentinel monitor m1 127.0.0.1 {{M}} 2
`},
	{name: "daemonize", daemon: true, conf: `sentinel myid {{ID}}
daemonize yes
pidfile {{DIR}}/sentinel.pid
logfile {{DIR}}/sentinel.log
sentinel monitor m1 127.0.0.1 {{M}} 2
`},
	{name: "server-options", conf: `sentinel myid {{ID}}
sentinel monitor m1 127.0.0.1 {{M}} 2
maxclients 1000
timeout 0
tcp-keepalive 60
hz 10
DAEMONIZE NO
loglevel VERBOSE
repl-diskless-sync-delay 0
enable-debug-command yes
save 900 1
protected-mode no
`},
	{name: "hostnames", conf: `sentinel myid {{ID}}
sentinel resolve-hostnames yes
sentinel announce-hostnames yes
sentinel monitor m1 localhost {{M}} 2
sentinel known-replica m1 localhost 6390
sentinel known-replica m1 ::1 6391
`},
	{name: "command-line", conf: "# only comments here\nsentinel myid {{ID}}\n",
		args: []string{"--sentinel", "monitor", "m1", "127.0.0.1", "{{M}}", "2", "--sentinel", "down-after-milliseconds", "m1", "4000",
			"--loglevel", "verbose", "--maxclients", "500", "--bind", "127.0.0.1 ::1",
			"--repl-diskless-sync-delay", "0", "--maxmemory", "1MB", "--appendonly", "no", "--notify-keyspace-events", "KEA",
			"--slave-priority", "7", "--masterauth", "", "--syslog-ident", "redis", "--enable-debug-command", "yes"}},
	{name: "defaults-and-units", conf: `bind * -::*
pidfile ""
requirepass ""
bind-source-addr ""
tls-port 0
aclfile ""
tls-cert-file ""
tls-auth-clients YES
hz 10
tls-replication no
maxmemory 1GB
client-query-buffer-limit 1048576
repl-backlog-size 1000
unixsocketperm 700
client-output-buffer-limit normal 0 0 0
sentinel myid {{ID}}
latency-tracking-info-percentiles ""
loadmodule /nonexistent.so
sentinel monitor m1 127.0.0.1 {{M}} 2
`},
	{name: "all-redis-options", conf: "sentinel myid {{ID}}\nsentinel monitor m1 127.0.0.1 {{M}} 2\n",
		file: "all-redis-options.conf"},
	{name: "nondefault-options", conf: "sentinel myid {{ID}}\nsentinel monitor m1 127.0.0.1 {{M}} 2\n",
		file: "nondefault-options.conf"},
	{name: "output-buffer-limits", conf: `sentinel myid {{ID}}
sentinel monitor m1 127.0.0.1 {{M}} 2
client-output-buffer-limit slave 1mb 2mb 3 pubsub 0 0 0
client-output-buffer-limit normal 1024 0 0
`},
	{name: "sentinel-set", conf: `# runtime changes through SENTINEL SET / CONFIG SET
sentinel myid {{ID}}
sentinel monitor m1 127.0.0.1 {{M}} 2
sentinel failover-timeout m1 60000
# keep this comment
sentinel auth-pass m1 old
`, steps: []step{
		{"SENTINEL SET m1 down-after-milliseconds 1234", func(c *Config, _ int) { c.Master("m1").DownAfterMillis = 1234 }},
		{"SENTINEL SET m1 failover-timeout 180000", func(c *Config, _ int) { c.Master("m1").FailoverTimeoutMillis = 180000 }},
		{"SENTINEL SET m1 parallel-syncs 5", func(c *Config, _ int) { c.Master("m1").ParallelSyncs = 5 }},
		{"SENTINEL SET m1 quorum 1", func(c *Config, _ int) { c.Master("m1").Quorum = 1 }},
		{"SENTINEL SET m1 auth-pass new", func(c *Config, _ int) { c.Master("m1").AuthPass = "new" }},
		{"SENTINEL SET m1 rename-command CONFIG cfg", func(c *Config, _ int) {
			c.Master("m1").RenameCommands = append(c.Master("m1").RenameCommands, Rename{"CONFIG", "cfg"})
		}},
		{"SENTINEL CONFIG SET announce-port 5555", func(c *Config, _ int) { c.Sentinel.AnnouncePort = 5555 }},
		{"SENTINEL CONFIG SET resolve-hostnames yes", func(c *Config, _ int) { c.Sentinel.ResolveHostnames = true }},
	}},
	{name: "remove-and-monitor", conf: `sentinel myid {{ID}}
sentinel monitor old 127.0.0.1 {{M}} 2
sentinel down-after-milliseconds old 5000
sentinel known-replica old 127.0.0.1 6390
`, steps: []step{
		{"SENTINEL REMOVE old", func(c *Config, _ int) { c.Sentinel.Masters = nil }},
		{"SENTINEL MONITOR new 127.0.0.2 {{M}} 3", func(c *Config, mport int) {
			c.Sentinel.Masters = []*Master{{Name: "new", Host: "127.0.0.2", Port: mport, Quorum: 3,
				DownAfterMillis: DefaultDownAfterMillis, FailoverTimeoutMillis: DefaultFailoverTimeoutMillis, ParallelSyncs: 1}}
		}},
	}},
}

// step is one runtime change: a command for the real sentinel and the same
// change applied to our Config (mport is the master port of the case).
type step struct {
	cmd   string
	apply func(c *Config, mport int)
}

func expand(conf, dir string, mport int) string {
	r := strings.NewReplacer("{{M}}", strconv.Itoa(mport), "{{DIR}}", dir, "{{ID}}", fixedID)
	return r.Replace(conf)
}

// oursLikeReal applies our rewrite to input the number of times real
// Sentinel did (one extra at startup when the file had no myid).
func oursLikeReal(t *testing.T, input, dir string, port, mport int, args []string, myid string, steps []step) string {
	t.Helper()
	c, err := ParseArgs(strings.NewReader(input), "sentinel.conf", append([]string{"--port", strconv.Itoa(port)}, args...))
	if err != nil {
		t.Fatalf("our parser rejects the input: %v", err)
	}
	if c.Server.Dir == "" {
		c.Server.AbsDir = dir
	}
	out := input
	if c.Sentinel.MyID == "" {
		c.Sentinel.MyID = myid
		out = string(RewriteContent([]byte(out), c))
	}
	for _, st := range steps {
		st.apply(c, mport)
		out = string(RewriteContent([]byte(out), c))
	}
	return string(RewriteContent([]byte(out), c))
}

func TestGoldenAgainstRealSentinel(t *testing.T) {
	needReal(t)
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			mport, port := freePort(t), freePort(t)
			input := expand(tc.conf, dir, mport)
			if tc.file != "" {
				b, err := os.ReadFile(filepath.Join("testdata", tc.file))
				if err != nil {
					t.Fatal(err)
				}
				input += string(b)
			}
			if err := os.WriteFile(filepath.Join(dir, "sentinel.conf"), []byte(input), 0o644); err != nil {
				t.Fatal(err)
			}
			pidfile := ""
			if tc.daemon {
				pidfile = filepath.Join(dir, "sentinel.pid")
			}
			var cmds []string
			for _, st := range tc.steps {
				cmds = append(cmds, expand(st.cmd, dir, mport))
			}
			var args []string
			for _, a := range tc.args {
				args = append(args, expand(a, dir, mport))
			}
			real := runReal(t, dir, port, args, pidfile, tc.pass, cmds...)

			// (a) our parser loads what real Sentinel wrote.
			c, err := Parse(strings.NewReader(real), "real.conf")
			if err != nil {
				t.Fatalf("our parser rejects real output: %v\n%s", err, real)
			}
			if got := myidOf(real); c.Sentinel.MyID != got || len(got) != RunIDSize {
				t.Errorf("myid: parsed %q, file %q", c.Sentinel.MyID, got)
			}
			if os.Getenv("CONFIG_CAPTURE_TESTDATA") != "" {
				capture(t, tc.name, real, dir, mport, port)
			}
			// (b) our rewrite of the input equals real's output.
			ours := oursLikeReal(t, input, dir, port, mport, args, myidOf(real), tc.steps)
			if err := diffLines(normalize(real), normalize(ours)); err != errNoDiff {
				t.Errorf("%v\n--- real\n%s--- ours\n%s", err, real, ours)
			}
		})
	}
}

// capture stores real Sentinel's output under testdata/ with the temp dir
// replaced by /tmp and the random ports by fixed ones, so that it loads on
// any machine (see testdata/README.md).
func capture(t *testing.T, name, real, dir string, mport, port int) {
	t.Helper()
	r := strings.NewReplacer(dir, "/tmp", " "+strconv.Itoa(mport)+" ", " 6379 ",
		"port "+strconv.Itoa(port), "port 26379")
	out := r.Replace(real)
	if err := os.WriteFile(filepath.Join("testdata", "real-"+name+".conf"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}
