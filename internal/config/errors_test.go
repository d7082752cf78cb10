package config

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// badCases are invalid files with the line and message real Sentinel 7.0.15
// reports for them.
var badCases = []struct {
	name, conf string
	line       int
	msg        string
}{
	{"quorum-0", "sentinel monitor m 127.0.0.1 6379 0\n", 1, msgQuorum},
	{"hostname-without-resolve", "sentinel monitor m foo.example 6379 2\n", 1, msgResolve},
	{"port-too-big", "sentinel monitor m 127.0.0.1 70000 2\n", 1, msgBadPort},
	{"port-negative", "sentinel monitor m 127.0.0.1 -1 2\n", 1, msgBadPort},
	{"dup-master", "sentinel monitor m 127.0.0.1 6379 2\nsentinel monitor m 127.0.0.1 6380 2\n", 2, msgDupMaster},
	{"bad-myid", "# c\n\nsentinel myid abc\n", 3, msgMyID},
	{"no-such-master", "sentinel down-after-milliseconds x 100\n", 1, msgNoMaster},
	{"option-before-monitor-ok-then-zero", "sentinel down-after-milliseconds m 0\nsentinel monitor m 127.0.0.1 6379 2\n", 1, msgZeroTime},
	{"failover-timeout-zero", "sentinel monitor m 127.0.0.1 6379 2\nsentinel failover-timeout m -5\n", 2, msgZeroTime},
	{"rename-twice", "sentinel monitor m 127.0.0.1 6379 2\nsentinel rename-command m ping A\nsentinel rename-command m PING B\n", 3, msgRenameTwice},
	{"dup-sentinel", "sentinel monitor m 127.0.0.1 6379 2\nsentinel known-sentinel m 127.0.0.1 5 0123456789012345678901234567890123456789\nsentinel known-sentinel m 127.0.0.1 6 0123456789012345678901234567890123456789\n", 3, msgDupSentinel},
	{"dup-replica", "sentinel monitor m 127.0.0.1 6379 2\nsentinel known-slave m 127.0.0.1 6380\nsentinel known-replica m 127.0.0.1 6380\n", 3, msgDupReplica},
	{"replica-hostname", "sentinel monitor m 127.0.0.1 6379 2\nsentinel known-replica m foo 5\n", 2, msgResolve},
	{"reboot-negative", "sentinel monitor m 127.0.0.1 6379 2\nsentinel master-reboot-down-after-period m -1\n", 2, msgNegTime},
	{"notification-script-missing", "sentinel monitor m 127.0.0.1 6379 2\nsentinel notification-script m /nonexistent/x\n", 2, msgNotifScript},
	{"reconfig-script-missing", "sentinel monitor m 127.0.0.1 6379 2\nsentinel client-reconfig-script m /nonexistent/x\n", 2, msgReconfScript},
	{"deny-scripts-bad", "sentinel deny-scripts-reconfig maybe\n", 1, msgDenyYesNo},
	{"resolve-bad", "sentinel resolve-hostnames maybe\n", 1, msgResolveYesNo},
	{"announce-hostnames-bad", "sentinel announce-hostnames maybe\n", 1, msgAnnounceYesNo},
	{"unknown-sentinel", "sentinel foo\n", 1, msgUnrecognized},
	{"monitor-extra-arg", "sentinel monitor m 127.0.0.1 6379 2 x\n", 1, msgUnrecognized},
	{"auth-pass-with-space", "sentinel monitor m 127.0.0.1 6379 2\nsentinel auth-pass m pa ss\n", 2, msgUnrecognized},
	{"three-pass-order", "sentinel parallel-syncs nope 1\nsentinel myid abc\n", 2, msgMyID},
	{"unknown-directive", "port 5000\nfoo bar\n", 2, msgBadDirective},
	{"port-no-arg", "port\n", 1, msgWrongArgs},
	{"port-not-int", "port abc\n", 1, msgNotInt},
	{"port-range", "port 99999\n", 1, "argument must be between 0 and 65535 inclusive"},
	{"bool", "daemonize maybe\n", 1, msgYesNo},
	// loglevel's list gained "nothing" in 7.2: TestLoglevelNothingLikeValkey.
	{"enum", "repl-diskless-load foo\n", 1, "argument(s) must be one of the following: disabled, on-empty-db, swapdb"},
	{"unbalanced-double", "a \"b\n", 1, msgUnbalancedQuotes},
	{"quote-not-followed-by-space", "a \"b\"c\n", 1, msgUnbalancedQuotes},
	{"unbalanced-single", "a 'b\n", 1, msgUnbalancedQuotes},
	{"rename-non-sentinel-command", "rename-command get x\n", 1, msgNoSuchCommand},
	{"rename-target-exists", "rename-command ping x\nrename-command info x\n", 2, msgTargetExists},
	{"bad-user-rule", "user alice on >p ~* +@all\nuser bob badrule\n", 2, "Error in user declaration 'user': Syntax error"},
	{"user-bad-hash", "user x on #zz\n", 1, "Error in user declaration 'x': " + errACLBadHash.Error()},
	{"user-key-after-allkeys", "user x on ~* &* +@all -get +set %R~foo allkeys\n", 1, "Error in user declaration '-get': " + errACLKeysAfter.Error()},
	{"user-channel-after-all", "user x on &* &foo\n", 1, "Error in user declaration 'on': " + errACLChansAfter.Error()},
	{"user-remove-missing-password", "user x on <nope\n", 1, "Error in user declaration 'x': " + errACLNoSuchPass.Error()},
	{"user-unclosed-selector", "user x on (~x +get\n", 1, "Error in user declaration 'x': " + errACLUnclosed.Error()},
	{"user-duplicate", "user default off\nuser default on\n", 2, "Error in user declaration 'default': " + errACLDuplicateID.Error()},
	{"enum-tls-auth-clients", "tls-auth-clients maybe\n", 1, "argument(s) must be one of the following: no, yes, optional"},
	{"memory", "maxmemory abc\n", 1, msgNotMemory},
	{"hz-negative", "hz -1\n", 1, "argument must be between 0 and 2147483647 inclusive"},
	{"maxclients-zero", "maxclients 0\n", 1, "argument must be between 1 and 4294967295 inclusive"},
	{"percentiles-range", "latency-tracking-info-percentiles 101\n", 1, "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"},
	{"string-no-arg", "bind-source-addr\n", 1, msgWrongArgs},
	{"user-non-sentinel-command", "port 1\nuser carol on +ping (~y +get)\n", 2, "Error loading ACL rule '(~y +get)' for the user named 'carol': Unknown command or category name in ACL"},
	{"user-non-sentinel-command-root", "user carol on +set\n", 1, "Error loading ACL rule '+set' for the user named 'carol': Unknown command or category name in ACL"},
	{"user-name-with-space", "user \"a b\" on\n", 1, "Spaces not allowed in ACL usernames"},
	{"keyspace-events", "notify-keyspace-events Q\n", 1, "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."},
	{"unixsocketperm", "unixsocketperm 9\n", 1, "argument couldn't be parsed as an octal number"},
	{"save-odd", "save 900\n", 1, "Invalid save parameters"},
	{"module-config-no-value", "foo.bar\n", 1, msgModuleNoValue},
}

