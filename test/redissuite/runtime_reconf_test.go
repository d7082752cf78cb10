package redissuite

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Credentials of 03-runtime-reconf.tcl.
const (
	reconfUser     = "testuser"
	reconfPassword = "secret"
)

// okReply fails the test unless v is the status reply OK.
func (s *suite) okReply(what string, v any) {
	s.t.Helper()
	if fmt.Sprint(v) != "OK" {
		s.t.Fatalf("%s: reply %v, want OK", what, v)
	}
}

// serverSetPassword is server_set_password.
func (s *suite) serverSetPassword() {
	s.t.Helper()
	for id, in := range s.redis {
		s.okReply("CONFIG SET requirepass", s.R(id, "CONFIG", "SET", "requirepass", reconfPassword))
		in.closeClient()
		in.password = reconfPassword
		s.okReply("CONFIG SET masterauth", s.R(id, "CONFIG", "SET", "masterauth", reconfPassword))
	}
}

// serverResetPassword is server_reset_password.
func (s *suite) serverResetPassword() {
	s.t.Helper()
	for id, in := range s.redis {
		s.okReply("CONFIG SET requirepass", s.R(id, "CONFIG", "SET", "requirepass", ""))
		s.okReply("CONFIG SET masterauth", s.R(id, "CONFIG", "SET", "masterauth", ""))
		in.closeClient()
		in.password = ""
	}
}

// serverSetACL is server_set_acl.
func (s *suite) serverSetACL(id int) {
	s.t.Helper()
	in := s.redis[id]
	s.okReply("ACL SETUSER", s.R(id, "ACL", "SETUSER", reconfUser, "on", ">"+reconfPassword, "allchannels", "+@all"))
	s.okReply("ACL SETUSER default off", s.R(id, "ACL", "SETUSER", "default", "off"))
	s.R(id, "CLIENT", "KILL", "USER", "default", "SKIPME", "no")
	in.closeClient()
	in.user, in.password = reconfUser, reconfPassword
	s.okReply("CONFIG SET masteruser", s.R(id, "CONFIG", "SET", "masteruser", reconfUser))
	s.okReply("CONFIG SET masterauth", s.R(id, "CONFIG", "SET", "masterauth", reconfPassword))
}

// serverResetACL is server_reset_acl.
func (s *suite) serverResetACL(id int) {
	s.t.Helper()
	in := s.redis[id]
	s.okReply("ACL SETUSER default on", s.R(id, "ACL", "SETUSER", "default", "on"))
	if v := fmt.Sprint(s.R(id, "ACL", "DELUSER", reconfUser)); v != "1" {
		s.t.Fatalf("ACL DELUSER: %v", v)
	}
	in.closeClient()
	in.user, in.password = "", ""
	s.okReply("CONFIG SET masteruser", s.R(id, "CONFIG", "SET", "masteruser", ""))
	s.okReply("CONFIG SET masterauth", s.R(id, "CONFIG", "SET", "masterauth", ""))
}

// masterDisconnected reports whether sentinel id flags the master
// disconnected.
func (s *suite) masterDisconnected(id int) bool {
	return strings.Contains(s.masterField(id, "flags"), "disconnected")
}

// replicasConnected is verify_sentinel_connect_replicas.
func (s *suite) replicasConnected(id int) bool {
	v, err := s.try(id, "SENTINEL", "REPLICAS", masterName)
	if err != nil {
		return false
	}
	arr, _ := v.([]any)
	for _, r := range arr {
		if strings.Contains(dict(r)["flags"], "disconnected") {
			return false
		}
	}
	return true
}

// waitSentinelsConnectServers is wait_for_sentinels_connect_servers 1.
func (s *suite) waitSentinelsConnectServers() {
	s.t.Helper()
	s.foreachSentinel(func(id int) {
		s.waitFor(50*time.Second, fmt.Sprintf("sentinel %d connected to the master", id), func() bool {
			return !s.masterDisconnected(id)
		})
		s.waitFor(50*time.Second, fmt.Sprintf("sentinel %d connected to the replicas", id), func() bool {
			return s.replicasConnected(id)
		})
	})
}