func TestParseErrors(t *testing.T) {
	for _, tc := range badCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.conf), "bad.conf")
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("want *ConfigError, got %v", err)
			}
			if ce.Line != tc.line || ce.Msg != tc.msg || ce.File != "bad.conf" {
				t.Fatalf("got %s:%d %q, want line %d %q", ce.File, ce.Line, ce.Msg, tc.line, tc.msg)
			}
			want := strings.Trim(strings.Split(tc.conf, "\n")[tc.line-1], " \t\r")
			if ce.Text != want {
				t.Errorf("text %q, want %q", ce.Text, want)
			}
			if want := fmt.Sprintf("bad.conf:%d: %s", tc.line, tc.msg); err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("errors.Is(err, ErrConfig) is false")
			}
			if (tc.msg == msgNoMaster) != errors.Is(err, ErrNoSuchMaster) {
				t.Errorf("errors.Is(err, ErrNoSuchMaster) wrong for %q", tc.msg)
			}
		})
	}
}

var fatalRe = regexp.MustCompile(`(?s)at line (\d+)\n>>> '(.*)'\n(.*)\n$`)

// realFatal runs the real binary on conf with extra args and returns the
// line and message of its fatal config error.
func realFatal(t *testing.T, conf string, args ...string) (int, string) {
	t.Helper()
	return binFatal(t, realSentinel, conf, args...)
}