// TestRuntimeReconf ports 03-runtime-reconf.tcl: SENTINEL SET at run time,
// auth-pass / auth-user changes and the reconnections they cause, errors.
func TestRuntimeReconf(t *testing.T) {
	t.Parallel()
	unitRuntimeReconf(newSuite(t))
}

// unitRuntimeReconf is the body of TestRuntimeReconf on an initialised suite.
func unitRuntimeReconf(s *suite) {
	t := s.t
	const sent2re, sent2up, sent2un = 0, 1, 2

	s.step("Sentinels (re)connection following SENTINEL SET mymaster auth-pass", func() {
		s.waitSentinelsConnectServers()
		s.killSentinel(sent2re)
		s.serverSetPassword()
		s.okReply("SENTINEL SET auth-pass", s.S(sent2up, "SENTINEL", "SET", masterName, "auth-pass", reconfPassword))
		s.restartSentinel(sent2re)
		s.waitFor(5*time.Second, "restarted sentinel disconnected (wrong password)", func() bool {
			return s.masterDisconnected(sent2re)
		})
		s.okReply("SENTINEL SET auth-pass", s.S(sent2re, "SENTINEL", "SET", masterName, "auth-pass", reconfPassword))
		s.waitSentinelsConnectServers()
		s.serverResetPassword()
		s.waitSentinelsConnectServers()
		s.verifyAutoDiscovery()
	})

	s.step("Sentinels (re)connection following master ACL change", func() {
		s.waitSentinelsConnectServers()
		s.killSentinel(sent2re)
		s.okReply("SENTINEL SET auth-user", s.S(sent2up, "SENTINEL", "SET", masterName, "auth-user", reconfUser))
		s.okReply("SENTINEL SET auth-pass", s.S(sent2up, "SENTINEL", "SET", masterName, "auth-pass", reconfPassword))
		for id := range s.redis {
			s.serverSetACL(id)
		}
		s.restartSentinel(sent2re)
		s.waitFor(5*time.Second, "restarted sentinel disconnected (obsolete password)", func() bool {
			return s.masterDisconnected(sent2re)
		})
		s.waitFor(5*time.Second, "updated sentinel connected", func() bool {
			return !s.masterDisconnected(sent2up)
		})
		s.waitFor(5*time.Second, "untouched sentinel disconnected (obsolete password)", func() bool {
			return s.masterDisconnected(sent2un)
		})
		s.foreachSentinel(func(id int) {
			s.okReply("SENTINEL SET auth-user", s.S(id, "SENTINEL", "SET", masterName, "auth-user", reconfUser))
			s.okReply("SENTINEL SET auth-pass", s.S(id, "SENTINEL", "SET", masterName, "auth-pass", reconfPassword))
		})
		s.waitSentinelsConnectServers()
		for id := range s.redis {
			s.serverResetACL(id)
		}
		s.waitSentinelsConnectServers()
		s.verifyAutoDiscovery()
	})

	s.step("Set parameters in normal case", func() {
		info := s.masterDict(0)
		q, _ := strconv.Atoi(info["quorum"])
		dam, _ := strconv.Atoi(info["down-after-milliseconds"])
		s.okReply("SET quorum", s.S(0, "SENTINEL", "SET", masterName, "quorum", q+1))
		s.okReply("SET down-after", s.S(0, "SENTINEL", "SET", masterName, "down-after-milliseconds", dam+1000))
		up := s.masterDict(0)
		if up["quorum"] != strconv.Itoa(q+1) || up["down-after-milliseconds"] != strconv.Itoa(dam+1000) {
			t.Errorf("after SET: quorum %s down-after %s", up["quorum"], up["down-after-milliseconds"])
		}
		s.okReply("restore quorum", s.S(0, "SENTINEL", "SET", masterName, "quorum", q))
		s.okReply("restore down-after", s.S(0, "SENTINEL", "SET", masterName, "down-after-milliseconds", dam))
	})

	s.step("Set parameters in normal case with bad format", func() {
		orig := s.masterField(0, "down-after-milliseconds")
		for _, bad := range []string{"-20", "abc"} {
			_, err := s.try(0, "SENTINEL", "SET", masterName, "down-after-milliseconds", bad)
			want := fmt.Sprintf("ERR Invalid argument '%s' for SENTINEL SET 'down-after-milliseconds'", bad)
			if err == nil || err.Error() != want {
				t.Errorf("SET down-after %s: %v, want %q", bad, err, want)
			}
		}
		if got := s.masterField(0, "down-after-milliseconds"); got != orig {
			t.Errorf("down-after-milliseconds changed to %s (was %s)", got, orig)
		}
	})

	s.step("Sentinel Set with other error situations", func() {
		cases := []struct {
			args []any
			want string
		}{
			{[]any{"notification-script", "test.txt"}, "ERR Notification script seems non existing or non executable"},
			{[]any{"fakeoption"}, "ERR wrong number of arguments for 'sentinel|set' command"},
			{[]any{"fakeoption", "fakevalue"}, "ERR Unknown option or number of arguments for SENTINEL SET 'fakeoption'"},
		}
		for _, c := range cases {
			_, err := s.try(0, append([]any{"SENTINEL", "SET", masterName}, c.args...)...)
			if err == nil || err.Error() != c.want {
				t.Errorf("SENTINEL SET %v: %v, want %q", c.args, err, c.want)
			}
		}
		// Saving the new config fails: the config file is a directory.
		in := s.sentinels[0]
		conf := filepath.Join(in.cwd, in.args[0])
		bak := conf + ".bak"
		if err := os.Rename(conf, bak); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(conf, 0o755); err != nil {
			t.Fatal(err)
		}
		q, _ := strconv.Atoi(s.masterField(0, "quorum"))
		_, err := s.try(0, "SENTINEL", "SET", masterName, "quorum", q+1)
		if rerr := os.Remove(conf); rerr != nil {
			t.Fatal(rerr)
		}
		if rerr := os.Rename(bak, conf); rerr != nil {
			t.Fatal(rerr)
		}
		if err == nil || !strings.HasPrefix(err.Error(), "ERR Failed to save config file") {
			t.Errorf("SET with an unwritable config: %v, want ERR Failed to save config file...", err)
		}
	})

	s.step("SENTINEL CONFIG SET/GET at run time, persisted", func() {
		in := s.sentinels[0]
		conf := filepath.Join(in.cwd, in.args[0])
		for _, v := range []string{"no", "yes"} {
			s.okReply("CONFIG SET resolve-hostnames", s.S(0, "SENTINEL", "CONFIG", "SET", "resolve-hostnames", v))
			if got := dict(s.S(0, "SENTINEL", "CONFIG", "GET", "resolve-hostnames")); got["resolve-hostnames"] != v || len(got) != 1 {
				t.Errorf("CONFIG GET resolve-hostnames = %v, want %s", got, v)
			}
			b, err := os.ReadFile(conf)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), "sentinel resolve-hostnames "+v+"\n") {
				t.Errorf("config file lacks \"sentinel resolve-hostnames %s\":\n%s", v, b)
			}
		}
		_, err := s.try(0, "SENTINEL", "CONFIG", "SET", "foo", "bar")
		if got, want := errText(err), "ERR Invalid argument 'foo' to SENTINEL CONFIG SET"; got != want {
			t.Errorf("CONFIG SET foo: %q, want %q", got, want)
		}
		_, err = s.try(0, "SENTINEL", "CONFIG", "SET", "resolve-hostnames", "maybe")
		if got, want := errText(err), "ERR Invalid value 'maybe' to SENTINEL CONFIG SET 'resolve-hostnames'"; got != want {
			t.Errorf("CONFIG SET resolve-hostnames maybe: %q, want %q", got, want)
		}
	})
}