// binFatal is realFatal with another sentinel binary (valkey-sentinel).
func binFatal(t *testing.T, bin, conf string, args ...string) (int, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := append([]string{"s.conf", "--port", strconv.Itoa(freePort(t))}, args...)
	cmd := exec.Command(bin, argv...)
	cmd.Dir = dir
	var stderr, stdout strings.Builder
	cmd.Stderr = &stderr
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done; done <- nil })
	select {
	case err := <-done:
		done <- err
		if err == nil {
			t.Fatalf("real sentinel accepted the file")
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("real sentinel did not exit on a bad file")
	}
	m := fatalRe.FindStringSubmatch(stderr.String())
	if m == nil {
		// Startup errors after the config (ACL users) go to the log.
		if lm := startupRe.FindStringSubmatch(stdout.String()); lm != nil {
			return 0, lm[1]
		}
		t.Fatalf("unexpected stderr: %q stdout: %q", stderr.String(), stdout.String())
	}
	n, _ := strconv.Atoi(m[1])
	return n, m[3]
}

// startupRe matches the log line of an ACL error at startup.
var startupRe = regexp.MustCompile(`# (Error loading ACL rule .*|Spaces not allowed in ACL usernames)\n`)

// TestParseErrorsMatchRealSentinel runs the real binary on every bad case
// and checks that it reports the same line and message as the table.
func TestParseErrorsMatchRealSentinel(t *testing.T) {
	needReal(t)
	for _, tc := range badCases {
		t.Run(tc.name, func(t *testing.T) {
			line, msg := realFatal(t, tc.conf)
			if line == 0 { // startup error: real prints no line, we report the user line
				line = tc.line
			}
			if line != tc.line || msg != tc.msg {
				t.Fatalf("real says line %d %q; table says %d %q", line, msg, tc.line, tc.msg)
			}
		})
	}
}

// TestApplyArgsErrorsMatchRealSentinel checks line numbers of errors in
// command-line directives (appended after the file) against the real binary.
func TestApplyArgsErrorsMatchRealSentinel(t *testing.T) {
	needReal(t)
	cases := []struct {
		name, conf string
		args       []string
	}{
		{"after-newline-terminated-file", "# c\nsentinel myid 0123456789012345678901234567890123456789\n",
			[]string{"--sentinel", "monitor", "m", "127.0.0.1", "6379", "0"}},
		{"after-unterminated-file", "# c\nport 5", []string{"--tls-auth-clients", "loud"}},
		{"second-option", "port 5\n", []string{"--hz", "20", "--bogus", "x"}},
		{"master-option-in-file-monitor-in-args", "sentinel down-after-milliseconds m 0\n",
			[]string{"--sentinel monitor m 127.0.0.1 6379 2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			line, msg := realFatal(t, tc.conf, tc.args...)
			_, err := ParseArgs(strings.NewReader(tc.conf), "s.conf", append([]string{"--port", "1"}, tc.args...))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("want *ConfigError, got %v", err)
			}
			if ce.Line != line || ce.Msg != msg {
				t.Fatalf("ours line %d %q, real line %d %q", ce.Line, ce.Msg, line, msg)
			}
		})
	}
}
